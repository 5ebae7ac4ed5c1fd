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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The postings budget of the full-text step ({@link StoreOptions#lexicalBudget()}): under it a
 * search is what it is without a budget; over it the most frequent terms, and only those, leave the
 * full-text query. Real SQLite (FTS5), the real model and JVector, the real Claude Code fixture logs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostingsBudgetTest {

    private static final List<String> QUERIES = List.of(
            "why did CI check the wrong branch",
            "episodic memory search",
            "how are embeddings stored",
            "sqlite database",
            "tests failing",
            "git commit message",
            "the user asked to run the tests again and fix the failing build",
            "parseHttpHeader snake_case_name");

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

    private static List<SearchRequest> requests() {
        List<SearchRequest> requests = new ArrayList<>();
        for (String q : QUERIES) {
            requests.add(SearchRequest.builder(q).limit(20).build());
            requests.add(SearchRequest.builder(q).retrieval(Retrieval.LEXICAL).limit(50).build());
        }
        return requests;
    }

    private static List<List<SearchHit>> searchAll(MemoryStore store) {
        List<List<SearchHit>> all = new ArrayList<>();
        for (SearchRequest r : requests()) {
            all.add(store.search(r));
        }
        return all;
    }

    /** Each term's document frequency, counted without a cap, by this test's own connection. */
    private static Map<String, Long> documentFrequencies(Path dir, List<String> terms) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?")) {
            for (String t : terms) {
                ps.setString(1, '"' + t + '"');
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    counts.put(t, rs.getLong(1));
                }
            }
        }
        return counts;
    }

    /** The memories ({@code seq}) that match any of the terms. */
    private static Set<String> matchingIds(Path dir, List<String> terms) throws SQLException {
        Set<String> ids = new HashSet<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             PreparedStatement ps = c.prepareStatement("SELECT m.id FROM memories_fts JOIN memories m"
                     + " ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ?")) {
            ps.setString(1, FtsQuery.match(terms));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        }
        return ids;
    }

    @Test
    void underTheBudgetSearchesAreThoseWithoutABudget(@TempDir Path dir) {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        StoreOptions none = StoreOptions.builder().lexicalBudget(0).build();
        try (MemoryStore store = FunesStore.open(dir, embedder, none)) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
        }
        // Reopened, so that both compared stores search the same sealed dense index.
        List<List<SearchHit>> unbounded;
        try (MemoryStore store = FunesStore.open(dir, embedder, none)) {
            unbounded = searchAll(store);
        }
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            for (String q : QUERIES) {
                PostingsBudget.Plan plan = sqlite.lexical().plan(q);
                assertThat(plan.dropped()).as(q).isEmpty();
                assertThat(plan.kept()).as(q).isEqualTo(FtsQuery.terms(q));
                assertThat(plan.counts()).as(q).isNotEmpty();
            }
            assertThat(searchAll(store)).isEqualTo(unbounded);
        }
    }

    @Test
    void overTheBudgetTheMostFrequentTermsLeaveTheQuery(@TempDir Path dir) throws SQLException {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
        }
        String query = "the user asked to run the tests again and fix the failing build";
        List<String> terms = FtsQuery.terms(query);
        Map<String, Long> df = documentFrequencies(dir, terms);
        List<String> rarestFirst = new ArrayList<>(terms);
        rarestFirst.sort(Comparator.comparingLong(df::get));
        assertThat(df.get(rarestFirst.get(0))).as("a term that occurs " + df).isPositive();
        assertThat(df.get(rarestFirst.get(0))).as("terms of different frequencies " + df)
                .isLessThan(df.get(rarestFirst.get(rarestFirst.size() - 1)));
        // A budget that the two rarest terms fit exactly, but not the third.
        long two = df.get(rarestFirst.get(0)) + df.get(rarestFirst.get(1));
        assertThat(two + df.get(rarestFirst.get(2))).isGreaterThan(two);
        List<String> kept = terms.stream().filter(t -> t.equals(rarestFirst.get(0)) || t.equals(rarestFirst.get(1)))
                .toList();

        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().lexicalBudget(two).build())) {
            PostingsBudget.Plan plan = ((SqliteMemoryStore) store).lexical().plan(query);
            assertThat(plan.kept()).isEqualTo(kept);
            assertThat(plan.dropped()).containsExactlyInAnyOrderElementsOf(rarestFirst.subList(2, rarestFirst.size()));
            for (int i = 0; i < terms.size(); i++) {
                // Counts stop at the budget + 1: beyond it a term is dropped whatever its count.
                assertThat(plan.counts()[i]).as(terms.get(i)).isEqualTo(Math.min(df.get(terms.get(i)), two + 1));
            }

            // The full-text candidates are exactly the memories with a kept term.
            Set<String> expected = matchingIds(dir, kept);
            assertThat(expected.size()).as("few enough matches to see them all").isBetween(1, 200);
            List<SearchHit> lexical = store.search(SearchRequest.builder(query).retrieval(Retrieval.LEXICAL)
                    .limit(200).build());
            Set<String> found = new HashSet<>();
            lexical.forEach(h -> found.add(h.memory().id()));
            assertThat(found).isEqualTo(expected);
            assertThat(matchingIds(dir, terms)).as("what the whole query matches").hasSizeGreaterThan(expected.size());
        }
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().lexicalBudget(1).build())) {
            // Every term is past a budget of one memory: the rarest stays alone.
            PostingsBudget.Plan plan = ((SqliteMemoryStore) store).lexical().plan(query);
            assertThat(plan.kept()).containsExactly(rarestFirst.get(0));
            assertThat(plan.dropped()).hasSize(terms.size() - 1);
        }
    }

    @Test
    void countsAreKeptUntilTheDatabaseChangesInThisProcessOrAnother(@TempDir Path dir) throws SQLException {
        String query = "docker image build failed gcc quokka";
        List<String> terms = FtsQuery.terms(query);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
            SqliteMemoryStore sqlite = (SqliteMemoryStore) store;
            PostingsBudget.Plan first = sqlite.lexical().plan(query);
            assertThat(first.counts()).hasSize(terms.size());
            assertThat(first.counts()[terms.indexOf("quokka")]).isZero();

            long hits = sqlite.lexical().termCountHits();
            PostingsBudget.Plan again = sqlite.lexical().plan(query);
            assertThat(sqlite.lexical().termCountHits() - hits).as("counts answered from the cache").isEqualTo(terms.size());
            assertThat(again.kept()).isEqualTo(first.kept());
            assertThat(again.counts()).isEqualTo(first.counts());
            // A search through every read connection fills and then uses the same cache.
            for (int i = 0; i < 8; i++) {
                store.search(SearchRequest.builder(query).retrieval(Retrieval.LEXICAL).build());
            }

            // A write by this store: the new word's count is seen at once.
            List<Memory> quokkas = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                quokkas.add(Memory.builder(MemoryKind.NOTE, "me", "note " + i + ": the quokka build image").build());
            }
            store.addAll(quokkas);
            long[] afterWrite = sqlite.lexical().plan(query).counts();
            assertThat(afterWrite[terms.indexOf("quokka")]).isEqualTo(3);
            assertThat(afterWrite[terms.indexOf("image")]).isEqualTo(first.counts()[terms.indexOf("image")] + 3);
            assertThat(documentFrequencies(dir, List.of("quokka"))).containsEntry("quokka", 3L);

            // A write by another connection (another process): seen at the next search too.
            try (Connection other = DriverManager.getConnection("jdbc:sqlite:"
                    + dir.resolve(SqliteMemoryStore.DATABASE_FILE)); PreparedStatement ps = other.prepareStatement(
                    "DELETE FROM memories WHERE seq IN (SELECT rowid FROM memories_fts WHERE memories_fts MATCH"
                            + " '\"quokka\"' LIMIT 2)")) {
                assertThat(ps.executeUpdate()).isEqualTo(2);
            }
            long[] afterOther = sqlite.lexical().plan(query).counts();
            assertThat(afterOther[terms.indexOf("quokka")]).isEqualTo(1);
            assertThat(afterOther[terms.indexOf("image")]).isEqualTo(first.counts()[terms.indexOf("image")] + 1);
        }
    }

    @Test
    void aSingleTermIsNeverCountedNorDropped(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().lexicalBudget(1).build())) {
            store.addAll(TestCorpus.create().all());
            PostingsBudget.Plan plan = ((SqliteMemoryStore) store).lexical().plan("the migration");
            assertThat(plan.kept()).containsExactly("migration");
            assertThat(plan.counts()).isEmpty();
            assertThat(store.search(SearchRequest.builder("migration").retrieval(Retrieval.LEXICAL).build()))
                    .isNotEmpty();
        }
    }

    @Test
    void theBudgetIsAnOptionWithADefault() {
        assertThat(StoreOptions.defaults().lexicalBudget()).isEqualTo(StoreOptions.DEFAULT_LEXICAL_BUDGET);
        assertThat(StoreOptions.builder().build().lexicalBudget()).isEqualTo(StoreOptions.DEFAULT_LEXICAL_BUDGET);
        assertThat(StoreOptions.builder().lexicalBudget(0).build().lexicalBudget()).isZero();
        assertThatThrownBy(() -> StoreOptions.builder().lexicalBudget(-1).build())
                .hasMessageContaining("lexicalBudget");
    }
}
