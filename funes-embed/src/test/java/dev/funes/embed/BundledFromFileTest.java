package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bundled model opened from a copy of its {@code .onnx} file the caller keeps
 * ({@link Embedders#bundled(BundledModel, Path)}) is the bundled model: same id, same options,
 * bit-identical vectors for queries and documents, and the copy stays where it was.
 */
class BundledFromFileTest {

    private static final List<String> TEXTS = List.of("",
            "Switched the JSON parser to streaming mode to cut memory use on large session logs.",
            "passage ".repeat(400));

    @Test
    void theModelFromAKeptCopyGivesTheVectorsOfTheClassPathsModel(@TempDir Path dir) throws Exception {
        BundledModel model = BundledModel.E5_SMALL_V2_Q; // prefixes: its options must come along
        URL resource = model.modelFileResource();
        assertThat(resource).isNotNull();
        Path copy = dir.resolve("kept.onnx");
        try (InputStream in = resource.openStream()) {
            Files.copy(in, copy);
        }
        try (Embedder plain = Embedders.bundled(model); Embedder kept = Embedders.bundled(model, copy)) {
            assertThat(kept.modelId()).isEqualTo(plain.modelId());
            assertThat(kept.dimension()).isEqualTo(plain.dimension());
            for (String text : TEXTS) {
                assertThat(kept.embedQuery(text)).containsExactly(plain.embedQuery(text));
            }
            List<float[]> expected = plain.embedDocuments(TEXTS);
            List<float[]> actual = kept.embedDocuments(TEXTS);
            for (int i = 0; i < TEXTS.size(); i++) {
                assertThat(actual.get(i)).as("document %d", i).containsExactly(expected.get(i));
            }
        }
        assertThat(copy).exists();
    }

    @Test
    void aMissingFileIsNamedInTheError(@TempDir Path dir) {
        Path missing = dir.resolve("none.onnx");
        assertThatThrownBy(() -> Embedders.bundled(BundledModel.ALL_MINILM_L6_V2_Q, missing))
                .isInstanceOf(EmbeddingException.class).hasMessageContaining(missing.toString());
    }
}
