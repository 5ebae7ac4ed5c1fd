package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A hybrid search ranks its full-text candidates on the store's search threads while the caller
 * embeds the query and searches the dense index: the same hits as one step after the other, the
 * threads end with the store, a failing query embedding leaves the store usable, and a full-text
 * ranking split over two read connections gives the same hits as one. Real model,
 * SQLite and JVector, over the real Claude Code fixture logs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OverlappedSearchTest {

    private static final List<String> QUERIES = List.of(
            "why did CI check the wrong branch",
            "episodic memory search",
            "how are embeddings stored",
            "sqlite database",
            "tests failing",
            "git commit message",
            "parseHttpHeader snake_case_name",
            "what",
            "!!!");

    private Embedder embedder;
    private Path fixtures;

    @BeforeAll
    void setUp() {
        fixtures = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures")
                .resolve("claude-code");
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void tearDown() {
        embedder.close();
    }

    private SqliteMemoryStore open(Path dir, SearchTuning tuning) {
        return SqliteMemoryStore.open(dir, embedder, StoreOptions.defaults(), tuning);
    }

    /** Each query in several request shapes: every retrieval mode, filters, a limit past the candidates. */
    private static List<SearchRequest> requests(MemoryStore store) {
        String session = store.recentSessions(1).get(0).session();
        List<SearchRequest> requests = new ArrayList<>();
        for (String q : QUERIES) {
            requests.add(SearchRequest.builder(q).limit(10).build());
            requests.add(SearchRequest.builder(q).limit(40).build());
            requests.add(SearchRequest.builder(q).retrieval(Retrieval.LEXICAL).limit(10).build());
            requests.add(SearchRequest.builder(q).retrieval(Retrieval.DENSE).limit(10).build());
            requests.add(SearchRequest.builder(q).agent("claude-code").kinds(MemoryKind.EXCHANGE).limit(10)
                    .build());
            requests.add(SearchRequest.builder(q).session(session).limit(10).build());
            requests.add(SearchRequest.builder(q).after(Instant.parse("2100-01-01T00:00:00Z")).limit(10).build());
        }
        return requests;
    }

    @Test
    void overlappedHybridSearchesGiveTheSameHitsAsSequentialOnes(@TempDir Path dir) {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        List<SearchRequest> requests;
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
            assertThat(store.stats().memories()).isGreaterThan(40);
            requests = requests(store);
        }
        // Both opened after the index was sealed at the first close: the same dense index.
        List<List<SearchHit>> sequential = new ArrayList<>();
        try (MemoryStore store = open(dir, SearchTuning.DEFAULT.overlapLexical(false))) {
            for (SearchRequest r : requests) {
                sequential.add(store.search(r));
            }
        }
        try (MemoryStore store = open(dir, SearchTuning.DEFAULT.overlapLexical(true))) {
            int withBothLists = 0;
            for (int i = 0; i < requests.size(); i++) {
                List<SearchHit> overlapped = store.search(requests.get(i));
                // Records: memories, scores and score parts compared exactly.
                assertThat(overlapped).as(requests.get(i).toString()).isEqualTo(sequential.get(i));
                if (overlapped.stream().anyMatch(h -> h.parts().denseRank() > 0 && h.parts().lexicalRank() > 0)) {
                    withBothLists++;
                }
            }
            assertThat(withBothLists).as("hybrid searches whose hits come from both lists").isGreaterThan(5);
        }
    }

    @Test
    void fullTextRankingsSplitOverTwoConnectionsGiveTheSameHits(@TempDir Path dir) {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        List<SearchRequest> requests;
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
            requests = requests(store);
        }
        // Ties in bm25 are where a merge of two sorted halves would go wrong first.
        requests.add(SearchRequest.builder("the").retrieval(Retrieval.LEXICAL).limit(60).build());
        requests.add(SearchRequest.builder("test test test").retrieval(Retrieval.LEXICAL).limit(60).build());

        SearchTuning fts5 = SearchTuning.DEFAULT.rankInJava(false); // FTS5's ranking, the one that is split
        List<List<SearchHit>> whole = new ArrayList<>();
        try (SqliteMemoryStore store = open(dir, fts5.splitLexicalAt(Long.MAX_VALUE))) {
            for (SearchRequest r : requests) {
                whole.add(store.search(r));
            }
            assertThat(store.lexical().splits()).isZero();
        }

        try (SqliteMemoryStore store = open(dir, fts5.splitLexicalAt(1))) { // every query with a match is split
            int withLexicalHits = 0;
            for (int i = 0; i < requests.size(); i++) {
                List<SearchHit> split = store.search(requests.get(i));
                assertThat(split).as(requests.get(i).toString()).isEqualTo(whole.get(i));
                if (split.stream().anyMatch(h -> h.parts().lexicalRank() > 0)) {
                    withLexicalHits++;
                }
            }
            assertThat(withLexicalHits).isGreaterThan(20);
            assertThat(store.lexical().splits()).as("rankings split").isGreaterThan(20);
        }
    }

    @Test
    void theFullTextRankingStartsFromFts5WithFiltersAndARowRange(@TempDir Path dir) throws Exception {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
        }
        SqlFilter bySession = SqlFilter.of(SearchRequest.builder("docker gcc")
                .session("b1").kinds(MemoryKind.EXCHANGE).build());
        SqlFilter none = SqlFilter.of(SearchRequest.builder("docker gcc").build());
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE))) {
            c.createStatement().execute("ANALYZE"); // statistics that make an index of the memories look cheap
            for (SqlFilter filter : List.of(bySession, none)) {
                for (boolean range : List.of(false, true)) {
                    List<String> plan = new ArrayList<>();
                    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("EXPLAIN QUERY PLAN "
                            + LexicalRetriever.lexicalSql(filter, range).replace("?", "NULL"))) {
                        while (rs.next()) {
                            plan.add(rs.getString(4));
                        }
                    }
                    // FTS5 first, then (with filters) one primary-key lookup per match; never a
                    // MATCH run once per memory of an index.
                    assertThat(plan.get(0)).as(filter + " range " + range + ": " + plan)
                            .startsWith("SCAN memories_fts VIRTUAL TABLE");
                    assertThat(plan).as(plan.toString()).noneMatch(step -> step.contains("memories_session"));
                }
            }
        }
    }

    @Test
    void aStoreWithOneReadConnectionNeverSplitsItsRanking(@TempDir Path dir) {
        // FTS5's ranking, the one that could be split, split whenever it can be
        SearchTuning split = SearchTuning.DEFAULT.rankInJava(false).splitLexicalAt(1);
        try (SqliteMemoryStore store = SqliteMemoryStore.open(dir, embedder,
                StoreOptions.builder().readConnections(1).build(), split)) {
            store.addAll(TestCorpus.create().all());
            assertThat(store.search(SearchRequest.builder("docker gcc").retrieval(Retrieval.LEXICAL).build()))
                    .isNotEmpty();
            assertThat(store.search(SearchRequest.builder("docker gcc").build())).isNotEmpty();
            assertThat(store.lexical().splits()).isZero();
        }
    }

    @Test
    void searchesFromSeveralThreadsAtOnceGiveTheSameHits(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().readConnections(2).build())) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
            List<SearchRequest> requests = requests(store);
            List<List<SearchHit>> expected = new ArrayList<>();
            for (SearchRequest r : requests) {
                expected.add(store.search(r));
            }
            ExecutorService callers = Executors.newFixedThreadPool(4);
            try {
                List<Future<List<SearchHit>>> results = new ArrayList<>();
                for (int round = 0; round < 3; round++) {
                    for (SearchRequest r : requests) {
                        results.add(callers.submit(() -> store.search(r)));
                    }
                }
                for (int i = 0; i < results.size(); i++) {
                    assertThat(results.get(i).get()).isEqualTo(expected.get(i % requests.size()));
                }
            } finally {
                callers.shutdownNow();
            }
        }
    }

    @Test
    void readConnectionsMapTheDatabaseAndReadWhatIsWrittenPastTheMappedEnd(@TempDir Path dir) throws Exception {
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().readConnections(2).build())) {
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            store.addAll(TestCorpus.create().all());
            for (int i = 0; i < 4; i++) { // the pool hands the connections out in turn
                long mapped = sqlite.database().read("read mmap_size", c -> {
                    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("PRAGMA mmap_size")) {
                        rs.next();
                        return rs.getLong(1);
                    }
                });
                assertThat(mapped).isEqualTo(StoreDatabase.READ_MMAP_BYTES);
            }
            assertThat(store.search(SearchRequest.builder("wombat").retrieval(Retrieval.LEXICAL).build())).isEmpty();
            long before = Files.size(dir.resolve(SqliteMemoryStore.DATABASE_FILE));

            // Grow the file well past what the readers mapped, and move the pages from the WAL
            // into the file itself, where the readers read them through the map.
            List<Memory> wombats = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                wombats.add(Memory.builder(MemoryKind.NOTE, "me", "wombat " + i + " " + "burrow tunnel ".repeat(40))
                        .build());
            }
            store.addAll(wombats);
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
                 Statement st = other.createStatement()) {
                st.execute("PRAGMA wal_checkpoint(TRUNCATE)");
            }
            assertThat(Files.size(dir.resolve(SqliteMemoryStore.DATABASE_FILE))).isGreaterThan(before + 100_000);

            for (int i = 0; i < 4; i++) {
                List<SearchHit> hits = store.search(SearchRequest.builder("wombat 299").retrieval(Retrieval.LEXICAL)
                        .limit(300).build());
                assertThat(hits).hasSize(300);
                assertThat(hits.get(0).memory().text()).startsWith("wombat 299 burrow tunnel");
            }
        }
    }

    @Test
    void theSearchThreadsEndWhenTheStoreCloses(@TempDir Path dir) {
        Set<Thread> before = searchThreads();
        MemoryStore store = FunesStore.open(dir, embedder);
        store.addAll(TestCorpus.create().all());
        assertThat(store.search(SearchRequest.builder("flaky clock test timeout").build())).isNotEmpty();
        Set<Thread> started = searchThreads();
        started.removeAll(before);
        assertThat(started).as("threads of this store's hybrid search").isNotEmpty();
        store.close();
        assertThat(started).allSatisfy(t -> assertThat(t.isAlive()).as(t.getName()).isFalse());
    }

    @Test
    @Timeout(120) // a connection not given back would make the second search wait for ever
    void aFailingQueryEmbeddingLeavesTheStoreUsable(@TempDir Path dir) {
        Embedder failing = new FailingEmbedder(embedder);
        try (MemoryStore store = FunesStore.open(dir, failing, StoreOptions.builder().readConnections(1).build())) {
            store.addAll(TestCorpus.create().all());
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> store.search(SearchRequest.builder("docker gcc " + FailingEmbedder.MARKER)
                        .build())).isInstanceOf(EmbeddingException.class);
                assertThat(store.search(SearchRequest.builder("docker gcc").build()).get(0).memory().text())
                        .contains("gcc");
            }
        }
    }

    private static Set<Thread> searchThreads() {
        Set<Thread> threads = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("funes-search-")) {
                threads.add(t);
            }
        }
        return threads;
    }
}
