package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.EmbeddingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The document session of an {@link OnnxEmbedder} is made on the first document, not at opening:
 * queries never make it, documents embed as before once it is there, and a folder model whose
 * file changed since opening refuses to make it rather than embed with another model.
 */
class DocumentSessionTest {

    private static final String TEXT = "Switched the JSON parser to streaming mode to cut memory use on large session logs.";

    @Test
    void queriesNeverMakeTheDocumentSessionTheFirstDocumentDoes() {
        try (OnnxEmbedder embedder = (OnnxEmbedder) Embedders.bundled(BundledModel.ALL_MINILM_L6_V2_Q)) {
            assertThat(embedder.documentSessionOpen()).as("after opening").isFalse();
            float[] query = embedder.embedQuery(TEXT);
            assertThat(embedder.documentSessionOpen()).as("after a query").isFalse();
            assertThat(embedder.embedDocuments(List.of())).isEmpty();
            assertThat(embedder.documentSessionOpen()).as("after no document").isFalse();

            List<float[]> documents = embedder.embedDocuments(List.of(TEXT));
            assertThat(embedder.documentSessionOpen()).as("after a document").isTrue();
            // all-MiniLM has no prefixes: a text is the same vector as a query and as a document.
            assertThat(dot(documents.get(0), query)).isGreaterThan(0.9999f);
            assertThat(embedder.embedDocuments(List.of(TEXT)).get(0)).containsExactly(documents.get(0));
        }
    }

    @Test
    void aFolderModelWhoseFileChangedSinceOpeningRefusesDocuments(@TempDir Path dir) throws Exception {
        Path folder = BundledFiles.writeModelFolder(BundledModel.ALL_MINILM_L6_V2_Q, dir.resolve("minilm"));
        try (OnnxEmbedder embedder = (OnnxEmbedder) Embedders.fromDirectory(folder, EmbedderOptions.builder().build())) {
            assertThat(embedder.embedQuery(TEXT)).hasSize(384);
            Path model = folder.resolve(Embedders.MODEL_FILE);
            Files.setLastModifiedTime(model, FileTime.fromMillis(Files.getLastModifiedTime(model).toMillis() - 60_000));
            assertThatThrownBy(() -> embedder.embedDocuments(List.of(TEXT))).isInstanceOf(EmbeddingException.class)
                    .hasMessageContaining(model.toString()).hasMessageContaining("changed since the model was opened");
            assertThat(embedder.documentSessionOpen()).isFalse();
        }
    }

    private static float dot(float[] a, float[] b) {
        float sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }
}
