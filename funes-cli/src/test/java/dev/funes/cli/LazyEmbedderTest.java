package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.Embedder;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The bundled model loads once, on the first vector asked for or on preload, and gives the eager model's vectors. */
class LazyEmbedderTest {

    private final AtomicInteger loads = new AtomicInteger();

    private final Supplier<Embedder> counting = () -> {
        loads.incrementAndGet();
        return Embedders.bundled(BundledModel.DEFAULT);
    };

    @Test
    void idAndDimensionAreTheBundledModelsWithoutLoadingIt() {
        try (LazyEmbedder lazy = LazyEmbedder.of(BundledModel.DEFAULT)) {
            assertThat(lazy.modelId()).isEqualTo("all-minilm-l6-v2-q");
            assertThat(lazy.dimension()).isEqualTo(384);
            assertThat(lazy.loadStarted()).isFalse();
        }
    }

    @Test
    void theFirstVectorLoadsTheModelOnceAndMatchesTheEagerModel() {
        try (Embedder eager = Embedders.bundled(BundledModel.DEFAULT);
             LazyEmbedder lazy = new LazyEmbedder(BundledModel.DEFAULT.id(), 384, counting)) {
            assertThat(loads).hasValue(0);
            float[] query = lazy.embedQuery("why parse ledgers in two passes");
            assertThat(loads).hasValue(1);
            assertThat(query).containsExactly(eager.embedQuery("why parse ledgers in two passes"));
            List<float[]> docs = lazy.embedDocuments(List.of("switched the parser to streaming", "a second text"));
            assertThat(docs).hasSize(2);
            assertThat(docs.get(0)).containsExactly(eager.embedDocuments(List.of("switched the parser to streaming")).get(0));
            assertThat(loads).hasValue(1);
        }
    }

    @Test
    void preloadStartsTheOnlyLoadAndTheFirstVectorWaitsForIt() {
        try (LazyEmbedder lazy = new LazyEmbedder(BundledModel.DEFAULT.id(), 384, counting)) {
            lazy.preload();
            lazy.preload();
            assertThat(lazy.loadStarted()).isTrue();
            assertThat(lazy.embedQuery("streaming parser")).hasSize(384);
            assertThat(loads).hasValue(1);
        }
    }

    @Test
    void closedUnusedItNeverLoadsAndAfterCloseItRefusesToEmbed() {
        LazyEmbedder lazy = new LazyEmbedder(BundledModel.DEFAULT.id(), 384, counting);
        lazy.close();
        lazy.preload();
        assertThat(lazy.loadStarted()).isFalse();
        assertThatThrownBy(() -> lazy.embedQuery("anything")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(loads).hasValue(0);
    }

    @Test
    void aFailedLoadIsTheCallersErrorEachTimeAndCloseStillSucceeds() {
        LazyEmbedder lazy = new LazyEmbedder("broken", 384, () -> {
            loads.incrementAndGet();
            throw new IllegalArgumentException("no such model: broken");
        });
        assertThatThrownBy(() -> lazy.embedQuery("x")).hasMessage("no such model: broken");
        assertThatThrownBy(() -> lazy.embedDocuments(List.of("x"))).hasMessage("no such model: broken");
        assertThat(loads).hasValue(1);
        lazy.close();
    }
}
