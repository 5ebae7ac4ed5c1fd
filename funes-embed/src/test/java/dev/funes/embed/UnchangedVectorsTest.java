package dev.funes.embed;

import static dev.funes.embed.EmbedderContract.assertClose;
import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.Embedder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores keep the vectors and model ids they were built with: the models without a document
 * prefix must embed exactly what they did before document prefixes existed. The expected values
 * are the first eight components computed by that earlier code; a prefix, a changed window or a
 * changed pooling moves them by far more than the tolerance, which only absorbs CPU differences.
 */
class UnchangedVectorsTest {

    private static final String DOCUMENT =
            "Switched the JSON parser to streaming mode to cut memory use on large session logs.";
    private static final String QUERY = "why streaming?";
    /** About 1,700 tokens: several windows of both MiniLM and bge. */
    private static final String LONG = "The SQLite FTS5 index is rebuilt when the schema version changes. ".repeat(120);
    private static final double TOLERANCE = 1e-4;

    @Test
    void allMiniLmInt8() {
        check(BundledModel.ALL_MINILM_L6_V2_Q,
                new float[] {0.038730174f, 0.03520834f, 0.009126707f, -0.022678642f, -7.364253E-4f, -0.07060465f,
                    -0.0036422992f, -0.024668459f},
                new float[] {0.0035067974f, -0.07088478f, 0.022080328f, -0.049434625f, 0.13767879f, 0.060202636f,
                    0.049703594f, 0.017384814f},
                new float[] {-0.0118338335f, -0.08623603f, 0.036778945f, 0.032135025f, 0.057739284f, -0.009544734f,
                    -0.015949937f, -0.0882407f});
    }

    @Test
    void allMiniLmFp32() {
        check(BundledModel.ALL_MINILM_L6_V2,
                new float[] {0.040759627f, 0.031074421f, 0.018441837f, -0.015786752f, -0.011245438f, -0.07351594f,
                    -0.015583668f, -0.023059972f},
                new float[] {0.006547409f, -0.057540845f, 0.021261062f, -0.052235197f, 0.1420624f, 0.054692965f,
                    0.044153363f, 0.02342568f},
                null);
    }

    @Test
    void bgeSmallInt8() {
        check(BundledModel.BGE_SMALL_EN_V15_Q,
                new float[] {-0.037355226f, 0.049932934f, 0.050504126f, -0.023380572f, 0.045393694f, -0.014511029f,
                    -0.046766512f, -0.0067172027f},
                new float[] {0.020113358f, -0.029380813f, 0.0148726f, -0.025141435f, 0.05805711f, -0.01727669f,
                    -0.015165104f, 0.02259605f},
                new float[] {-0.035021592f, -0.075687036f, 0.037927937f, 0.040259026f, -0.010261065f, 0.007980696f,
                    -0.04796179f, 0.020776546f});
    }

    @Test
    void folderModelsWithoutADocumentPrefixKeepTheirIds(@TempDir Path dir) {
        Path folder = BundledFiles.writeModelFolder(BundledModel.ALL_MINILM_L6_V2_Q, dir.resolve("minilm"));
        try (Embedder embedder = Embedders.fromDirectory(folder, BundledModel.ALL_MINILM_L6_V2_Q.options())) {
            assertThat(embedder.modelId()).isEqualTo("dir:minilm@6c6dc4e5");
        }
        try (Embedder embedder = Embedders.fromDirectory(folder, BundledModel.BGE_SMALL_EN_V15_Q.options())) {
            assertThat(embedder.modelId()).isEqualTo("dir:minilm@73dc013d");
        }
        EmbedderOptions withPrefix = EmbedderOptions.builder().documentPrefix("passage: ").build();
        try (Embedder plain = Embedders.fromDirectory(folder, EmbedderOptions.builder().build());
             Embedder prefixed = Embedders.fromDirectory(folder, withPrefix)) {
            assertThat(prefixed.modelId()).isNotEqualTo(plain.modelId()); // the prefix changes the vectors
        }
    }

    private static void check(BundledModel model, float[] document, float[] query, float[] longDocument) {
        assertThat(model.options().documentPrefix()).isEmpty();
        try (Embedder embedder = Embedders.bundled(model)) {
            assertClose(Arrays.copyOf(embedder.embedDocuments(List.of(DOCUMENT)).get(0), 8), document, TOLERANCE,
                    model.id() + " document");
            assertClose(Arrays.copyOf(embedder.embedQuery(QUERY), 8), query, TOLERANCE, model.id() + " query");
            if (longDocument != null) {
                assertClose(Arrays.copyOf(embedder.embedDocuments(List.of(LONG)).get(0), 8), longDocument, TOLERANCE,
                        model.id() + " long document");
            }
        }
    }
}
