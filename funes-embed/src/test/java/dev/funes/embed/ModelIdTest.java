package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import org.junit.jupiter.api.Test;

/** Bundled models are found by the ids stores record. */
class ModelIdTest {

    @Test
    void everyBundledIdRoundTrips() {
        for (BundledModel model : BundledModel.values()) {
            assertThat(BundledModel.fromId(model.id())).isSameAs(model);
        }
        assertThat(BundledModel.DEFAULT.id()).isEqualTo("all-minilm-l6-v2-q");
    }

    @Test
    void anUnknownIdListsTheValidOnes() {
        assertThatThrownBy(() -> BundledModel.fromId("all-minilm-l12-v2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("all-minilm-l12-v2")
                .hasMessageContaining("all-minilm-l6-v2-q, all-minilm-l6-v2, bge-small-en-v15-q");
        assertThatThrownBy(() -> Embedders.forModelId("e5-small"))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining("e5-small")
                .hasMessageContaining("bge-small-en-v15-q");
    }

    @Test
    void aFolderIdPointsToFromDirectory() {
        assertThatThrownBy(() -> Embedders.forModelId("dir:my-model@0123abcd"))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining("dir:my-model@0123abcd")
                .hasMessageContaining("fromDirectory");
    }

    @Test
    void aBundledIdReopensThatModel() {
        try (Embedder embedder = Embedders.forModelId("bge-small-en-v15-q")) {
            assertThat(embedder.modelId()).isEqualTo("bge-small-en-v15-q");
            assertThat(embedder.dimension()).isEqualTo(BundledModel.BGE_SMALL_EN_V15_Q.dimension());
        }
    }

    @Test
    void openingAnEmbedderPutsDjlOffline() {
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT)) {
            assertThat(embedder.modelId()).isEqualTo("all-minilm-l6-v2-q");
            assertThat(ai.djl.util.Utils.isOfflineMode()).isTrue();
            assertThat(Boolean.parseBoolean(ai.djl.util.Utils.getEnvOrSystemProperty("OPT_OUT_TRACKING"))).isTrue();
        }
    }

    @Test
    void optionsAreValidated() {
        assertThatThrownBy(() -> EmbedderOptions.builder().batchSize(0).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batchSize");
        assertThatThrownBy(() -> EmbedderOptions.builder().maxTokens(2).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxTokens");
        assertThatThrownBy(() -> Embedders.bundled(BundledModel.DEFAULT, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
