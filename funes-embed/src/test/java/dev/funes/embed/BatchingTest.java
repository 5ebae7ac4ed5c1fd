package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Batching is used only where it cannot change vectors: the int8 exports quantize each tensor
 * by its own range, padding included, so they must run one window at a time.
 */
class BatchingTest {

    @Test
    void theFp32ModelBatches() {
        try (OnnxEmbedder fp32 = (OnnxEmbedder) Embedders.bundled(BundledModel.ALL_MINILM_L6_V2)) {
            assertThat(fp32.batchSize()).isEqualTo(EmbedderOptions.DEFAULT_BATCH_SIZE);
        }
    }

    @Test
    void theInt8ModelsRunOneWindowAtATime() {
        for (BundledModel model : new BundledModel[] {BundledModel.ALL_MINILM_L6_V2_Q, BundledModel.BGE_SMALL_EN_V15_Q}) {
            try (OnnxEmbedder int8 = (OnnxEmbedder) Embedders.bundled(model)) {
                assertThat(int8.batchSize()).as(model.id()).isEqualTo(1);
            }
        }
    }
}
