package dev.funes.embed;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Writes a bundled model's resources as a model folder, the way a user would export one. */
final class BundledFiles {

    private BundledFiles() {
    }

    static Path writeModelFolder(BundledModel model, Path folder) {
        try {
            Files.createDirectories(folder);
            copy(model.modelResource(), folder.resolve(Embedders.MODEL_FILE));
            copy(model.tokenizerResource(), folder.resolve(Embedders.TOKENIZER_FILE));
            return folder;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void copy(String resource, Path target) throws IOException {
        try (InputStream in = BundledFiles.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("resource not on the test class path: " + resource);
            }
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
