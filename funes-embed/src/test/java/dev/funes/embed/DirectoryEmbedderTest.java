package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.Embedder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedder contract on a folder model: the bundled MiniLM int8 files written out as
 * {@code model.onnx} and {@code tokenizer.json}.
 */
class DirectoryEmbedderTest extends EmbedderContract {

    private static final BundledModel SOURCE = BundledModel.ALL_MINILM_L6_V2_Q;

    @TempDir
    static Path temp;

    private Path folder;

    @Override
    Embedder open(int batchSize) {
        if (folder == null) {
            folder = BundledFiles.writeModelFolder(SOURCE, temp.resolve("minilm-export"));
        }
        return Embedders.fromDirectory(folder, SOURCE.options().withBatchSize(batchSize));
    }

    @Override
    String modelIdPattern() {
        return "dir:minilm-export@[0-9a-f]{8}";
    }

    @Override
    boolean hasQueryPrefix() {
        return false;
    }

    @Test
    void givesTheSameVectorsAsTheBundledModel() {
        try (Embedder bundled = Embedders.bundled(SOURCE)) {
            List<float[]> expected = bundled.embedDocuments(TEXTS);
            List<float[]> actual = embedder().embedDocuments(TEXTS);
            for (int i = 0; i < TEXTS.size(); i++) {
                assertClose(actual.get(i), expected.get(i), 1e-5, "text " + i);
            }
        }
    }

    @Test
    void theModelIdIsStableAndFollowsTheWayTheModelIsRun() {
        String id = embedder().modelId();
        try (Embedder again = open(7)) {
            assertThat(again.modelId()).as("batch size does not change vectors").isEqualTo(id);
        }
        EmbedderOptions clsPooling = EmbedderOptions.builder().pooling(Pooling.CLS).maxTokens(256).build();
        try (Embedder other = Embedders.fromDirectory(folder, clsPooling)) {
            assertThat(other.modelId()).startsWith("dir:minilm-export@").isNotEqualTo(id);
            assertThat(dot(other.embedDocuments(TEXTS).get(0), embedder().embedDocuments(TEXTS).get(0)))
                    .as("CLS pooling gives other vectors").isLessThan(0.99);
        }
    }

    @Test
    void aQueryPrefixFromTheOptionsIsAppliedToQueriesOnly() {
        EmbedderOptions prefixed = EmbedderOptions.builder().maxTokens(256).queryPrefix("query: ").build();
        try (Embedder withPrefix = Embedders.fromDirectory(folder, prefixed)) {
            assertClose(withPrefix.embedQuery("streaming parser"),
                    embedder().embedDocuments(List.of("query: streaming parser")).get(0), 1e-5, "prefixed query");
            assertClose(withPrefix.embedDocuments(List.of("streaming parser")).get(0),
                    embedder().embedDocuments(List.of("streaming parser")).get(0), 1e-5, "document");
        }
    }
}
