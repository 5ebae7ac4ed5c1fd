package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The store's SQLite database ({@code funes.db}): its connections, its transactions and its
 * lifecycle; see docs/STORE-FORMAT.md.
 *
 * <p>Threads: one writer connection, used under {@link #writeLock}; searches and reads borrow one
 * of a few read-only connections and run concurrently (WAL). Each search reads through one read
 * transaction, so it sees one committed state of the database. {@link #lifecycle} makes
 * {@link #close} wait for operations in flight and fail the ones that start after.
 *
 * <p>Processes: every write transaction also holds the store's {@link WriteLock}, so writers of
 * several processes take turns with a bounded wait and a clear error; reads never take it.
 *
 * <p>Read-only: a store whose directory or database file cannot be written (permissions, a
 * read-only file system) opens for reading only. Reads work; every write fails with a
 * {@link StoreException} saying so; nothing is migrated on disk.
 */
final class StoreDatabase {

    private static final Logger LOG = LoggerFactory.getLogger(StoreDatabase.class);

    static final String DATABASE_FILE = "funes.db";

    /** The index file of earlier versions, one graph rebuilt as a whole; removed at open. */
    static final String LEGACY_INDEX_FILE = "vectors.ann";

    private static final int BUSY_TIMEOUT_MS = 10_000;

    /**
     * The most of the database file a read connection maps into memory ({@code PRAGMA
     * mmap_size}): 1 TiB, in practice the whole file (address space, not memory: the pages are
     * the operating system's file cache, shared by every connection).
     */
    static final long READ_MMAP_BYTES = 1L << 40;

    private static final Duration STALE_TEMP_FILE_AGE = Duration.ofDays(1);

    /** What to do about a damaged database; the logs, not the store, are the source of every memory. */
    static final String DAMAGE_ADVICE = "Nothing was changed. Restore the store directory from a backup, or move it"
            + " away and index the agent logs again into a new store (`funes index`): the memories are rebuilt from"
            + " the logs. `funes check` lists what is damaged.";

    private final Path dir;
    private final Path databaseFile;
    /** The connection writes go through; in a read-only store, one more read-only connection. */
    private final Connection writer;
    private final boolean readOnly;
    /** Serializes this process's writes: every write transaction, and an add's embedding before it. */
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Serializes write transactions across processes; see {@link WriteLock}. */
    private final WriteLock fileLock;
    private final List<Connection> readConnections;
    private final BlockingQueue<Connection> idleReaders;
    private final SearchThreads searchThreads;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private volatile boolean closed;
    /** Set when {@link #close} begins: background work stops early. */
    private volatile boolean closing;
    private final UUID storeId;
    /** The schema version the database had when opened: 0 for a new store. */
    private final int foundVersion;

    private StoreDatabase(Path dir, Connection writer, List<Connection> readConnections, WriteLock fileLock,
                          boolean readOnly, UUID storeId, int foundVersion) {
        this.dir = dir;
        this.readOnly = readOnly;
        this.databaseFile = dir.resolve(DATABASE_FILE);
        this.writer = writer;
        this.readConnections = readConnections;
        this.idleReaders = new ArrayBlockingQueue<>(readConnections.size(), false, readConnections);
        this.fileLock = fileLock;
        this.searchThreads = new SearchThreads(readConnections.size());
        this.storeId = storeId;
        this.foundVersion = foundVersion;
    }

    /**
     * Opens or creates the database in {@code directory}: the write lock's file, the writer (which
     * migrates the schema and records or checks the model) and the read connections; removes the
     * temporary files of earlier versions. Closes what it opened when it fails.
     */
    static StoreDatabase open(Path directory, Embedder embedder, StoreOptions options) {
        Path file = directory.resolve(DATABASE_FILE);
        boolean readOnly = readOnly(directory, file);
        if (!readOnly) {
            try {
                Files.createDirectories(directory);
            } catch (IOException e) {
                throw new StoreException("cannot create the store directory " + directory + ": " + e, e);
            }
        }
        List<Connection> opened = new ArrayList<>();
        try {
            WriteLock fileLock = new WriteLock(directory, options.writeLockTimeout());
            Connection writer = connect(file, readOnly);
            opened.add(writer);
            int found = readOnly ? readableSchema(writer, file) : Schema.migrate(writer, file);
            UUID storeId = checkMeta(writer, file, embedder, found == 0);
            List<Connection> readers = new ArrayList<>();
            for (int i = 0; i < options.readConnections(); i++) {
                Connection reader = connect(file, true);
                opened.add(reader);
                Bm25Ranking.prepare(reader);
                readers.add(reader);
            }
            StoreDatabase db = new StoreDatabase(directory, writer, readers, fileLock, readOnly, storeId, found);
            if (!readOnly) {
                db.removeStaleTempFiles();
            }
            return db;
        } catch (SQLException | IOException | RuntimeException e) {
            throw failedOpen(directory, opened, e);
        }
    }

    /**
     * The error of an open that failed with {@code e}, after closing the connections it opened
     * (their errors kept as suppressed ones).
     */
    static StoreException failedOpen(Path directory, List<Connection> opened, Exception e) {
        for (Connection c : opened) {
            try {
                c.close();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
        }
        if (e instanceof StoreException se) {
            return se;
        }
        return new StoreException("cannot open the store " + directory + ": " + message(e), e);
    }

    /** Every connection of this database, the writer first: what {@link #failedOpen} closes. */
    List<Connection> connections() {
        List<Connection> all = new ArrayList<>();
        all.add(writer);
        all.addAll(readConnections);
        return all;
    }

    /** The store's directory. */
    Path dir() {
        return dir;
    }

    /** The connection writes go through (in a read-only store, one more read-only connection). */
    Connection writer() {
        return writer;
    }

    /** The store's id, from its meta table. */
    UUID storeId() {
        return storeId;
    }

    /** The schema version found at open: 0 for a new store. */
    int foundVersion() {
        return foundVersion;
    }

    /** The threads a search runs work on besides its own (one per read connection). */
    SearchThreads searchThreads() {
        return searchThreads;
    }

    /** Whether {@link #close} has begun: background work stops early. */
    boolean closing() {
        return closing;
    }

    /** An idle read connection, or null when none is idle; given back with {@link #release}. */
    Connection idleReader() {
        return idleReaders.poll();
    }

    /** Gives back a connection taken with {@link #idleReader}. */
    void release(Connection reader) {
        idleReaders.add(reader);
    }

    /**
     * Runs {@code work} while the database is open: {@link #close} waits for it, and it fails
     * when the database is closed already.
     */
    <T> T whileOpen(java.util.function.Supplier<T> work) {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            return work.get();
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * {@link #whileOpen} under this process's write lock: what an add does around its embedding
     * and its {@link #inTransaction} (the store's file lock is taken by the transaction alone).
     */
    <T> T writing(java.util.function.Supplier<T> work) {
        return whileOpen(() -> {
            writeLock.lock();
            try {
                return work.get();
            } finally {
                writeLock.unlock();
            }
        });
    }

    /**
     * Whether an existing store can only be read: its directory or its database file is not
     * writable (by this user, or on a read-only file system). As root, permissions do not stop
     * writes, so only a read-only file system makes a store read-only.
     */
    static boolean readOnly(Path directory, Path file) {
        return Files.isRegularFile(file) && (!Files.isWritable(directory) || !Files.isWritable(file));
    }

    /** The schema version of a store opened read-only, which cannot be migrated. */
    private static int readableSchema(Connection db, Path file) throws SQLException {
        int found = Schema.version(db);
        if (found > Schema.CURRENT_VERSION) {
            throw new StoreException("the store " + file + " was written by a newer Funes (schema version " + found
                    + "; this Funes reads up to version " + Schema.CURRENT_VERSION + "): upgrade Funes to open it");
        }
        if (found < Schema.CURRENT_VERSION) {
            throw new StoreException("the store " + file.getParent() + " is read-only and its schema (version " + found
                    + ") is older than this Funes's (" + Schema.CURRENT_VERSION + "): open it once where it can be"
                    + " written, which migrates it");
        }
        return found;
    }

    static Connection connect(Path file, boolean readOnly) throws SQLException {
        if (readOnly) {
            return config(true).createConnection(readOnlyUrl(file));
        }
        // Two processes creating a store at once both switch the new file to WAL; SQLite answers
        // one of them SQLITE_BUSY at once, without calling the busy handler (it would deadlock
        // otherwise). So a writable connection retries for as long as the busy timeout.
        long deadline = System.nanoTime() + BUSY_TIMEOUT_MS * 1_000_000L;
        while (true) {
            try {
                return config(false).createConnection("jdbc:sqlite:" + file);
            } catch (SQLException e) {
                if (e.getMessage() == null || !e.getMessage().contains("SQLITE_BUSY") || System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * The URL of a read-only connection. SQLite reads a WAL database through its {@code -shm}
     * file, creating it when missing; where it cannot (a read-only directory or file system) and
     * neither it nor a {@code -wal} file exists, the database is opened {@code immutable}: read as
     * it is, without locks, which is right when nothing can write it.
     */
    static String readOnlyUrl(Path file) {
        Path directory = file.toAbsolutePath().getParent();
        boolean walFiles = Files.exists(file.resolveSibling(file.getFileName() + "-shm"))
                || Files.exists(file.resolveSibling(file.getFileName() + "-wal"));
        if (!walFiles && directory != null && !Files.isWritable(directory)) {
            return "jdbc:sqlite:" + file.toAbsolutePath().toUri() + "?immutable=1";
        }
        return "jdbc:sqlite:" + file;
    }

    /** Whether this store was opened read-only ({@link #readOnly(Path, Path)}). */
    boolean isReadOnly() {
        return readOnly;
    }

    /** Refuses a write to a read-only store before anything is locked or computed. */
    void ensureWritable(String what) {
        if (readOnly) {
            throw new StoreException("cannot " + what + " in the store " + dir + ": it is read-only (its directory or "
                    + DATABASE_FILE + " cannot be written); nothing was changed");
        }
    }

    private static SQLiteConfig config(boolean readOnly) {
        SQLiteConfig config = new SQLiteConfig();
        config.setBusyTimeout(BUSY_TIMEOUT_MS);
        config.enforceForeignKeys(true);
        if (readOnly) {
            config.setReadOnly(true);
            // Read the file through a memory map rather than a pread per page: a search of a
            // large store misses SQLite's small page cache about 2,600 times (the docsize row of
            // every full-text match, the rows it returns), each a system call and a 4 KiB copy.
            // SQLite maps no more than the file's size and remaps as it grows; writes still go
            // through the writer's ordinary I/O.
            config.setPragma(SQLiteConfig.Pragma.MMAP_SIZE, Long.toString(READ_MMAP_BYTES));
        } else {
            config.setJournalMode(SQLiteConfig.JournalMode.WAL);
            // FULL: in WAL mode every commit is fsynced, so a batch that returned survives a power
            // loss, as the MemoryStore contract promises. NORMAL would only survive a process
            // crash. The cost is one fsync per addAll batch, small next to embedding its texts.
            config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
            // IMMEDIATE: a write transaction takes the write lock when it begins, so two processes
            // never deadlock upgrading read locks; busy_timeout makes the second one wait.
            config.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        }
        return config;
    }

    /** Records the model of a new store, or checks that the embedder matches the recorded one. */
    private static UUID checkMeta(Connection db, Path file, Embedder embedder, boolean created) throws SQLException {
        Map<String, String> meta;
        db.setAutoCommit(false); // BEGIN IMMEDIATE: two processes creating one store agree on one record
        try {
            meta = readMeta(db);
            if (!meta.containsKey("model_id")) {
                try (PreparedStatement ps = db.prepareStatement("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)")) {
                    for (String[] kv : new String[][] {
                            {"model_id", embedder.modelId()},
                            {"dimension", Integer.toString(embedder.dimension())},
                            {"store_id", UUID.randomUUID().toString()},
                            {"created_by", "funes-store " + version()},
                            {"created_at", Instant.now().toString()}}) {
                        ps.setString(1, kv[0]);
                        ps.setString(2, kv[1]);
                        ps.addBatch();
                    }
                    ps.executeBatch();
                }
                if (!created) {
                    LOG.warn("The store {} had no model recorded; recorded {}", file, embedder.modelId());
                }
                meta = readMeta(db);
            }
            db.commit();
        } catch (SQLException | RuntimeException e) {
            db.rollback();
            throw e;
        } finally {
            db.setAutoCommit(true);
        }
        String recordedModel = meta.get("model_id");
        String recordedDimension = meta.get("dimension");
        if (!recordedModel.equals(embedder.modelId())
                || !String.valueOf(embedder.dimension()).equals(recordedDimension)) {
            throw new StoreException("the store " + file.getParent() + " was built with the embedding model "
                    + recordedModel + " (" + recordedDimension + " dimensions) but is being opened with "
                    + embedder.modelId() + " (" + embedder.dimension() + " dimensions): open it with "
                    + recordedModel + ", or re-index the logs into a new store to use " + embedder.modelId());
        }
        String storeId = meta.get("store_id");
        try {
            return UUID.fromString(storeId);
        } catch (RuntimeException e) {
            throw new StoreException("the store " + file + " has a damaged meta table (store_id " + storeId
                    + "): re-index into a new store", e);
        }
    }

    private static Map<String, String> readMeta(Connection db) throws SQLException {
        Map<String, String> meta = new HashMap<>();
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT key, value FROM meta")) {
            while (rs.next()) {
                meta.put(rs.getString(1), rs.getString(2));
            }
        }
        return meta;
    }

    private static String version() {
        try (InputStream in = StoreDatabase.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private void removeStaleTempFiles() {
        // The single-graph index of earlier versions is replaced by the segments in index/. A crash
        // while writing it left a temporary file; a young one may belong to an older Funes
        // rebuilding it in another process right now.
        try {
            if (Files.deleteIfExists(dir.resolve(LEGACY_INDEX_FILE))) {
                LOG.info("Removed {} of an earlier version: the index is in {}/ now", LEGACY_INDEX_FILE, StoreIndex.DIR);
            }
        } catch (IOException e) {
            LOG.debug("Cannot remove {}: {}", LEGACY_INDEX_FILE, e.toString());
        }
        try (DirectoryStream<Path> temps = Files.newDirectoryStream(dir, LEGACY_INDEX_FILE + ".*.tmp")) {
            Instant cutoff = Instant.now().minus(STALE_TEMP_FILE_AGE);
            for (Path temp : temps) {
                if (Files.getLastModifiedTime(temp).toInstant().isBefore(cutoff)) {
                    Files.deleteIfExists(temp);
                    LOG.info("Removed the stale temporary file {}", temp);
                }
            }
        } catch (IOException e) {
            LOG.debug("Cannot clean temporary files in {}: {}", dir, e.toString());
        }
    }

    /** A write for {@link #transaction}: runs on the writer connection inside the transaction. */
    @FunctionalInterface
    interface Write<T> {
        T apply(Connection writer) throws SQLException;
    }

    /**
     * Runs {@code body} in one write transaction under both write locks and commits it; rolls
     * back if it throws. {@code afterCommit} runs after the commit, still under the locks (to tell
     * the ANN index about vectors). For writers other than {@link MemoryWriter#addAll} ({@link CallerVectors}).
     */
    <T> T transaction(String what, Write<T> body, java.util.function.Consumer<T> afterCommit) {
        return whileOpen(() -> {
            ensureWritable(what);
            writeLock.lock();
            try {
                T result;
                try {
                    result = inTransaction(what, body, r -> true);
                } catch (SQLException e) {
                    throw new StoreException("cannot " + what + " in the store " + dir + " (nothing was changed): "
                            + message(e), e);
                }
                afterCommit.accept(result);
                return result;
            } finally {
                writeLock.unlock();
            }
        });
    }

    /**
     * Runs {@code body} in one write transaction under the store's file lock (the caller holds
     * this process's, {@link #writing}); commits when {@code commit} accepts the result, rolls back
     * otherwise or if it throws.
     */
    <T> T inTransaction(String what, Write<T> body, java.util.function.Predicate<T> commit) throws SQLException {
        try (WriteLock.Held held = fileLock.acquire(what)) {
            writer.setAutoCommit(false);
            try {
                T result = body.apply(writer);
                if (commit.test(result)) {
                    writer.commit();
                } else {
                    writer.rollback();
                }
                return result;
            } catch (SQLException | RuntimeException e) {
                abandon(writer, e);
                throw e;
            } finally {
                writer.setAutoCommit(true);
            }
        }
    }

    /**
     * Runs {@code work} in one write transaction on the writer connection, under this process's
     * and the store's write locks: for tables other than the memories' (see {@link SqliteLinkTables}).
     */
    <T> T write(String what, Read<T> work) {
        return transaction(what, work::apply, result -> { });
    }

    @FunctionalInterface
    interface Read<T> {
        T apply(Connection connection) throws SQLException;
    }

    /** Runs {@code read} in one read transaction on a pooled read connection. */
    <T> T read(String what, Read<T> read) {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            return readOpen(what, read);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** {@link #read} for a caller that already holds the lifecycle read lock. */
    <T> T readOpen(String what, Read<T> read) {
        Connection c;
        try {
            c = idleReaders.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting to " + what, e);
        }
        try {
            c.setAutoCommit(false);
            try {
                return read.apply(c);
            } finally {
                endRead(c);
            }
        } catch (SQLException e) {
            throw new StoreException("cannot " + what + " in the store " + dir + ": " + message(e), e);
        } finally {
            idleReaders.add(c);
        }
    }

    /** Ends the read transaction of {@code c} (nothing was written), back to auto-commit. */
    static void endRead(Connection c) throws SQLException {
        try {
            c.rollback();
        } finally {
            c.setAutoCommit(true);
        }
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the store " + dir + " is closed");
        }
    }

    /**
     * Closes the database: waits for operations in flight, runs {@code beforeClose} with the
     * writer (the dense index's last catch-up and seal), stops the search threads and closes every
     * connection. Later operations fail; a second close does nothing.
     */
    void close(java.util.function.Consumer<Connection> beforeClose) {
        closing = true;
        lifecycle.writeLock().lock(); // waits for operations in flight
        try {
            if (closed) {
                return;
            }
            closed = true;
            beforeClose.accept(writer);
            searchThreads.close();
            for (Connection c : readConnections) {
                closeQuietly(c);
            }
            closeQuietly(writer);
            LOG.debug("Closed Funes store {}", dir);
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    private void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            LOG.warn("Cannot close a connection to {}: {}", databaseFile, e.toString());
        }
    }

    static String message(Exception e) {
        String m = e.getMessage();
        if (m != null && m.contains("SQLITE_BUSY")) {
            return "the database is locked by another process (" + m + "); try again when it is done";
        }
        if (diskFull(e)) {
            return "no space left on device: the disk holding the store is full (" + m + "); free some space and"
                    + " run it again";
        }
        if (m != null && m.contains("SQLITE_CORRUPT_VTAB")) {
            return "the full-text index in " + DATABASE_FILE + " is damaged (" + m + "). It is derived from the"
                    + " memories, which are intact: `funes check --repair` rebuilds it.";
        }
        if (damaged(e)) {
            return "the database " + DATABASE_FILE + " is damaged or is not a SQLite database (" + m + "). " + DAMAGE_ADVICE;
        }
        return m == null ? e.toString() : m;
    }

    /**
     * Ends a write transaction that failed, keeping {@code failure} as the error to report. After
     * some errors (SQLITE_FULL, an I/O error) SQLite has rolled the transaction back already, so
     * rolling back or committing again fails with "no transaction is active": that error is
     * attached to the first one, never put in its place (it would hide a full disk).
     */
    static void abandon(Connection c, Exception failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
        try {
            c.setAutoCommit(true); // leaves the connection in auto-commit even when it fails
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /** Whether the disk is full: SQLite's SQLITE_FULL, or the system's ENOSPC in an I/O error. */
    static boolean diskFull(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && (m.contains("SQLITE_FULL") || m.contains("No space left on device"))) {
                return true;
            }
        }
        return false;
    }

    /** Whether SQLite says the file is not a database or is malformed. */
    static boolean damaged(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && (m.contains("SQLITE_NOTADB") || m.contains("SQLITE_CORRUPT"))) {
                return true;
            }
        }
        return false;
    }
}
