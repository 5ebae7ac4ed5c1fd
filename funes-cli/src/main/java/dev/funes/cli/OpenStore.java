package dev.funes.cli;

import dev.funes.Embedder;
import dev.funes.FunesException;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.redact.RedactionRule;
import dev.funes.redact.Redactor;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A store opened with the embedder it was built with and the store's redaction rules; closes
 * the store and the embedder.
 *
 * @param embedder the embedder
 * @param store    the store
 * @param redactor the built-in rules plus the user's: the file the config names and
 *                 {@code <store>/redaction-rules.txt}, when they exist; the store redacts every memory with it, and indexers
 *                 should too (so their reports count the same secrets)
 */
record OpenStore(Embedder embedder, MemoryStore store, Redactor redactor) implements AutoCloseable {

    private static volatile OpenStore resident;
    private static volatile Path residentDir;

    /** Opens an existing store with its recorded model, loaded on first use; a missing store is an error. */
    static OpenStore existing(Path dir) {
        return existing(dir, false);
    }

    /**
     * Opens an existing store with its recorded model; a missing store is an error.
     *
     * @param vectors whether the command will embed: the model then starts loading at once, in
     *                parallel with opening the store, and so does the dense index; otherwise both
     *                open on first use, if ever (lexical search and {@code why} never read the
     *                index's segments)
     */
    static OpenStore existing(Path dir, boolean vectors) {
        OpenStore held = resident;
        if (held != null && dir.equals(residentDir)) {
            return held;
        }
        if (FunesStore.recordedModelId(dir).isEmpty()) {
            throw new FunesException("no Funes store at " + dir + " (run 'funes index' first, or pass --store DIR)");
        }
        return open(dir, null, vectors, !vectors);
    }

    /**
     * Opens or creates a store. An existing store uses the model it was built with; a new one
     * uses {@code model}, or the default model when that is {@code null}. The model loads on
     * first use, if ever.
     */
    static OpenStore open(Path dir, String model) {
        return open(dir, model, false);
    }

    /**
     * {@link #open(Path, String)}; with {@code vectors}, the model starts loading at once, in
     * parallel. Without {@code model}, a new store takes the config's model ({@link FunesConfig}).
     */
    static OpenStore open(Path dir, String model, boolean vectors) {
        return open(dir, model, vectors, false);
    }

    /**
     * {@link #open(Path, String, boolean)}; with {@code indexOnFirstUse}, the store's dense index
     * opens when first needed ({@link StoreOptions#indexOnFirstUse()}): {@code index} of logs that
     * did not change never reads it.
     */
    static OpenStore open(Path dir, String model, boolean vectors, boolean indexOnFirstUse) {
        Optional<String> recorded = FunesStore.recordedModelId(dir);
        if (recorded.isPresent() && model != null && !recorded.get().equals(model)) {
            throw new FunesException("store " + dir + " was built with model " + recorded.get()
                    + ", not " + model + "; omit --model, or index into a new --store");
        }
        FunesConfig config = FunesConfig.of(dir);
        String modelId = recorded.orElseGet(() -> model != null ? model
                : config.model().map(FunesConfig.Setting::value).orElse(BundledModel.DEFAULT.id()));
        Redactor redactor = redactor(dir, config);
        Embedder embedder = embedder(modelId, vectors);
        try {
            return new OpenStore(embedder,
                    FunesStore.open(dir, embedder, config.searchOptions(StoreOptions.builder()).redactor(redactor)
                            .indexOnFirstUse(indexOnFirstUse).build()), redactor);
        } catch (RuntimeException e) {
            embedder.close();
            throw e;
        }
    }

    /**
     * The store's model: a bundled one loads on first use ({@link LazyEmbedder}), or at once on
     * another thread when {@code preload}. Other ids load now, which fails with the reason.
     */
    private static Embedder embedder(String modelId, boolean preload) {
        BundledModel bundled;
        try {
            bundled = BundledModel.fromId(modelId);
        } catch (IllegalArgumentException e) {
            return Embedders.forModelId(modelId); // throws, naming the valid ids
        }
        LazyEmbedder lazy = LazyEmbedder.of(bundled);
        if (preload) {
            lazy.preload();
        }
        return lazy;
    }

    /**
     * The built-in redaction rules plus those of the file the config names ({@code
     * redaction-rules}) and of {@code dir/redaction-rules.txt}, if present.
     *
     * @throws FunesException naming the file and line of a malformed rule, or the config line
     *                        naming a rules file that does not exist
     */
    static Redactor redactor(Path dir) {
        return redactor(dir, FunesConfig.of(dir));
    }

    private static Redactor redactor(Path dir, FunesConfig config) {
        Redactor.Builder builder = Redactor.builder();
        Optional<FunesConfig.Setting<Path>> configured = config.redactionRules();
        if (configured.isPresent()) {
            Path file = configured.get().value();
            if (!Files.isRegularFile(file)) {
                throw new FunesException(configured.get().source() + ": redaction rules file " + file + " does not exist");
            }
            builder.addRules(file);
        }
        Path own = dir.resolve(RedactionRule.FILE_NAME);
        if (Files.isRegularFile(own)) {
            builder.addRules(own);
        }
        return builder.build();
    }

    /**
     * Makes {@code open}, the store at {@code dir}, what {@link #existing(Path, boolean)} returns for
     * that directory until {@link #release()}, and what its {@link #close()} leaves open: a
     * resident {@code funes serve} keeps one store and its loaded model for every command it runs.
     */
    static void keep(Path dir, OpenStore open) {
        residentDir = dir;
        resident = open;
    }

    /** Ends {@link #keep}: the store closes when its owner closes it. */
    static void release() {
        resident = null;
        residentDir = null;
    }

    @Override
    public void close() {
        if (this == resident) {
            return; // kept open by funes serve for the next command
        }
        try {
            store.close();
        } finally {
            embedder.close();
        }
    }
}
