package dev.funes.embed;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens local ONNX embedders: the {@linkplain BundledModel bundled models}, or any BERT-style
 * ONNX export in a folder. Everything runs in-process on the CPU through DJL and ONNX Runtime;
 * nothing is downloaded, ever.
 *
 * <pre>{@code
 * try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT)) {
 *     List<float[]> vectors = embedder.embedDocuments(List.of("switched the parser to streaming"));
 *     float[] query = embedder.embedQuery("why streaming?");
 * }
 * }</pre>
 *
 * <h2>What the returned embedders do</h2>
 * <ul>
 *   <li><b>Long texts.</b> A text longer than the model's window is cut into consecutive windows
 *       of the window's size (each with the model's special tokens, no overlap). Each window is
 *       embedded and normalized; the text's vector is their mean weighted by each window's number
 *       of text tokens, normalized again, so a short tail counts less than a full window. Only the
 *       first {@value #MAX_WINDOWS} windows are read (2,048 tokens for MiniLM, 4,096 for bge);
 *       the rest of the text is ignored. Callers that need every word to count should chunk.</li>
 *   <li><b>Batches.</b> Windows are sorted by length, embedded in batches padded to the longest
 *       window of the batch, and put back in the caller's order. A batch holds at most
 *       {@link EmbedderOptions#batchSize()} windows and 512 padded tokens (larger batches were
 *       measured slower on long windows). A text's vector never depends on what it is batched
 *       with: models for which it would (dynamically quantized int8 exports, including the
 *       bundled int8 models) are detected when they load and run one window at a time, which
 *       costs about a third of their speed on short texts and nothing on long ones.</li>
 *   <li><b>Threads.</b> Safe for concurrent use. Documents are embedded by one session of the
 *       model per core (at most four), each running one batch at a time on one intra-op thread,
 *       the batches of a call shared out among them (threads {@code funes-embed-N} beside the
 *       caller); queries run on a session of their own with one thread. The vectors are the same
 *       whichever session ran a batch. Each session holds the model in native memory.</li>
 *   <li><b>Close.</b> {@code close()} is idempotent; any other call after it throws
 *       {@link IllegalStateException}.</li>
 *   <li><b>Offline.</b> The first embedder sets DJL's {@code ai.djl.offline} and
 *       {@code OPT_OUT_TRACKING} system properties to {@code true} unless the application has set
 *       them. DJL extracts the tokenizer's native library from its jar into its cache
 *       ({@code ~/.djl.ai}, or {@code DJL_CACHE_DIR}) once, and ONNX Runtime extracts its own into
 *       the temporary folder.</li>
 *   <li><b>Platforms.</b> The native libraries of ONNX Runtime and of DJL's tokenizer that Funes
 *       brings cover Linux x86-64 and aarch64, macOS aarch64 and Windows x86-64. Elsewhere,
 *       opening an embedder throws an {@link EmbeddingException} saying how to bring another
 *       ONNX Runtime (docs/EMBEDDERS.md).</li>
 * </ul>
 */
public final class Embedders {

    private static final Logger LOG = LoggerFactory.getLogger(Embedders.class);

    /** At most this many windows of a long text are embedded; the rest is ignored. */
    public static final int MAX_WINDOWS = 8;

    /** Model ids of folder models start with this. */
    static final String DIRECTORY_ID_PREFIX = "dir:";
    static final String MODEL_FILE = "model.onnx";
    static final String TOKENIZER_FILE = "tokenizer.json";

    private Embedders() {
    }

    /**
     * Opens a bundled model, reading its files with the class loader that loaded Funes.
     *
     * <p>The {@code .onnx} resource is copied to a temporary file because ONNX Runtime loads
     * from a path or a heap array; a file keeps the 23 to 90 MB off the Java heap. The file is
     * deleted as soon as the session is created (ONNX Runtime keeps the model in native memory),
     * so nothing accumulates in the temporary folder; the document session, made on first use,
     * copies it again. A process stopped while a model loads deletes its copy at exit, and copies
     * a killed process left behind are deleted by the next one, an hour later.
     *
     * @throws EmbeddingException if the model's jar is not on the class path or the model fails to load
     */
    public static Embedder bundled(BundledModel model) {
        return bundled(model, EmbedderOptions.DEFAULT_BATCH_SIZE);
    }

    /** A bundled model with another batch size, for tests and measurements. */
    static Embedder bundled(BundledModel model, int batchSize) {
        Objects.requireNonNull(model, "model");
        EmbedderOptions options = model.options().withBatchSize(batchSize);
        ClassLoader loader = classLoader();
        String what = "bundled model " + model.id();
        OnnxEmbedder.ModelFile file = temporaryCopies(model, loader);
        try (InputStream tokenizer = resource(loader, model, model.tokenizerResource())) {
            return OnnxEmbedder.open(model.id(), file, tokenizer, options, what);
        } catch (IOException e) {
            throw new EmbeddingException("cannot read " + what + " from the class path: " + e.getMessage(), e);
        }
    }

    /**
     * Opens a bundled model whose {@code .onnx} file is read from {@code modelFile}, a copy of
     * {@link BundledModel#modelFileResource()} the caller keeps and has checked, instead of a
     * temporary copy of the resource made for each session (23 to 90 MB inflated and written).
     * The tokenizer still comes from the class path. The file must stay as it is while the
     * embedder is open: the document session, made on first use, reads it again, and refuses a
     * file whose size or modification time changed.
     *
     * @throws EmbeddingException if the file cannot be read, the model's jar is not on the class
     *                            path, or the model fails to load
     */
    public static Embedder bundled(BundledModel model, Path modelFile) {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(modelFile, "modelFile");
        String what = "bundled model " + model.id();
        OnnxEmbedder.ModelFile file;
        try {
            file = folderFile(modelFile);
        } catch (IOException e) {
            throw new EmbeddingException("cannot read " + modelFile + " (" + what + "): " + e.getMessage(), e);
        }
        try (InputStream tokenizer = resource(classLoader(), model, model.tokenizerResource())) {
            return OnnxEmbedder.open(model.id(), file, tokenizer, model.options(), what);
        } catch (IOException e) {
            throw new EmbeddingException("cannot read " + what + " from the class path: " + e.getMessage(), e);
        }
    }

    /** How old a temporary copy of a model must be for another process to delete it as left behind. */
    static final Duration LEFT_BEHIND = Duration.ofHours(1);

    /**
     * Temporary copies of a bundled model's {@code .onnx}, one per session made: deleted once the
     * session is made, at the JVM's exit when the process stops before that (a SIGTERM while a
     * model loads), and, for a process killed outright, by the next one that copies the model:
     * copies of it older than {@link #LEFT_BEHIND} (a copy lives for the seconds a session takes
     * to load) are deleted first.
     */
    static OnnxEmbedder.ModelFile temporaryCopies(BundledModel model, ClassLoader loader) {
        String prefix = "funes-" + model.id() + "-";
        return new OnnxEmbedder.ModelFile() {
            @Override
            public Path open() throws IOException {
                Path copy = Files.createTempFile(prefix, ".onnx");
                copy.toFile().deleteOnExit();
                deleteLeftBehind(copy.getParent(), prefix, copy, Instant.now().minus(LEFT_BEHIND));
                try (InputStream onnx = resource(loader, model, model.modelResource())) {
                    Files.copy(onnx, copy, StandardCopyOption.REPLACE_EXISTING);
                    return copy;
                } catch (IOException | RuntimeException e) {
                    deleteTemporaryCopy(copy);
                    throw e;
                }
            }

            @Override
            public void done(Path copy) {
                deleteTemporaryCopy(copy);
            }
        };
    }

    /**
     * Deletes the files {@code prefix*.onnx} in {@code dir} last modified before {@code before},
     * but {@code keep}; quietly skips what cannot be read or deleted (another user's, say).
     */
    static void deleteLeftBehind(Path dir, String prefix, Path keep, Instant before) {
        try (DirectoryStream<Path> copies = Files.newDirectoryStream(dir, prefix + "*.onnx")) {
            for (Path copy : copies) {
                try {
                    if (!copy.equals(keep) && Files.isRegularFile(copy, LinkOption.NOFOLLOW_LINKS)
                            && Files.getLastModifiedTime(copy, LinkOption.NOFOLLOW_LINKS).toInstant()
                            .isBefore(before)) {
                        Files.deleteIfExists(copy);
                        LOG.debug("deleted {}, a copy of a model another process left behind", copy);
                    }
                } catch (IOException | SecurityException e) {
                    LOG.debug("cannot delete {}: {}", copy, e.toString());
                }
            }
        } catch (IOException | SecurityException e) {
            LOG.debug("cannot list {}: {}", dir, e.toString());
        }
    }

    private static void deleteTemporaryCopy(Path copy) {
        if (copy == null) {
            return;
        }
        try {
            Files.deleteIfExists(copy);
        } catch (IOException e) {
            // A platform that keeps the file locked: the model is loaded, so only the disk space is at stake.
            copy.toFile().deleteOnExit();
            LOG.debug("cannot delete {} now, will at exit: {}", copy, e.toString());
        }
    }

    /**
     * Opens the model a store recorded, by its {@linkplain Embedder#modelId() id}. Bundled ids
     * open that bundled model.
     *
     * @throws EmbeddingException if the id is not a bundled model's (folder models cannot be found
     *                            by id: open them with {@link #fromDirectory}); the message lists the
     *                            valid ids
     */
    public static Embedder forModelId(String modelId) {
        Objects.requireNonNull(modelId, "modelId");
        if (modelId.startsWith(DIRECTORY_ID_PREFIX)) {
            throw new EmbeddingException("model " + modelId + " was loaded from a folder; open it with"
                    + " Embedders.fromDirectory(folder, options)");
        }
        BundledModel model;
        try {
            model = BundledModel.fromId(modelId);
        } catch (IllegalArgumentException e) {
            throw new EmbeddingException(e.getMessage(), e);
        }
        return bundled(model);
    }

    /**
     * Opens an ONNX export from a folder holding {@code model.onnx} and {@code tokenizer.json}.
     * The model must take {@code input_ids} and optionally {@code attention_mask} and
     * {@code token_type_ids}, and return token vectors ({@code last_hidden_state} or its first
     * {@code [batch, tokens, dimension]} output); the dimension is read from the model.
     *
     * <p>The model id is {@code dir:<folder name>@<8 hex digits>}, the digits hashing both files
     * and the pooling, prefixes and window: it stays the same as long as the folder keeps its
     * name and the same export is run the same way, and changes whenever the vectors could.
     * Computing it reads both files once.
     *
     * @throws EmbeddingException if the folder or one of its files is missing (the message names
     *                            the path and what is missing), or the model fails to load
     */
    public static Embedder fromDirectory(Path dir, EmbedderOptions options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(options, "options");
        Path folder = dir.toAbsolutePath().normalize();
        if (!Files.isDirectory(folder)) {
            throw new EmbeddingException(Files.exists(folder)
                    ? "model folder " + folder + " is not a folder"
                    : "model folder " + folder + " does not exist");
        }
        Path modelFile = folder.resolve(MODEL_FILE);
        Path tokenizerFile = folder.resolve(TOKENIZER_FILE);
        List<String> missing = new ArrayList<>(2);
        if (!Files.isRegularFile(modelFile)) {
            missing.add(MODEL_FILE);
        }
        if (!Files.isRegularFile(tokenizerFile)) {
            missing.add(TOKENIZER_FILE);
        }
        if (!missing.isEmpty()) {
            throw new EmbeddingException("model folder " + folder + " has no " + String.join(" and no ", missing)
                    + " (a folder model needs " + MODEL_FILE + " and " + TOKENIZER_FILE + ")");
        }
        String modelId = directoryModelId(folder, modelFile, tokenizerFile, options);
        OnnxEmbedder.ModelFile file;
        try {
            file = folderFile(modelFile);
        } catch (IOException e) {
            throw new EmbeddingException("cannot read " + modelFile + ": " + e.getMessage(), e);
        }
        try (InputStream tokenizer = Files.newInputStream(tokenizerFile)) {
            return OnnxEmbedder.open(modelId, file, tokenizer, options, "model folder " + folder);
        } catch (IOException e) {
            throw new EmbeddingException("cannot read " + tokenizerFile + ": " + e.getMessage(), e);
        }
    }

    /**
     * A folder's {@code model.onnx}, which must stay as it was when the model was opened: the
     * document session, made on first use, would otherwise give vectors of another model under
     * the id computed at opening.
     */
    private static OnnxEmbedder.ModelFile folderFile(Path modelFile) throws IOException {
        long size = Files.size(modelFile);
        java.nio.file.attribute.FileTime modified = Files.getLastModifiedTime(modelFile);
        return new OnnxEmbedder.ModelFile() {
            @Override
            public Path open() throws IOException {
                if (Files.size(modelFile) != size || !Files.getLastModifiedTime(modelFile).equals(modified)) {
                    throw new IOException(modelFile + " changed since the model was opened; open it again");
                }
                return modelFile;
            }

            @Override
            public void done(Path file) {
                // The user's file: it stays.
            }
        };
    }

    private static String directoryModelId(Path folder, Path modelFile, Path tokenizerFile, EmbedderOptions options) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
        for (Path file : List.of(modelFile, tokenizerFile)) {
            try (InputStream in = Files.newInputStream(file)) {
                byte[] buffer = new byte[1 << 16];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    digest.update(buffer, 0, n);
                }
            } catch (IOException e) {
                throw new EmbeddingException("cannot read " + file + ": " + e.getMessage(), e);
            }
            digest.update((byte) 0);
        }
        String settings = options.pooling() + "\0" + options.queryPrefix() + "\0" + options.maxTokens();
        if (!options.documentPrefix().isEmpty()) {
            // Only when set, so that folder models without one keep the ids their stores recorded.
            settings += "\0" + options.documentPrefix();
        }
        digest.update(settings.getBytes(StandardCharsets.UTF_8));
        String hash = HexFormat.of().formatHex(digest.digest(), 0, 4);
        return DIRECTORY_ID_PREFIX + folder.getFileName() + "@" + hash;
    }

    private static InputStream resource(ClassLoader loader, BundledModel model, String name) {
        InputStream in = loader.getResourceAsStream(name);
        if (in == null) {
            throw new EmbeddingException("bundled model " + model.id() + " is not on the class path: resource "
                    + name + " not found; add the dependency " + model.artifact());
        }
        return in;
    }

    /** The loader that sees the model jars: the one that loaded Funes. */
    private static ClassLoader classLoader() {
        ClassLoader loader = Embedders.class.getClassLoader();
        return loader != null ? loader : ClassLoader.getSystemClassLoader();
    }
}
