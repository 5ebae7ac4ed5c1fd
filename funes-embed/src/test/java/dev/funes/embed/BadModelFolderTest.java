package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.EmbeddingException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A folder that cannot be a model gives an error naming the path and what is wrong. */
class BadModelFolderTest {

    private static final EmbedderOptions OPTIONS = BundledModel.ALL_MINILM_L6_V2_Q.options();

    @TempDir
    Path temp;

    @Test
    void aMissingFolder() {
        Path missing = temp.resolve("no-such-model");
        assertThatThrownBy(() -> Embedders.fromDirectory(missing, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("does not exist");
    }

    @Test
    void aFileInsteadOfAFolder() throws IOException {
        Path file = Files.writeString(temp.resolve("model.onnx"), "not a folder");
        assertThatThrownBy(() -> Embedders.fromDirectory(file, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(file.toString())
                .hasMessageContaining("is not a folder");
    }

    @Test
    void aFolderWithoutEitherFile() throws IOException {
        Path empty = Files.createDirectory(temp.resolve("empty"));
        assertThatThrownBy(() -> Embedders.fromDirectory(empty, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(empty.toString())
                .hasMessageContaining("has no model.onnx and no tokenizer.json");
    }

    @Test
    void aFolderWithoutTheTokenizer() throws IOException {
        Path folder = Files.createDirectory(temp.resolve("onnx-only"));
        BundledFiles.copy(BundledModel.ALL_MINILM_L6_V2_Q.modelResource(), folder.resolve("model.onnx"));
        assertThatThrownBy(() -> Embedders.fromDirectory(folder, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(folder.toString())
                .hasMessageContaining("has no tokenizer.json")
                .hasMessageNotContaining("no model.onnx");
    }

    @Test
    void aFolderWithoutTheModel() throws IOException {
        Path folder = Files.createDirectory(temp.resolve("tokenizer-only"));
        BundledFiles.copy(BundledModel.ALL_MINILM_L6_V2_Q.tokenizerResource(), folder.resolve("tokenizer.json"));
        assertThatThrownBy(() -> Embedders.fromDirectory(folder, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(folder.toString())
                .hasMessageContaining("has no model.onnx")
                .hasMessageNotContaining("tokenizer.json and");
    }

    @Test
    void aCorruptModel() throws IOException {
        Path folder = Files.createDirectory(temp.resolve("corrupt"));
        BundledFiles.copy(BundledModel.ALL_MINILM_L6_V2_Q.tokenizerResource(), folder.resolve("tokenizer.json"));
        Files.writeString(folder.resolve("model.onnx"), "this is not an ONNX protobuf");
        assertThatThrownBy(() -> Embedders.fromDirectory(folder, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(folder.toString())
                .hasMessageContaining("ONNX model");
    }

    @Test
    void aCorruptTokenizer() throws IOException {
        Path folder = Files.createDirectory(temp.resolve("bad-tokenizer"));
        BundledFiles.copy(BundledModel.ALL_MINILM_L6_V2_Q.modelResource(), folder.resolve("model.onnx"));
        Files.writeString(folder.resolve("tokenizer.json"), "{\"not\": \"a tokenizer\"}");
        assertThatThrownBy(() -> Embedders.fromDirectory(folder, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(folder.toString())
                .hasMessageContaining("tokenizer");
    }

    @Test
    void aModelWithAnInputThatIsNotText() throws IOException {
        Path folder = folderWithModel("image-model", TinyOnnx.identity("pixel_values"));
        assertThatThrownBy(() -> Embedders.fromDirectory(folder, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(folder.toString())
                .hasMessageContaining("'pixel_values'");
    }

    @Test
    void aModelWithoutTokenVectors() throws IOException {
        Path folder = folderWithModel("identity-model", TinyOnnx.identity("input_ids"));
        assertThatThrownBy(() -> Embedders.fromDirectory(folder, OPTIONS))
                .isInstanceOf(EmbeddingException.class)
                .hasMessageContaining(folder.toString())
                .hasMessageContaining("[batch, tokens, dimension]");
    }

    private Path folderWithModel(String name, byte[] onnx) throws IOException {
        Path folder = Files.createDirectory(temp.resolve(name));
        BundledFiles.copy(BundledModel.ALL_MINILM_L6_V2_Q.tokenizerResource(), folder.resolve("tokenizer.json"));
        Files.write(folder.resolve("model.onnx"), onnx);
        return folder;
    }
}
