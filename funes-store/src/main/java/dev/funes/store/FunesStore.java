package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.StoreException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

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

    /**
     * The id of the embedding model the store in {@code dir} was built with, read without opening
     * the store; empty when {@code dir} holds no store. Lets a caller pick the right
     * {@link Embedder} before {@link #open}.
     *
     * @throws StoreException if a database is there but cannot be read
     */
    public static Optional<String> recordedModelId(Path dir) {
        Path db = dir.resolve(SqliteMemoryStore.DATABASE_FILE);
        if (!Files.isRegularFile(db)) {
            return Optional.empty();
        }
        org.sqlite.SQLiteConfig readOnly = new org.sqlite.SQLiteConfig();
        readOnly.setReadOnly(true);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db, readOnly.toProperties());
             PreparedStatement q = c.prepareStatement("SELECT value FROM meta WHERE key = 'model_id'");
             ResultSet rs = q.executeQuery()) {
            return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
        } catch (SQLException e) {
            throw new StoreException("cannot read the store at " + dir + ": " + e.getMessage(), e);
        }
    }
}
