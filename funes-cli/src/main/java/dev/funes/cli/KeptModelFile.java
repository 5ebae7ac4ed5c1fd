package dev.funes.cli;

import dev.funes.embed.BundledModel;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Path;
import java.util.zip.ZipEntry;

/**
 * A bundled model's {@code .onnx} file, kept as a verified copy in the folder of
 * {@value KeptSqliteLibrary#DIR_PROPERTY} (under {@code models/}, named by its CRC-32) and handed
 * to ONNX Runtime from there, rather than inflated from the model's jar into a new temporary file
 * by every process that loads the model (23 MB for the default model; docs/BENCHMARKS.md, "Cold
 * start"). The copy is checked against the jar's entry (size and CRC-32) before each use and
 * extracted again when it differs ({@link KeptCopies}).
 */
final class KeptModelFile {

    private KeptModelFile() {
    }

    /**
     * The verified copy of {@code model}'s file, extracting it first when it is missing or
     * differs; null when there is no folder to keep it in or anything is off (the model is then
     * read from the class path as without it). Never fails.
     */
    static Path of(BundledModel model) {
        String dir = System.getProperty(KeptSqliteLibrary.DIR_PROPERTY);
        if (dir == null || dir.isBlank()) {
            return null;
        }
        try {
            return keptCopy(Path.of(dir).toAbsolutePath(), model.modelFileResource());
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The verified copy in {@code root}'s {@code models} folder of the jar entry {@code resource} names. */
    static Path keptCopy(Path root, URL resource) throws IOException {
        ZipEntry entry = KeptCopies.jarEntry(resource);
        if (entry == null || KeptCopies.privateFolder(root) == null) {
            return null;
        }
        Path models = KeptCopies.privateFolder(root.resolve("models"));
        if (models == null) {
            return null;
        }
        String file = entry.getName().substring(entry.getName().lastIndexOf('/') + 1);
        int dot = file.lastIndexOf('.');
        String name = String.format("%s-%08x%s", dot < 0 ? file : file.substring(0, dot), entry.getCrc(),
                dot < 0 ? "" : file.substring(dot));
        Path copy = models.resolve(name);
        if (KeptCopies.sameAs(copy, entry) || KeptCopies.extract(resource, entry, copy)) {
            return copy;
        }
        return null;
    }
}
