package dev.funes.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The vectors a filter passes, kept per read connection: a filtered dense search reads them from
 * SQLite once and takes them from what it kept while the database is unchanged, and every search
 * after an add or a forget, by the same store or by another store of the directory (as another
 * process would), returns exactly the memories passing the filter at that moment. Filtered
 * searches here always read the allowed set (no wide unfiltered search first). One read
 * connection, so that every search goes through the connection that kept the sets; then the
 * default.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AllowedSetsTest {

    private static final SearchTuning ALWAYS_ALLOWED_SET = SearchTuning.DEFAULT.wideFilterMinRows(Long.MAX_VALUE);

    private final Embedder embedder = TestModel.shared();

    private static Memory memory(String agent, String text) {
        return Memory.builder(MemoryKind.EXCHANGE, agent, text).session("s-" + agent).build();
    }

    private static SearchRequest bobs(String query) {
        return SearchRequest.builder(query).agent("bob").retrieval(Retrieval.DENSE).limit(10).build();
    }

    private static List<String> ids(List<SearchHit> hits) {
        return hits.stream().map(h -> h.memory().id()).toList();
    }

    private static Set<String> texts(List<SearchHit> hits) {
        return hits.stream().map(h -> h.memory().text()).collect(Collectors.toSet());
    }

    @Test
    void keptWithOneReadConnection(@TempDir Path dir) {
        setsFollowEveryChange(dir, StoreOptions.builder().readConnections(1).build(), true);
    }

    @Test
    void keptWithTheDefaultReadConnections(@TempDir Path dir) {
        setsFollowEveryChange(dir, StoreOptions.defaults(), false);
    }

    /**
     * A filter many memories pass takes the wide unfiltered search, sized by a sample of the rows:
     * the sample is read once per filter while the database is unchanged, and again after a write.
     */
    @Test
    void theSharePassingAFilterIsSampledOnceUntilTheDatabaseChanges(@TempDir Path dir) {
        SearchTuning wide = SearchTuning.DEFAULT.wideFilterMinRows(1);
        try (SqliteMemoryStore store = SqliteMemoryStore.open(dir, embedder, StoreOptions.builder().readConnections(1).build(),
                wide)) {
            List<Memory> memories = new java.util.ArrayList<>();
            for (int i = 0; i < 300; i++) {
                memories.add(memory(i % 2 == 0 ? "bob" : "alice", "note " + i + " on the parser and the build"));
            }
            store.addAll(memories);
            SearchRequest request = bobs("the parser");
            List<SearchHit> first = store.search(request);
            assertThat(first).hasSize(10).allSatisfy(h -> assertThat(h.memory().agent()).isEqualTo("bob"));
            long samples = store.dense().sampleReads();
            assertThat(samples).as("the first search samples the rows").isEqualTo(1);
            long wideSearches = store.dense().wideSearches()[0];
            assertThat(wideSearches).as("half the rows pass: a wide search").isPositive();
            for (int i = 0; i < 3; i++) {
                assertThat(ids(store.search(request))).as("search %d, nothing changed", i).isEqualTo(ids(first));
            }
            assertThat(store.dense().sampleReads()).as("taken from the kept sample").isEqualTo(samples);
            assertThat(store.dense().wideSearches()[0]).isEqualTo(wideSearches + 3);

            String pod = "the kubernetes pod restarted in a crash loop after the upgrade";
            store.add(memory("bob", pod));
            assertThat(texts(store.search(bobs("a pod in a crash loop on kubernetes")))).contains(pod);
            assertThat(store.dense().sampleReads()).as("sampled again after a write").isEqualTo(samples + 1);
        }
    }

    private void setsFollowEveryChange(Path dir, StoreOptions options, boolean oneConnection) {
        String parser = "the parser broke on a partial record at the end of the log";
        String branch = "the CI job checked out the wrong branch of the repository";
        String again = "the parser broke again on a half-written line";
        String other = "the streaming parser now skips a truncated last line";
        try (SqliteMemoryStore store = SqliteMemoryStore.open(dir, embedder, options, ALWAYS_ALLOWED_SET)) {
            store.addAll(List.of(memory("alice", parser), memory("bob", branch),
                    memory("alice", "the docker build needed a C compiler")));
            SearchRequest request = bobs("a parser that broke on partial records");

            assertThat(texts(store.search(request))).isEqualTo(Set.of(branch));
            long reads = store.dense().allowedReads();
            assertThat(reads).as("the first filtered search reads its set").isPositive();
            for (int i = 0; i < 4; i++) {
                assertThat(texts(store.search(request))).as("search %d, nothing changed", i).isEqualTo(Set.of(branch));
            }
            if (oneConnection) {
                assertThat(store.dense().allowedReads()).as("taken from the kept set").isEqualTo(reads);
            }
            // Another filter is a set of its own.
            assertThat(texts(store.search(SearchRequest.builder("parser").agent("alice").retrieval(Retrieval.DENSE)
                    .limit(10).build()))).contains(parser).doesNotContain(branch);

            Memory bobsParser = memory("bob", again);
            store.add(bobsParser);
            for (int i = 0; i < 4; i++) {
                assertThat(texts(store.search(request))).as("search %d after this store's add", i)
                        .isEqualTo(Set.of(branch, again));
            }

            try (SqliteMemoryStore second = SqliteMemoryStore.open(dir, embedder, options, ALWAYS_ALLOWED_SET)) {
                second.add(memory("bob", other));
            }
            for (int i = 0; i < 4; i++) {
                assertThat(texts(store.search(request))).as("search %d after another store's add", i)
                        .isEqualTo(Set.of(branch, again, other));
            }

            assertThat(FunesStore.forget(store, List.of(bobsParser.id())).memories()).isEqualTo(1);
            for (int i = 0; i < 4; i++) {
                assertThat(texts(store.search(request))).as("search %d after the forget", i)
                        .isEqualTo(Set.of(branch, other));
            }
            // The lexical side ranks among the rows read with the vectors, kept and renewed with them.
            for (int i = 0; i < 4; i++) {
                List<SearchHit> hybrid = store.search(SearchRequest.builder("parser line").agent("bob")
                        .retrieval(Retrieval.HYBRID).limit(10).build());
                assertThat(texts(hybrid)).as("search %d by words and meaning after the forget", i)
                        .isEqualTo(Set.of(branch, other));
                assertThat(hybrid).filteredOn(h -> h.parts().lexicalRank() > 0).extracting(h -> h.memory().text())
                        .as("matched by words").containsExactly(other);
            }
            if (oneConnection) {
                long before = store.dense().allowedReads();
                store.search(request);
                assertThat(store.dense().allowedReads()).as("kept again once read").isEqualTo(before);
            }
        }
    }
}
