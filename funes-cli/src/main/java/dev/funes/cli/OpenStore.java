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
 * @param redactor the built-in rules plus the user's from {@code <store>/redaction-rules.txt}
 *                 when that file exists; the store redacts every memory with it, and indexers
 *                 should too (so their reports count the same secrets)
 */
record OpenStore(Embedder embedder, MemoryStore store, Redactor redactor) implements AutoCloseable {

    /** Opens an existing store with its recorded model; a missing store is an error. */
    static OpenStore existing(Path dir) {
        if (FunesStore.recordedModelId(dir).isEmpty()) {
            throw new FunesException("no Funes store at " + dir + " (run 'funes index' first, or pass --store DIR)");
        }
        return open(dir, null);
    }

    /**
     * Opens or creates a store. An existing store uses the model it was built with; a new one
     * uses {@code model}, or the default model when that is {@code null}.
     */
    static OpenStore open(Path dir, String model) {
        Optional<String> recorded = FunesStore.recordedModelId(dir);
        if (recorded.isPresent() && model != null && !recorded.get().equals(model)) {
            throw new FunesException("store " + dir + " was built with model " + recorded.get()
                    + ", not " + model + "; omit --model, or index into a new --store");
        }
        String modelId = recorded.orElse(model != null ? model : BundledModel.DEFAULT.id());
        Redactor redactor = redactor(dir);
        Embedder embedder = Embedders.forModelId(modelId);
        try {
            return new OpenStore(embedder,
                    FunesStore.open(dir, embedder, StoreOptions.builder().redactor(redactor).build()), redactor);
        } catch (RuntimeException e) {
            embedder.close();
            throw e;
        }
    }

    /**
     * The built-in redaction rules plus those of {@code dir/redaction-rules.txt}, if present.
     *
     * @throws FunesException naming the file and line of a malformed rule
     */
    static Redactor redactor(Path dir) {
        Path rules = dir.resolve(RedactionRule.FILE_NAME);
        return Files.isRegularFile(rules) ? Redactor.builder().addRules(rules).build() : Redactor.standard();
    }

    @Override
    public void close() {
        try {
            store.close();
        } finally {
            embedder.close();
        }
    }
}
