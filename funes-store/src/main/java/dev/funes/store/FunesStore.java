package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.StoreException;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
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
 * <p>Every memory passes through the store's {@linkplain StoreOptions#redactor() redactor}
 * before anything of it is written (text, project, metadata values; its embedding is computed
 * from the redacted text): a memory whose text held a secret is stored under the id derived from
 * its redacted text ({@link dev.funes.redact.Redactor#redact(dev.funes.Memory)}), so
 * {@code get} with the raw memory's id finds nothing. {@link DatasetExport} and
 * {@link DatasetImport} move memories between stores as a Hugging Face dataset folder.
 *
 * <p>Several processes may open the same store. Each write transaction holds the store's write
 * lock ({@code write.lock}), so one process writes at a time; a writer that waits longer than
 * {@link StoreOptions#writeLockTimeout()} fails with a {@link StoreException} naming the process
 * that holds it. Reads never wait for it, and each process sees the others' committed memories in
 * its next search. {@link #check} verifies a store and rebuilds its derived parts.
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
     * The store's view for memories with caller-supplied vectors and exact searches by vector
     * (see {@link StoreVectors}); valid until the store is closed.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static StoreVectors vectors(MemoryStore store) {
        if (store instanceof SqliteMemoryStore s) {
            return new CallerVectors(s);
        }
        throw new IllegalArgumentException("not a store opened by FunesStore: " + store);
    }

    /**
     * Forgets memories: deletes each (ids not stored are ignored) with its passages, in one
     * transaction, leaving a tombstone for each so that a later export carries the deletion and an
     * import or {@code pull} elsewhere applies it (docs/DATASET.md). They leave SQLite and the
     * full-text index at once; their vectors (when no other memory uses them) leave the
     * database, and this process then rewrites the dense index's segments that held them, when it
     * maintains the index.
     *
     * @param store a store opened by {@link FunesStore}
     * @param ids   the memories' ids
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     * @throws dev.funes.StoreException if the database cannot be written (nothing is deleted), or
     *                                  the index cannot be rewritten (the memories are deleted
     *                                  and their vectors never returned by a search)
     */
    public static ForgetReport forget(MemoryStore store, java.util.Collection<String> ids) {
        if (store instanceof SqliteMemoryStore s) {
            return Forgetting.forget(s, ids);
        }
        throw new IllegalArgumentException("not a store opened by FunesStore: " + store);
    }

    /**
     * What {@link #forget} would remove for {@code selected}, to show or count before asking: the
     * selected memories and the passages that go with them (a selected passage goes alone).
     *
     * @param store    a store opened by {@link FunesStore}
     * @param selected the memories chosen to forget, as {@code get} or a scan returned them
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static ForgetSelection toForget(MemoryStore store, java.util.Collection<dev.funes.Memory> selected) {
        return ForgetSelection.of(store, selected);
    }

    /**
     * The tables of {@code store} that link memories to git commits (see docs/WHY.md); valid while
     * the store is open.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static LinkTables links(MemoryStore store) {
        if (store instanceof SqliteMemoryStore s) {
            return new SqliteLinkTables(s);
        }
        throw new IllegalArgumentException("not a store opened by FunesStore: " + store);
    }

    /**
     * Checks the store in {@code dir} without opening it (opening rebuilds a damaged index
     * silently): SQLite's integrity and foreign keys, the schema version, the meta table, the
     * stored vectors (their lengths, their texts, and a few re-embedded with {@code embedder} to
     * make sure the model still computes them), the sessions table against the memories, the
     * FTS5 index against the memories, and the ANN index file (header, checksums, and the same
     * vector ids as SQLite). Safe while other processes use the store.
     *
     * <p>With {@code repair}, what is derived and found wrong is rebuilt: the FTS5 index, the
     * sessions table, the ANN index file, vectors of the model that are unusable (wrong length,
     * all zeros, NaN) are computed again from their texts, and vectors no memory uses are
     * removed. Memories and log checkpoints are never deleted or changed; a database that fails
     * SQLite's integrity check is left as it is (the report says how to recover, and
     * {@link CheckReport.Finding#repairable()} tells what a repair fixes). The repair takes the
     * write lock, waiting up to the default {@link StoreOptions#writeLockTimeout()}.
     *
     * @param dir      the store's directory
     * @param embedder the model the store was built with, to compare a few stored vectors with
     *                 fresh embeddings; {@code null} skips that comparison (reported as a warning)
     * @param repair   whether to rebuild the derived parts found wrong
     * @return every finding, a damaged or missing store included; {@link CheckReport#healthy()}
     *         tells whether a problem remains
     */
    public static CheckReport check(Path dir, Embedder embedder, boolean repair) {
        return StoreCheck.run(Objects.requireNonNull(dir, "dir"), embedder, repair,
                StoreOptions.DEFAULT_WRITE_LOCK_TIMEOUT);
    }

    /**
     * Cheap signs of damage in the store in {@code dir}, for a caller about to trust its answers
     * (the CLI's {@code search} warns with them): the full-text index holds as many rows as there
     * are memories and its structure record is there, and the vectors at each end of the id range
     * have the right length and are finite and not all zeros. Two counts and 32 vectors, no full
     * scan (about 0.1 s at a million memories): an empty list is no proof of health ({@link #check}
     * is).
     *
     * @return one sentence per sign found, empty when none
     */
    public static List<String> quickCheck(Path dir) {
        return StoreCheck.quick(Objects.requireNonNull(dir, "dir"));
    }

    /**
     * The id of the embedding model the store in {@code dir} was built with, read without opening
     * the store; empty when {@code dir} holds no store. Lets a caller pick the right
     * {@link Embedder} before {@link #open}.
     *
     * @throws StoreException if a database is there but cannot be read
     */
    public static Optional<String> recordedModelId(Path dir) {
        Path db = dir.resolve(StoreDatabase.DATABASE_FILE);
        if (!Files.isRegularFile(db)) {
            return Optional.empty();
        }
        try (Connection c = StoreDatabase.connect(db, true);
             PreparedStatement q = c.prepareStatement("SELECT value FROM meta WHERE key = 'model_id'");
             ResultSet rs = q.executeQuery()) {
            return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
        } catch (SQLException e) {
            throw new StoreException("cannot read the store at " + dir + ": " + StoreDatabase.message(e), e);
        }
    }
}
