package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.StoreException;

import java.nio.file.Path;

/**
 * Opens Funes stores: a directory holding a SQLite database (the source of truth: memories,
 * sessions, log checkpoints, embeddings, an FTS5 index) and a JVector graph derived from it.
 *
 * <pre>{@code
 * try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
 *      MemoryStore store = FunesStore.open(Path.of("memory"), embedder)) {
 *     store.add(Memory.builder(MemoryKind.NOTE, "me", "CI checks out the default branch").build());
 *     List<SearchHit> hits = store.search(SearchRequest.of("which branch does CI check out?"));
 * }
 * }</pre>
 *
 * <p>Searches are hybrid: dense candidates from the graph (and an exact scan of vectors added
 * since it was built) and lexical candidates from FTS5 BM25, fused by reciprocal rank. The graph
 * file is rebuilt from SQLite whenever it is missing, corrupt or stale, so deleting it never
 * loses anything. docs/STORE-FORMAT.md describes the files.
 *
 * <p>Several processes may open the same store: SQLite serializes their writes, and each sees
 * the others' committed memories in its next search.
 */
public final class FunesStore {

    private FunesStore() {
    }

    /**
     * Opens the store in {@code dir} with the {@linkplain StoreOptions#defaults() default
     * options}, creating the directory and the store if absent.
     *
     * @param dir      the store's directory
     * @param embedder the embedder for documents and queries; the store does not close it
     * @throws StoreException if the store cannot be opened or created, was written by a newer
     *                        Funes, or was built with another embedding model (the message names
     *                        both models and what to do)
     */
    public static MemoryStore open(Path dir, Embedder embedder) {
        return open(dir, embedder, StoreOptions.defaults());
    }

    /**
     * Opens the store in {@code dir}, creating the directory and the store if absent, migrating an
     * older schema, and loading the ANN index or rebuilding it from SQLite (see
     * {@link #openReport}).
     *
     * @param dir      the store's directory
     * @param embedder the embedder for documents and queries; the store does not close it
     * @param options  tuning knobs
     * @throws StoreException if the store cannot be opened or created, was written by a newer
     *                        Funes, or was built with another embedding model (the message names
     *                        both models and what to do)
     */
    public static MemoryStore open(Path dir, Embedder embedder, StoreOptions options) {
        return SqliteMemoryStore.open(dir, embedder, options);
    }

    /**
     * What opening {@code store} found and did: schema migration, index loaded or rebuilt.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static OpenReport openReport(MemoryStore store) {
        if (store instanceof SqliteMemoryStore s) {
            return s.openReport();
        }
        throw new IllegalArgumentException("not a store opened by FunesStore: " + store);
    }
}
