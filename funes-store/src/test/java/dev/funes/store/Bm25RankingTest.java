package dev.funes.store;

import dev.funes.Embedder;
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
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link Bm25Ranking}: FTS5's bm25 ranking computed in Java gives FTS5's rows, scores and order,
 * bit for bit, on real agent logs and after deletes and rewrites by this store or another
 * connection. Real SQLite (FTS5), the real model, the real Claude Code fixture logs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class Bm25RankingTest {

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

    /** Both rankings of one query in one read transaction. */
    private record Both(LexicalRetriever.Lexical java, List<Long> ftsRows, List<Double> ftsScores) {

        List<Long> javaRows() {
            List<Long> rows = new ArrayList<>();
            for (int i = 0; i < java.count(); i++) {
                rows.add(java.seqs()[i]);
            }
            return rows;
        }

        List<Double> javaScores() {
            List<Double> scores = new ArrayList<>();
            for (int i = 0; i < java.count(); i++) {
                scores.add(java.bm25()[i]);
            }
            return scores;
        }
    }

    private static Both both(SqliteMemoryStore store, List<String> terms, int k) {
        return bothFiltered(store, terms, k, SqlFilter.NONE);
    }

    /** Both rankings of one query under a filter, in one read transaction; java null when left to FTS5. */
    private static Both bothFiltered(SqliteMemoryStore store, List<String> terms, int k, SqlFilter filter) {
        return bothFiltered(store, terms, k, filter, false);
    }

    /**
     * As {@link #bothFiltered(SqliteMemoryStore, List, int, SqlFilter)}; with {@code passingKnown},
     * the ranking in Java is given the rows the filter passes, as a search that read them with
     * the filter's vectors does.
     */
    private static Both bothFiltered(SqliteMemoryStore store, List<String> terms, int k, SqlFilter filter,
                                     boolean passingKnown) {
        return store.database().read("rank both ways", c -> {
            TermCounts.Generation index = new TermCounts().sync(c);
            VectorIdSet passing = passingKnown ? DenseRetriever.readAllowed(c, filter).rows() : null;
            LexicalRetriever.Lexical java = store.lexical().bm25().rank(c, terms, index, k, filter, passing);
            List<Long> rows = new ArrayList<>();
            List<Double> scores = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(LexicalRetriever.lexicalSql(filter, false))) {
                ps.setString(1, FtsQuery.match(terms));
                ps.setInt(filter.bind(ps, 2), k);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        rows.add(rs.getLong(1));
                        scores.add(rs.getDouble(2));
                    }
                }
            }
            return new Both(java, rows, scores);
        });
    }

    private static void assertSameRanking(SqliteMemoryStore store, List<String> terms, int k) {
        Both both = both(store, terms, k);
        assertThat(both.java()).as("ranked in Java: %s", terms).isNotNull();
        assertSame(both, terms + ", k=" + k);
    }

    /** The same rows, and scores bit for bit (Double.equals compares the bits). */
    private static void assertSame(Both both, String what) {
        assertThat(both.javaRows()).as("rows of %s", what).isEqualTo(both.ftsRows());
        assertThat(both.javaScores()).as("scores of %s", what).isEqualTo(both.ftsScores());
    }

    @Test
    void rankingInJavaIsFts5sRankingBitForBitOnRealLogs(@TempDir Path dir) {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            List<String> words = sqlite.database().read("read the words", c -> {
                Set<String> all = new LinkedHashSet<>();
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT text FROM memories")) {
                    while (rs.next()) {
                        all.addAll(FtsQuery.terms(rs.getString(1)));
                    }
                }
                return new ArrayList<>(all);
            });
            assertThat(words).hasSizeGreaterThan(500);

            List<List<String>> queries = new ArrayList<>();
            Random random = new Random(42);
            for (int q = 0; q < 300; q++) {
                Set<String> terms = new LinkedHashSet<>();
                int n = 1 + random.nextInt(6);
                while (terms.size() < n) {
                    terms.add(words.get(random.nextInt(words.size())));
                }
                queries.add(new ArrayList<>(terms));
            }
            // Two terms with one token under the porter stemmer are two phrases; a stop word alone;
            // folded diacritics; identifier parts; digits.
            queries.add(List.of("test", "tests", "testing"));
            queries.add(List.of("the"));
            queries.add(List.of("café", "cafe", "naïve"));
            queries.add(FtsQuery.terms("parseHttpHeader snake_case_name"));
            queries.add(List.of("404", "2025", "0"));
            queries.add(List.of("zzzzunmatched"));

            int manyMatches = 0;
            for (List<String> terms : queries) {
                for (int k : new int[] {100, 7}) {
                    assertSameRanking(sqlite, terms, k);
                }
                if (both(sqlite, terms, 1000).ftsRows().size() > 7) {
                    manyMatches++;
                }
            }
            assertThat(manyMatches).as("queries with more matches than the 7 kept").isGreaterThan(100);

            // Under filters: the memories' own projects, sessions and kinds, and a date none passes.
            List<SqlFilter> filters = new ArrayList<>();
            for (String column : List.of("project", "session")) {
                for (String value : sqlite.database().read("read " + column + "s", c -> {
                    List<String> values = new ArrayList<>();
                    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + column
                            + ", count(*) n FROM memories WHERE " + column + " IS NOT NULL GROUP BY 1 ORDER BY n DESC")) {
                        while (rs.next()) {
                            values.add(rs.getString(1));
                        }
                    }
                    return values;
                })) {
                    SearchRequest.Builder b = SearchRequest.builder("x");
                    filters.add(SqlFilter.of(column.equals("project") ? b.project(value).build()
                            : b.session(value).build()));
                }
            }
            filters.add(SqlFilter.of(SearchRequest.builder("x").kinds(MemoryKind.DECISION).build()));
            filters.add(SqlFilter.of(SearchRequest.builder("x")
                    .after(java.time.Instant.parse("2100-01-01T00:00:00Z")).build()));
            int inJava = 0;
            int leftToFts5 = 0;
            for (List<String> terms : queries.subList(0, 60)) {
                for (SqlFilter filter : filters) {
                    for (int k : new int[] {100, 7}) {
                        Both known = bothFiltered(sqlite, terms, k, filter, true);
                        assertThat(known.java()).as("ranked in Java among the rows passing %s", filter).isNotNull();
                        assertSame(known, terms + ", k=" + k + ", " + filter + ", passing rows known");
                        Both both = bothFiltered(sqlite, terms, k, filter);
                        if (both.java() == null) {
                            leftToFts5++;
                            continue;
                        }
                        inJava++;
                        assertSame(both, terms + ", k=" + k + ", " + filter);
                    }
                }
            }
            assertThat(inJava).as("filtered rankings computed in Java (%d left to FTS5)", leftToFts5)
                    .isGreaterThan(filters.size() * 20);
        }
    }

    @Test
    void aFilterThatFewOfTheMatchesPassIsLeftToFts5(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            List<Memory> notes = new ArrayList<>();
            for (int i = 0; i < 1100; i++) {
                notes.add(Memory.builder(MemoryKind.NOTE, "me", "quokka note " + i + " " + "words ".repeat(i % 9))
                        .project(i % 50 == 0 ? "/p/rare" : i % 22 == 0 ? "/p/few" : "/p/many").build());
            }
            store.addAll(notes);
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            List<String> terms = List.of("quokka", "note");
            // Most pass: ranked in Java.
            Both many = bothFiltered(sqlite, terms, 100,
                    SqlFilter.of(SearchRequest.builder("x").project("/p/many").build()));
            assertThat(many.java()).as("most matches pass: ranked in Java").isNotNull();
            assertThat(many.ftsRows()).hasSize(100);
            assertSame(many, "/p/many");
            // About 1 in 22 passes: the sample says finding 100 would take checking more than a quarter
            // of the 1,100 matches, so FTS5 ranks; with 7 wanted, Java does.
            SqlFilter few = SqlFilter.of(SearchRequest.builder("x").project("/p/few").build());
            assertThat(bothFiltered(sqlite, terms, 100, few).java()).isNull();
            Both sevenOfFew = bothFiltered(sqlite, terms, 7, few);
            assertThat(sevenOfFew.java()).isNotNull();
            assertSame(sevenOfFew, "/p/few, k=7");
            // 1 in 50: 7 of them would take checking over a quarter of the matches (the sample
            // says), though fewer than half (where checking the best matches would give up).
            SqlFilter rare = SqlFilter.of(SearchRequest.builder("x").project("/p/rare").build());
            Both sevenOfRare = bothFiltered(sqlite, terms, 7, rare);
            assertThat(sevenOfRare.ftsRows()).hasSize(7);
            assertThat(sevenOfRare.java()).isNull();
            // None passes.
            Both none = bothFiltered(sqlite, terms, 7,
                    SqlFilter.of(SearchRequest.builder("x").project("/p/elsewhere").build()));
            assertThat(none.ftsRows()).isEmpty();
            assertThat(none.java()).isNull();
            assertThat(store.search(SearchRequest.builder("quokka note").project("/p/elsewhere").build())).isEmpty();
            assertThat(store.search(SearchRequest.builder("quokka note").project("/p/few").limit(20).build()))
                    .hasSize(20).allSatisfy(h -> assertThat(h.memory().project()).isEqualTo("/p/few"));
        }
    }

    @Test
    void theFilterCheckFindsEachRowByItsPrimaryKey(@TempDir Path dir) throws SQLException {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE))) {
            c.createStatement().execute("ANALYZE"); // statistics that make an index of the memories look cheap
            for (SearchRequest r : List.of(SearchRequest.builder("x").agent("codex").build(),
                    SearchRequest.builder("x").session("b1").kinds(MemoryKind.EXCHANGE).build(),
                    SearchRequest.builder("x").project(TestCorpus.BETA).agent("claude-code").build())) {
                SqlFilter filter = SqlFilter.of(r);
                List<String> plan = new ArrayList<>();
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("EXPLAIN QUERY PLAN "
                        + Bm25Ranking.filterSql(filter).replaceFirst("\\?", "'[1,2,3]'").replace("?", "NULL"))) {
                    while (rs.next()) {
                        plan.add(rs.getString(4));
                    }
                }
                assertThat(plan).as(filter.toString()).hasSize(2);
                assertThat(plan.get(0)).as(filter + ": " + plan).startsWith("SCAN j VIRTUAL TABLE");
                assertThat(plan.get(1)).as(filter + ": " + plan).isEqualTo("SEARCH m USING INTEGER PRIMARY KEY (rowid=?)");
            }
        }
    }

    @Test
    void searchesGiveTheSameHitsRankedInJavaOrByFts5(@TempDir Path dir) {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        List<SearchRequest> requests = new ArrayList<>();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
            String session = store.recentSessions(1).get(0).session();
            for (String q : List.of("why did CI check the wrong branch", "sqlite database", "tests failing",
                    "the user asked to run the tests again and fix the failing build", "what")) {
                requests.add(SearchRequest.builder(q).limit(10).build());
                requests.add(SearchRequest.builder(q).retrieval(Retrieval.LEXICAL).limit(30).build());
                requests.add(SearchRequest.builder(q).session(session).limit(10).build());
                requests.add(SearchRequest.builder(q).retrieval(Retrieval.LEXICAL).kinds(MemoryKind.EXCHANGE)
                        .limit(10).build());
            }
        }
        // Both opened after the index was sealed at the first close: the same dense index.
        List<List<SearchHit>> byFts5 = new ArrayList<>();
        try (SqliteMemoryStore store = open(dir, SearchTuning.DEFAULT.rankInJava(false))) {
            for (SearchRequest r : requests) {
                byFts5.add(store.search(r));
            }
            assertThat(store.lexical().javaRankings()).isZero();
        }
        try (SqliteMemoryStore store = open(dir, SearchTuning.DEFAULT.rankInJava(true))) {
            for (int i = 0; i < requests.size(); i++) {
                assertThat(store.search(requests.get(i))).as(requests.get(i).query()).isEqualTo(byFts5.get(i));
            }
            assertThat(store.lexical().javaRankings()).isGreaterThan(requests.size() / 2);
        }
    }

    @Test
    void keptTokenCountsFollowDeletesAndRewritesByThisStoreOrAnotherConnection(@TempDir Path dir)
            throws SQLException {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
            Memory last = Memory.builder(MemoryKind.NOTE, "me", "quokka build image").build();
            store.addAll(List.of(Memory.builder(MemoryKind.NOTE, "me", "a quokka note about the build").build(), last));
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            List<String> terms = List.of("quokka", "build", "image");
            long lastSeq = seq(sqlite, last.id());

            assertSameRanking(sqlite, terms, 100);
            long lookups = sqlite.lexical().bm25().lengths().lookups();
            assertThat(lookups).isPositive();
            assertSameRanking(sqlite, terms, 100);
            assertThat(sqlite.lexical().bm25().lengths().lookups()).as("counts kept between searches").isEqualTo(lookups);

            // The newest memory goes; SQLite gives its row number to the next one, far longer.
            assertThat(store.delete(last.id())).isTrue();
            Memory longer = Memory.builder(MemoryKind.NOTE, "me",
                    "quokka " + "and a long note with many more words in it ".repeat(20)).build();
            store.addAll(List.of(longer));
            assertThat(seq(sqlite, longer.id())).as("the row number used again").isEqualTo(lastSeq);
            assertThat(rewrites(dir)).isEqualTo(1);
            assertSameRanking(sqlite, terms, 100);

            // Another connection (another process) rewrites the row's identifier terms.
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:"
                    + dir.resolve(SqliteMemoryStore.DATABASE_FILE)); PreparedStatement ps = other.prepareStatement(
                    "UPDATE memories SET terms = 'quokka quokka image image image' WHERE seq = ?")) {
                ps.setLong(1, lastSeq);
                assertThat(ps.executeUpdate()).isEqualTo(1);
            }
            assertThat(rewrites(dir)).isEqualTo(2);
            assertSameRanking(sqlite, terms, 100);
        }
    }

    @Test
    void rankingsStayFts5sWhileAnotherThreadDeletesAndAddsMemories(@TempDir Path dir) throws Exception {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            List<String> terms = List.of("quokka", "build", "image", "cache");
            java.util.concurrent.atomic.AtomicReference<Throwable> failed = new java.util.concurrent.atomic.AtomicReference<>();
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < 40; i++) {
                        // Each note is the newest row: deleting it gives its row number to the next one.
                        Memory note = Memory.builder(MemoryKind.NOTE, "me",
                                "quokka build " + "image cache words ".repeat(1 + i % 7) + i).build();
                        store.addAll(List.of(note));
                        if (i % 2 == 0) {
                            store.delete(note.id());
                        }
                    }
                } catch (Throwable t) {
                    failed.set(t);
                }
            });
            writer.start();
            int compared = 0;
            while (writer.isAlive() || compared < 20) {
                assertSameRanking(sqlite, terms, 100);
                compared++;
            }
            writer.join();
            assertThat(failed.get()).isNull();
            assertThat(rewrites(dir)).isEqualTo(20);
            assertSameRanking(sqlite, terms, 100);
        }
    }

    @Test
    void aSearchMissingManyTokenCountsLoadsThemAllOnAnotherThread(@TempDir Path dir) throws InterruptedException {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
        }
        try (SqliteMemoryStore sqlite = open(dir, SearchTuning.DEFAULT.loadAfterMisses(Integer.MAX_VALUE))) {
            assertSameRanking(sqlite, List.of("docker"), 100);
            assertThat(sqlite.lexical().bm25().lengths().loads()).as("fewer misses than asked for: no load").isZero();
        }

        try (SqliteMemoryStore sqlite = open(dir, SearchTuning.DEFAULT.loadAfterMisses(1))) {
            DocLengths lengths = sqlite.lexical().bm25().lengths();
            assertSameRanking(sqlite, List.of("branch"), 100);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (lengths.loads() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(lengths.loads()).isEqualTo(1);
            long lookups = lengths.lookups();
            List<String> others = List.of("cache", "sessions", "migration", "websocket", "clock", "tls", "python");
            assertSameRanking(sqlite, others, 100);
            assertThat(lengths.lookups()).as("every count from the load").isEqualTo(lookups);
            assertThat(both(sqlite, others, 100).ftsRows()).hasSizeGreaterThan(5);
            assertThat(lengths.loads()).as("one load per cache").isEqualTo(1);
        }
    }

    @Test
    void aTermThatIsNotOneTokenIsLeftToFts5(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            Bm25Ranking ranking = sqlite.lexical().bm25();
            assertThat(token(sqlite, "running")).isEqualTo("run");
            assertThat(token(sqlite, "Café")).isEqualTo("cafe");
            assertThat(token(sqlite, "two words")).isEmpty();
            assertThat(token(sqlite, "--")).isEmpty();
            assertThat(both(sqlite, List.of("docker", "two words"), 10).java()).isNull();
        }
    }

    private static String token(SqliteMemoryStore store, String term) {
        return store.database().read("tokenize", c -> store.lexical().bm25().token(c, term));
    }

    private static long seq(SqliteMemoryStore store, String id) {
        return store.database().read("read a row number", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT seq FROM memories WHERE id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    return rs.getLong(1);
                }
            }
        });
    }

    private static long rewrites(Path dir) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT n FROM fts_rewrites")) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        }
    }
}
