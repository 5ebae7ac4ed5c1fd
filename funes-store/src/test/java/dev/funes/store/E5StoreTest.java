package dev.funes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.StoreException;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store built with e5-small-v2 (whose documents and queries are embedded with different
 * prefixes) finds memories by meaning, records its model, and reopens by that id with the same
 * answers.
 */
class E5StoreTest {

    private static final List<String> QUERIES = List.of(
            "why did the build test the wrong branch in continuous integration",
            "the browser refused to log in with an SSL protocol error");

    private final TestCorpus corpus = TestCorpus.create();

    @Test
    void aStoreMadeWithE5ReopensAndSearches(@TempDir Path dir) {
        List<List<String>> before;
        try (Embedder e5 = Embedders.bundled(BundledModel.E5_SMALL_V2_Q); MemoryStore store = FunesStore.open(dir, e5)) {
            store.addAll(corpus.all());
            before = answers(store);
            assertClosestByMeaning(store, QUERIES.get(0), "ci-branch");
            assertClosestByMeaning(store, QUERIES.get(1), "tls-port");
        }
        try (Embedder other = Embedders.bundled(BundledModel.DEFAULT)) {
            assertThatThrownBy(() -> FunesStore.open(dir, other))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("e5-small-v2-q");
        }
        try (Embedder e5 = Embedders.forModelId("e5-small-v2-q"); MemoryStore store = FunesStore.open(dir, e5)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse();
            assertThat(store.stats().memories()).isEqualTo(corpus.size());
            assertThat(answers(store)).isEqualTo(before);
        }
    }

    private void assertClosestByMeaning(MemoryStore store, String query, String key) {
        List<SearchHit> hits = store.search(SearchRequest.builder(query).limit(5).build());
        SearchHit closest = hits.stream().filter(h -> h.parts().denseRank() == 1).findFirst().orElseThrow();
        assertThat(closest.memory().id()).as(query).isEqualTo(corpus.get(key).id());
    }

    private static List<List<String>> answers(MemoryStore store) {
        return QUERIES.stream().map(q -> store.search(SearchRequest.builder(q).limit(5).build()).stream()
                .map(h -> h.memory().id() + " d" + h.parts().denseRank() + " l" + h.parts().lexicalRank()).toList())
                .toList();
    }
}
