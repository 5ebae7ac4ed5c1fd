package dev.funes.store;

import dev.funes.Embedder;
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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Filtered dense searches done wide (the dense index searched unfiltered for more candidates,
 * the filter applied after; {@code SqliteMemoryStore.wideCandidates}) give the hits of the
 * filtered search, falling back to it when too few candidates pass. Real SQLite, the real model,
 * the real Claude Code fixture logs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WideFilterTest {

    private static final List<String> QUERIES = List.of(
            "why did CI check the wrong branch",
            "episodic memory search",
            "how are embeddings stored",
            "sqlite database",
            "tests failing",
            "git commit message",
            "decided to use a different approach",
            "the convention for naming tests",
            "what");

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

    /** Filters from every memory's project to the rarest kinds: most pass some, few pass others. */
    private static List<SearchRequest> requests(MemoryStore store) {
        Set<String> projects = new LinkedHashSet<>();
        store.recentSessions(100).forEach(s -> projects.add(s.project()));
        List<SearchRequest> requests = new ArrayList<>();
        for (String q : QUERIES) {
            for (Retrieval retrieval : List.of(Retrieval.DENSE, Retrieval.HYBRID)) {
                for (int limit : List.of(1, 10)) { // 10 and 50 candidates a list
                    List<SearchRequest.Builder> builders = new ArrayList<>();
                    builders.add(SearchRequest.builder(q).agent("claude-code"));
                    builders.add(SearchRequest.builder(q).kinds(MemoryKind.EXCHANGE));
                    builders.add(SearchRequest.builder(q).kinds(MemoryKind.DECISION, MemoryKind.CONVENTION));
                    builders.add(SearchRequest.builder(q).after(Instant.parse("2000-01-01T00:00:00Z")));
                    for (String project : projects) {
                        builders.add(SearchRequest.builder(q).project(project));
                    }
                    for (SearchRequest.Builder b : builders) {
                        requests.add(b.retrieval(retrieval).limit(limit).build());
                    }
                }
            }
        }
        return requests;
    }

    private static List<String> ids(List<SearchHit> hits) {
        return hits.stream().map(h -> h.memory().id()).toList();
    }

    @Test
    void wideFilteredSearchesGiveTheFilteredSearchesHits(@TempDir Path dir) {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        // 10 candidates: a wide search asks for 15 to 100 vectors of the store's ~150, so that
        // some searches find enough passing among them and others fall back.
        StoreOptions options = StoreOptions.builder().candidates(10).build();
        List<SearchRequest> requests;
        try (MemoryStore store = FunesStore.open(dir, embedder, options)) {
            Indexer.builder(store).passages(false).build().index(List.of(fixtures));
            requests = requests(store);
        }
        // Both opened after the index was sealed at the first close: the same dense index.
        List<List<SearchHit>> filtered = new ArrayList<>();
        try (SqliteMemoryStore store = SqliteMemoryStore.open(dir, embedder, options,
                SearchTuning.DEFAULT.wideFilterMinRows(Long.MAX_VALUE))) {
            for (SearchRequest r : requests) {
                filtered.add(store.search(r));
            }
            assertThat(store.dense().wideSearches()).containsExactly(0, 0, 0);
        }

        try (SqliteMemoryStore sqlite = SqliteMemoryStore.open(dir, embedder, options,
                SearchTuning.DEFAULT.wideFilterMinRows(0))) {
            MemoryStore store = sqlite;
            for (int i = 0; i < requests.size(); i++) {
                SearchRequest r = requests.get(i);
                List<SearchHit> hits = store.search(r);
                // The same memories in the same order; a graph search scores in float where the
                // exact scoring of a small filtered set is in double, hence the tolerance: a
                // similarity's last float digit, over the span of the first 10 candidates' (about 0.06).
                assertThat(ids(hits)).as("%s", r).isEqualTo(ids(filtered.get(i)));
                for (int h = 0; h < hits.size(); h++) {
                    assertThat(hits.get(h).score()).as("%s, hit %d", r, h)
                            .isCloseTo(filtered.get(i).get(h).score(), within(1e-5));
                }
                assertThat(hits).as("%s", r).allSatisfy(h -> assertThat(r.matches(h.memory())).isTrue());
            }
            long[] wide = sqlite.dense().wideSearches();
            assertThat(wide[0]).as("searches done wide").isGreaterThan(requests.size() / 4);
            assertThat(wide[1]).as("second, wider searches").isPositive().isLessThan(wide[0]);
            assertThat(wide[2]).as("fallbacks").isPositive().isLessThan(wide[0]);
        }
    }
}
