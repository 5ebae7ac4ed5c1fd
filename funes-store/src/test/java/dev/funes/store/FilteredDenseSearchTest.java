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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Filtered dense searches on a real store of 12,000 memories with real embeddings (texts of the
 * shared fixtures' notes embedded by the bundled model, and mixtures of three of them, much as
 * the benchmark corpus makes its variations): every hit passes the filter, and the best memory passing it is found,
 * whichever way the filter is applied (exact among few, a scan of the PQ codes and the memtable
 * among more, a wide unfiltered search); the filters read their vector ids from an index alone
 * (schema version 9), also in a store upgraded from version 8.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FilteredDenseSearchTest {

    private static final int SEGMENT = 11_000;
    /** Dense ranks alone (no rerank by the query's terms), so that the hits are in cosine order. */
    private static final StoreOptions OPTIONS = StoreOptions.builder().freshLimit(5_000).rerank(RerankOptions.NONE)
            .build();
    private static final int MEMTABLE = 1_000;
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");
    private static final List<String> QUERIES = List.of(
            "where do these session logs come from",
            "which licence does the file have",
            "the workflow checked out the wrong branch",
            "a parser that broke on partial records",
            "docker image build failed without a compiler",
            "what is the session about");

    private Embedder embedder;
    private Path fixtures;
    private final Map<String, float[]> vectors = new HashMap<>();
    private List<Memory> rest;
    private List<float[]> restVectors;

    private Path built;
    private final List<Memory> all = new ArrayList<>();

    @BeforeAll
    void setUp(@TempDir Path base) throws IOException {
        fixtures = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures");
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        if (Files.isDirectory(fixtures)) {
            built = base.resolve("built");
            build(built, OPTIONS);
        }
    }

    /** A copy of the store {@link #build} wrote, to change. */
    private Path copy(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(built)) {
            for (Path from : files.toList()) {
                Path to = dir.resolve(built.relativize(from).toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else if (!from.getFileName().toString().equals("write.lock")) {
                    Files.copy(from, to);
                }
            }
        }
        return dir;
    }

    @AfterAll
    void tearDown() {
        embedder.close();
    }

    /** Memory {@code i}: its filter columns spread so that filters pass from 30 to 3,000 of them. */
    private static Memory memory(int i, String text) {
        String agent = i % 400 == 3 ? "rare" : i % 4 == 1 ? "some" : "main";
        MemoryKind kind = i % 7 == 0 ? MemoryKind.DECISION : MemoryKind.EXCHANGE;
        Instant at = START.plusSeconds(60L * i);
        return Memory.builder(kind, agent, text)
                .id(String.format(Locale.ROOT, "m-%05d", i))
                .project(i % 50 == 0 ? "small" : "main")
                .session(String.format(Locale.ROOT, "s-%03d", i / 100))
                .time(at, at)
                .build();
    }

    private static float[] normalize(float[] v) {
        double n = 0;
        for (float x : v) {
            n += x * x;
        }
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) (v[i] / Math.sqrt(n));
        }
        return out;
    }

    private static double dot(float[] a, float[] b) {
        double d = 0;
        for (int i = 0; i < a.length; i++) {
            d += a[i] * b[i];
        }
        return d;
    }

    /**
     * A store of the real texts' vectors and mixtures {@code normalize(a + 0.5 b + 0.25 c)}
     * of seeded triples of them: the first {@value #SEGMENT} written in one write (a segment with PQ codes),
     * the rest kept for {@link #addRest}.
     */
    private void build(Path dir, StoreOptions options) throws IOException {
        List<String> texts = new ArrayList<>();
        for (String file : List.of("SOURCES.md", "README.md")) {
            try (Stream<String> lines = Files.lines(fixtures.resolve(file))) {
                lines.map(String::strip).filter(l -> l.length() >= 40).forEach(texts::add);
            }
        }
        TestCorpus.create().all().forEach(m -> texts.add(m.text()));
        List<float[]> real = embedder.embedDocuments(texts);
        Random random = new Random(42);
        List<Memory> memories = new ArrayList<>();
        List<float[]> vs = new ArrayList<>();
        for (int i = 0; i < SEGMENT + MEMTABLE; i++) {
            int a = i < real.size() ? i : random.nextInt(real.size());
            int b = random.nextInt(real.size());
            int c = random.nextInt(real.size());
            float[] v = real.get(a).clone();
            String text = texts.get(a);
            if (i >= real.size()) {
                for (int d = 0; d < v.length; d++) {
                    v[d] += 0.5f * real.get(b)[d] + 0.25f * real.get(c)[d];
                }
                text = text + " / " + texts.get(b) + " #" + i;
            }
            Memory m = memory(i, text);
            memories.add(m);
            all.add(m);
            vs.add(normalize(v));
            vectors.put(m.id(), vs.get(vs.size() - 1));
        }
        rest = memories.subList(SEGMENT, memories.size());
        restVectors = vs.subList(SEGMENT, vs.size());
        try (MemoryStore store = FunesStore.open(dir, embedder, options)) {
            FunesStore.vectors(store).put(memories.subList(0, SEGMENT), vs.subList(0, SEGMENT));
        }
    }

    /** The memories after the first {@value #SEGMENT}, in writes of 250: they stay in the memtable while the store is open. */
    private void addRest(MemoryStore store) {
        for (int from = 0; from < rest.size(); from += 250) {
            FunesStore.vectors(store).put(rest.subList(from, from + 250), restVectors.subList(from, from + 250));
        }
    }

    private static List<SearchRequest.Builder> filters(String q) {
        return List.of(
                SearchRequest.builder(q).agent("rare"), // 30: scored exactly
                SearchRequest.builder(q).agent("some"), // 3,000: a scan, or a wide search
                SearchRequest.builder(q).project("small"), // 240
                SearchRequest.builder(q).kinds(MemoryKind.DECISION), // 1,715
                SearchRequest.builder(q).after(START.plusSeconds(60L * 4_000)).before(START.plusSeconds(60L * 6_500)),
                SearchRequest.builder(q).after(START.plusSeconds(60L * 10_500)), // half in the memtable
                SearchRequest.builder(q).agent("some").kinds(MemoryKind.DECISION), // 429
                SearchRequest.builder(q).session("s-107"), // 100, all in the memtable
                SearchRequest.builder(q).agent("main")); // 69%: a wide search
    }

    /**
     * Every hit of each filtered dense search passes its filter, the first is the best memory
     * passing it (by exact cosine over every memory, computed here), and a filter
     * that 2,000 or fewer pass gives the exact top {@code limit}.
     */
    private void assertFilteredSearches(MemoryStore store) {
        for (String q : QUERIES) {
            float[] query = embedder.embedQuery(q);
            for (SearchRequest.Builder b : filters(q)) {
                SearchRequest r = b.retrieval(Retrieval.DENSE).limit(10).build();
                List<SearchHit> hits = store.search(r);
                // Every memory passing, by exact cosine, best first.
                List<Double> truth = all.stream().filter(r::matches).map(m -> dot(query, vectors.get(m.id())))
                        .sorted(java.util.Comparator.reverseOrder()).toList();
                assertThat(hits).as("%s", r).hasSize(Math.min(10, truth.size()));
                assertThat(hits).as("%s", r).allSatisfy(h -> assertThat(r.matches(h.memory())).isTrue());
                assertThat(dot(query, vectors.get(hits.get(0).memory().id()))).as("best of %s", r)
                        .isCloseTo(truth.get(0), within(1e-5));
                if (truth.size() <= 2_000) {
                    for (int i = 0; i < hits.size(); i++) {
                        assertThat(dot(query, vectors.get(hits.get(i).memory().id()))).as("hit %d of %s", i, r)
                                .isCloseTo(truth.get(i), within(1e-5));
                    }
                }
            }
        }
    }

    @Test
    void filteredSearchesReturnOnlyPassingMemoriesAndTheBestOfThem(@TempDir Path tmp) throws Exception {
        assumeTrue(built != null, "skipped: the shared fixtures not found at " + fixtures.toAbsolutePath());
        StoreOptions options = OPTIONS;
        Path dir = copy(tmp);
        // Every filter through the vectors it passes: exact among few, a scan among more.
        try (SqliteMemoryStore store = SqliteMemoryStore.open(dir, embedder, options,
                SearchTuning.DEFAULT.wideFilterMinRows(Long.MAX_VALUE))) {
            addRest(store);
            // (a few mixtures may repeat a vector: stored once)
            assertThat(store.dense().index().index().stats().segments()).as("%s", store.dense().index().index().stats()).singleElement()
                    .satisfies(s -> assertThat(s.compressed()).isTrue());
            assertThat(store.dense().index().index().memtableVectors()).isGreaterThan(MEMTABLE * 9 / 10);
            assertFilteredSearches(store);
            assertThat(store.dense().wideSearches()).containsExactly(0, 0, 0);
        }
        // Filters passed by 15% or more of the store, as a wide unfiltered search (the memtable
        // was sealed into a segment of its own, without PQ codes, at the close).
        try (SqliteMemoryStore store = SqliteMemoryStore.open(dir, embedder, options, SearchTuning.DEFAULT)) {
            assertFilteredSearches(store);
            assertThat(store.dense().wideSearches()[0]).isPositive();
        }
    }

    private static List<String> plan(Connection c, SqlFilter filter) throws SQLException {
        List<String> plan = new ArrayList<>();
        String sql = "EXPLAIN QUERY PLAN SELECT group_concat(m.vector_id) FROM memories m WHERE 1 = 1" + filter.sql();
        try (var ps = c.prepareStatement(sql)) {
            filter.bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    plan.add(rs.getString(4));
                }
            }
        }
        return plan;
    }

    private static int version(Path dir) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            return rs.getInt(1);
        }
    }

    @Test
    void aVersion8StoreIsUpgradedAndEachFilterReadsItsVectorIdsFromAnIndexAlone(@TempDir Path tmp) throws Exception {
        assumeTrue(built != null, "skipped: the shared fixtures not found at " + fixtures.toAbsolutePath());
        StoreOptions options = OPTIONS;
        Path dir = copy(tmp);
        try (MemoryStore store = FunesStore.open(dir, embedder, options)) {
            addRest(store);
        }
        OldStores.downgradeToVersion8(dir);
        assertThat(version(dir)).isEqualTo(8);
        List<SqlFilter> filters = new ArrayList<>();
        for (SearchRequest.Builder b : filters("q")) {
            SearchRequest r = b.build();
            if (r.agent() == null || r.kinds().isEmpty()) { // one column each: its own index
                filters.add(SqlFilter.of(r));
            }
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE))) {
            // Before: the kind filter reads every row, the others one row per memory passing.
            assertThat(plan(c, SqlFilter.of(SearchRequest.builder("q").kinds(MemoryKind.DECISION).build())))
                    .noneMatch(step -> step.contains("INDEX"));
            assertThat(plan(c, filters.get(0))).noneMatch(step -> step.contains("COVERING"));
        }
        try (MemoryStore store = FunesStore.open(dir, embedder, options)) {
            assertThat(FunesStore.openReport(store).schemaVersionFound()).isEqualTo(8);
            assertThat(FunesStore.openReport(store).schemaVersion()).isEqualTo(Schema.CURRENT_VERSION);
            assertFilteredSearches(store);
        }
        assertThat(version(dir)).isEqualTo(Schema.CURRENT_VERSION);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE))) {
            for (SqlFilter filter : filters) {
                assertThat(plan(c, filter)).as("%s", filter).singleElement()
                        .satisfies(step -> assertThat(step).contains("USING COVERING INDEX"));
            }
        }
    }
}
