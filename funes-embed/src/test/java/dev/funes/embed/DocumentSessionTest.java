package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.EmbeddingException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
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
    void documentsAreEmbeddedBySeveralSessionsAtOnceWithTheVectorsOfOneAtATime() {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            texts.add("Session " + i + ": " + "the indexer retried the write after a busy lock. ".repeat(1 + i % 7));
        }
        try (OnnxEmbedder embedder = (OnnxEmbedder) Embedders.bundled(BundledModel.ALL_MINILM_L6_V2_Q)) {
            List<float[]> together = embedder.embedDocuments(texts);
            int cores = Runtime.getRuntime().availableProcessors();
            assertThat(embedder.documentSessionCount())
                    .isEqualTo(Math.max(1, Math.min(cores, OnnxEmbedder.MAX_DOCUMENT_SESSIONS)));
            // The int8 model runs a window at a time: 60 batches, shared out among the sessions;
            // each text alone is one batch on the calling thread's session. The same bits.
            for (int i = 0; i < texts.size(); i++) {
                assertThat(embedder.embedDocuments(List.of(texts.get(i))).get(0)).as("text %d", i)
                        .containsExactly(together.get(i));
            }
        }
    }

    @Test
    void closingWhileDocumentsAreEmbeddedEndsTheCallWithAClearErrorOrItsVectors() throws Exception {
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            texts.add("Memory " + i + " about the parser, the index and the write queue.");
        }
        OnnxEmbedder embedder = (OnnxEmbedder) Embedders.bundled(BundledModel.ALL_MINILM_L6_V2_Q);
        embedder.embedDocuments(texts.subList(0, 1)); // the sessions are made
        java.util.concurrent.CompletableFuture<List<float[]>> running =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> embedder.embedDocuments(texts));
        embedder.close();
        try {
            assertThat(running.get()).hasSize(texts.size()); // it finished before the close
        } catch (java.util.concurrent.ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("is closed");
        }
        assertThatThrownBy(() -> embedder.embedDocuments(texts.subList(0, 2))).isInstanceOf(IllegalStateException.class);
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
