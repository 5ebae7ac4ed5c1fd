package dev.funes.store;

import dev.funes.AddResult;
import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SessionInfo;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;
import dev.funes.StoreException;
import dev.funes.StoreStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteConfig;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The {@link MemoryStore} over one directory: SQLite ({@code funes.db}) as the source of truth and
 * a derived dense index of JVector segments ({@code index/}, {@link SegmentedIndex}); see docs/STORE-FORMAT.md.
 *
 * <p>Threads: one writer connection, used under {@link #writeLock}; searches and reads borrow one
 * of a few read-only connections and run concurrently (WAL). Each search reads through one read
 * transaction, so it sees one committed state of the database. {@link #lifecycle} makes
 * {@link #close()} wait for operations in flight and fail the ones that start after.
 *
 * <p>Processes: every write transaction also holds the store's {@link WriteLock}, so writers of
 * several processes take turns with a bounded wait and a clear error; reads never take it.
 *
 * <p>Read-only: a store whose directory or database file cannot be written (permissions, a
 * read-only file system) opens for reading only. Searches and reads work; every write fails
 * with a {@link StoreException} saying so; nothing is migrated, rebuilt or sealed on disk (the
 * dense index searches what its files lack from memory).
 */
final class SqliteMemoryStore implements MemoryStore {

    private static final Logger LOG = LoggerFactory.getLogger(SqliteMemoryStore.class);

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
    private static final int MAX_ATTEMPTS = 3;
    private static final Duration STALE_TEMP_FILE_AGE = Duration.ofDays(1);
    /** Ids per {@code IN (...)} list; well below SQLite's limit on bound parameters. */
    private static final int IN_LIST_CHUNK = 500;
    /** What to do about a damaged database; the logs, not the store, are the source of every memory. */
    static final String DAMAGE_ADVICE = "Nothing was changed. Restore the store directory from a backup, or move it"
            + " away and index the agent logs again into a new store (`funes index`): the memories are rebuilt from"
            + " the logs. `funes check` lists what is damaged.";

    private final Path dir;
    private final Path databaseFile;
    private final Embedder embedder;
    private final StoreOptions options;
    private final String modelId;
    private final int dimension;
    /** The connection writes go through; in a read-only store, one more read-only connection. */
    private final Connection writer;
    private final boolean readOnly;
    private final ReentrantLock writeLock = new ReentrantLock();
    /** Serializes write transactions across processes; see {@link WriteLock}. */
    private final WriteLock fileLock;
    private final List<Connection> readConnections;
    private final BlockingQueue<Connection> idleReaders;
    private StoreIndex ann;
    private final SearchThreads searchThreads;
    /**
     * A full-text ranking over at least this many postings is split over two read connections
     * ({@link #lexicalCandidates}): about 6 ms of bm25 on the 1M benchmark machine, far more than
     * handing half to another thread costs.
     */
    static final long SPLIT_LEXICAL_POSTINGS = 4_000;

    private volatile boolean overlapLexical = true;
    private volatile long splitLexicalAt = SPLIT_LEXICAL_POSTINGS;
    private final AtomicLong lexicalSplits = new AtomicLong();
    private final Bm25Ranking bm25 = new Bm25Ranking(this::loadTokenCounts);
    private volatile boolean rankInJava = true;
    private final AtomicLong javaRankings = new AtomicLong();
    /**
     * A store of fewer rows than this reads the vectors passing a filter outright (milliseconds);
     * a larger one first estimates how many pass ({@link #wideCandidates}).
     */
    static final long WIDE_FILTER_MIN_ROWS = 8_192;
    /** Rows sampled to estimate the share of memories passing a filter. */
    static final int FILTER_SAMPLE = 256;
    /** A wide dense search asks for this many times {@code k} over the estimated share passing. */
    static final double WIDE_MARGIN = 1.5;
    /** A wide dense search asks for at most this many times {@code k} (a share of 15% or more). */
    static final int WIDE_MAX_FACTOR = 10;
    /**
     * A second wide search, sized by the share passing among the first one's vectors (the
     * query's neighbourhood may hold far fewer than the store), asks for at most this many times
     * {@code k}.
     */
    static final int WIDE_RETRY_MAX_FACTOR = 40;
    private volatile long wideFilterMinRows = WIDE_FILTER_MIN_ROWS;
    private final AtomicLong wideSearches = new AtomicLong();
    private final AtomicLong wideRetries = new AtomicLong();
    private final AtomicLong wideFallbacks = new AtomicLong();
    private final TermCounts termCounts = new TermCounts();
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private volatile boolean closed;
    /** Set when {@link #close} begins: background work stops early. */
    private volatile boolean closing;
    private OpenReport openReport;

    private SqliteMemoryStore(Path dir, Embedder embedder, StoreOptions options, Connection writer,
                              List<Connection> readConnections, UUID storeId, WriteLock fileLock, boolean readOnly) {
        this.dir = dir;
        this.readOnly = readOnly;
        this.databaseFile = dir.resolve(DATABASE_FILE);
        this.embedder = embedder;
        this.options = options;
        this.modelId = embedder.modelId();
        this.dimension = embedder.dimension();
        this.writer = writer;
        this.readConnections = readConnections;
        this.idleReaders = new ArrayBlockingQueue<>(readConnections.size(), false, readConnections);
        this.fileLock = fileLock;
        this.searchThreads = new SearchThreads(readConnections.size());
    }

    /** Opens or creates the store in {@code dir}; see {@link FunesStore#open(Path, Embedder, StoreOptions)}. */
    static SqliteMemoryStore open(Path dir, Embedder embedder, StoreOptions options) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(embedder, "embedder");
        Objects.requireNonNull(options, "options");
        Path directory = dir.toAbsolutePath().normalize();
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
            SqliteMemoryStore store = new SqliteMemoryStore(directory, embedder, options, writer, readers, storeId,
                    fileLock, readOnly);
            if (!readOnly) {
                store.removeStaleTempFiles();
            }
            long started = System.nanoTime();
            store.ann = StoreIndex.open(directory, new IndexSegment.Identity(storeId, store.modelId, store.dimension),
                    options, writer);
            StoreIndex.Outcome outcome = store.ann.outcome();
            store.openReport = new OpenReport(found == 0, found, Schema.version(writer), outcome.rebuilt(),
                    outcome.reason(), (int) outcome.segmentVectors(), outcome.memtableVectors(),
                    Duration.ofNanos(System.nanoTime() - started));
            LOG.info("Opened Funes store {} ({}{}): {}", directory, store.modelId, readOnly ? ", read-only" : "",
                    store.openReport.summary());
            return store;
        } catch (SQLException | IOException | RuntimeException e) {
            for (Connection c : opened) {
                try {
                    c.close();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (e instanceof StoreException se) {
                throw se;
            }
            throw new StoreException("cannot open the store " + directory + ": " + message(e), e);
        }
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
    private void ensureWritable(String what) {
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
        try (InputStream in = SqliteMemoryStore.class.getResourceAsStream("version.properties")) {
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

    /** The dense index (tests: what its open did, {@link StoreIndex#outcome()}). */
    StoreIndex denseIndex() {
        return ann;
    }

    OpenReport openReport() {
        return openReport;
    }

    /** The store's directory. */
    Path dir() {
        return dir;
    }

    /** The embedding model's id. */
    String modelId() {
        return modelId;
    }

    /** The embedding model's vector dimension. */
    int dimension() {
        return dimension;
    }

    // ---------------------------------------------------------------- writes

    @Override
    public AddResult addAll(Collection<Memory> memories, SourceState source) {
        return add(memories, source, null);
    }

    @Override
    public SourceUpdate replaceSource(Collection<Memory> memories, SourceState source, Set<String> keep) {
        Objects.requireNonNull(source, "source");
        Settle settle = new Settle(Set.copyOf(Objects.requireNonNull(keep, "keep")), null, true);
        return settle.result(add(memories, source, settle));
    }

    @Override
    public SourceUpdate updateSource(Collection<Memory> memories, SourceState source, Set<String> keep,
                                     Set<String> replace) {
        Objects.requireNonNull(source, "source");
        Settle settle = new Settle(Set.copyOf(Objects.requireNonNull(keep, "keep")),
                replace == null ? null : Set.copyOf(replace), false);
        return settle.result(add(memories, source, settle));
    }

    /**
     * What a write does with the memories its source's file gave before and the read did not
     * give again ({@link #settleSource}), and how many it deleted and marked.
     *
     * @param keep    ids the read gave
     * @param replace ids that may be deleted; every other one is marked. Null: every one not
     *                marked yet may be deleted (and the marked ones stay)
     * @param all     every one is deleted, marked or not ({@code replace} is then null)
     */
    private record Settle(Set<String> keep, Set<String> replace, boolean all, int[] counts) {
        Settle(Set<String> keep, Set<String> replace, boolean all) {
            this(keep, replace, all, new int[2]);
        }

        Settle withKeep(Set<String> kept) {
            return new Settle(kept, replace, all, counts);
        }

        SourceUpdate result(AddResult stored) {
            return new SourceUpdate(stored, counts[0], counts[1]);
        }
    }

    /** What {@link #merge} did. */
    record Merged(AddResult added, int deleted) {
    }

    /**
     * Adds memories and deletes others in one transaction: what a dataset import does.
     *
     * @param vectors   embeddings by content hash, stored instead of embedding those texts; they
     *                  must come from this store's model
     * @param addedAt   when each memory (by id) was first added, kept instead of now, so that
     *                  tombstones from other machines compare with the original time
     * @param deletions ids to delete, each with the time it was deleted elsewhere; a memory added
     *                  here at or after that time stays (it was added again)
     */
    Merged merge(Collection<Memory> memories, Map<String, float[]> vectors, Map<String, Instant> addedAt,
                 Map<String, Instant> deletions) {
        int[] deleted = new int[1];
        AddResult result = add(memories, null, null, new Extra(Objects.requireNonNull(vectors, "vectors"),
                Objects.requireNonNull(addedAt, "addedAt"), Objects.requireNonNull(deletions, "deletions"), deleted));
        return new Merged(result, deleted[0]);
    }

    /** What an import adds to a write: given vectors and times, deletions, and a count of those done. */
    private record Extra(Map<String, float[]> vectors, Map<String, Instant> addedAt, Map<String, Instant> deletions,
                         int[] deleted) {
        static final Extra NONE = new Extra(Map.of(), Map.of(), Map.of(), new int[1]);
    }

    private AddResult add(Collection<Memory> memories, SourceState source, Settle settle) {
        return add(memories, source, settle, Extra.NONE);
    }

    private AddResult add(Collection<Memory> memories, SourceState source, Settle settle, Extra extra) {
        Objects.requireNonNull(memories, "memories");
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            writeLock.lock();
            try {
                return addLocked(memories, source, settle, extra);
            } finally {
                writeLock.unlock();
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    private AddResult addLocked(Collection<Memory> memories, SourceState source, Settle settle, Extra extra) {
        // Redacted before anything else sees the memory: not even its embedding may be computed
        // from the raw text. Memories the Indexer already redacted come through unchanged.
        source = redacted(source);
        Map<String, Memory> byId = new LinkedHashMap<>();
        Map<String, String> renamed = new HashMap<>();
        for (Memory m : memories) {
            Memory redacted = options.redactor().redact(Objects.requireNonNull(m, "memory")).memory();
            if (!redacted.id().equals(m.id())) {
                renamed.put(m.id(), redacted.id());
            }
            byId.putIfAbsent(redacted.id(), redacted);
        }
        if (settle != null && !renamed.isEmpty()) {
            Set<String> kept = new LinkedHashSet<>(settle.keep());
            for (String id : settle.keep()) {
                if (renamed.containsKey(id)) {
                    kept.add(renamed.get(id));
                }
            }
            settle = settle.withKeep(kept);
        }
        Map<String, float[]> embeddings = new HashMap<>(); // content hash -> vector, kept across attempts
        for (Map.Entry<String, float[]> e : extra.vectors().entrySet()) {
            embeddings.put(e.getKey(), checkVector(e.getValue()));
        }
        int embedded = 0;
        for (int attempt = 1; ; attempt++) {
            List<Memory> candidates;
            Map<String, String> missing = new LinkedHashMap<>(); // content hash -> text
            try {
                candidates = new ArrayList<>();
                try (PreparedStatement memoryExists = writer.prepareStatement("SELECT 1 FROM memories WHERE id = ?");
                     PreparedStatement vectorExists = writer.prepareStatement(
                             "SELECT 1 FROM vectors WHERE content_hash = ?")) {
                    for (Memory m : byId.values()) {
                        if (exists(memoryExists, m.id())) {
                            continue;
                        }
                        candidates.add(m);
                        String shared = m.metadata().get(Memory.VECTOR_OF);
                        if (shared != null && (embeddings.containsKey(shared) || missing.containsKey(shared)
                                || exists(vectorExists, shared))) {
                            continue; // uses the vector of another text, stored or embedded in this call
                        }
                        String hash = m.contentHash();
                        if (!embeddings.containsKey(hash) && !missing.containsKey(hash) && !exists(vectorExists, hash)) {
                            missing.put(hash, m.text());
                        }
                    }
                }
            } catch (SQLException e) {
                throw new StoreException("cannot read the store " + dir + ": " + message(e), e);
            }
            embedded += embed(missing, embeddings);
            Optional<Committed> committed = commit(candidates, embeddings, source, settle, extra);
            if (committed.isPresent()) {
                Committed c = committed.get();
                c.deletedVectors().forEach(ann::removed);
                afterCommit(c.newVectors());
                return new AddResult(c.added(), memories.size() - c.added(), embedded);
            }
            if (attempt == MAX_ATTEMPTS) {
                throw new StoreException("cannot add to the store " + dir + ": vectors kept disappearing while"
                        + " adding (another process is deleting from this store?); nothing was stored");
            }
            LOG.debug("A vector was deleted concurrently; retrying addAll (attempt {})", attempt);
        }
    }

    private static boolean exists(PreparedStatement ps, String key) throws SQLException {
        ps.setString(1, key);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /** Embeds the texts, checks the vectors and adds them to {@code embeddings}; returns how many. */
    private int embed(Map<String, String> missing, Map<String, float[]> embeddings) {
        if (missing.isEmpty()) {
            return 0;
        }
        List<String> hashes = new ArrayList<>(missing.keySet());
        List<float[]> vectors = embedder.embedDocuments(new ArrayList<>(missing.values()));
        if (vectors == null || vectors.size() != hashes.size()) {
            throw new EmbeddingException("the embedder " + modelId + " returned " + (vectors == null ? 0 : vectors.size())
                    + " vectors for " + hashes.size() + " texts");
        }
        for (int i = 0; i < hashes.size(); i++) {
            embeddings.put(hashes.get(i), checkVector(vectors.get(i)));
        }
        return hashes.size();
    }

    private float[] checkVector(float[] vector) {
        if (vector == null || vector.length != dimension) {
            throw new EmbeddingException("the embedder " + modelId + " returned a vector of length "
                    + (vector == null ? 0 : vector.length) + ", expected " + dimension);
        }
        for (float f : vector) {
            if (!Float.isFinite(f)) {
                throw new EmbeddingException("the embedder " + modelId + " returned a vector with " + f);
            }
        }
        return vector;
    }

    private record Committed(int added, List<SegmentedIndex.Entry> newVectors, List<Long> deletedVectors) {
    }

    /**
     * Writes the memories, their missing vectors, their sessions and the checkpoint in one
     * transaction. Empty when a vector the memories need vanished (deleted by another process)
     * after it was looked up; nothing is written then and the caller retries.
     */
    private Optional<Committed> commit(List<Memory> memories, Map<String, float[]> embeddings, SourceState source,
                                       Settle settle, Extra extra) {
        // Only the transaction holds the file lock, not the embedding before it: a waiting writer
        // then waits milliseconds, not seconds, and long-lived writers (a watcher, an MCP server)
        // can share the store.
        ensureWritable("add " + memories.size() + " memories");
        try (WriteLock.Held held = fileLock.acquire("adding " + memories.size() + " memories")) {
            writer.setAutoCommit(false);
            try {
                Optional<Committed> result = write(memories, embeddings, source, extra.addedAt());
                if (result.isPresent() && (settle != null || !extra.deletions().isEmpty())) {
                    List<Long> deleted = settle == null ? new ArrayList<>() : settleSource(source, settle);
                    extra.deleted()[0] = deleteAddedBefore(extra.deletions(), deleted);
                    result = Optional.of(new Committed(result.get().added(), result.get().newVectors(), deleted));
                }
                if (result.isPresent()) {
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
        } catch (SQLException e) {
            throw new StoreException("cannot write to the store " + dir + " (nothing of this batch was stored): "
                    + message(e), e);
        }
    }

    private Optional<Committed> write(List<Memory> memories, Map<String, float[]> embeddings, SourceState source,
                                      Map<String, Instant> addedAt) throws SQLException {
        Map<String, Long> vectorIds = new HashMap<>();
        List<SegmentedIndex.Entry> newVectors = new ArrayList<>();
        Set<List<String>> sessions = new LinkedHashSet<>();
        Map<String, Long> redactions = new HashMap<>();
        int added = 0;
        Instant now = Instant.now();
        try (PreparedStatement findVector = writer.prepareStatement("SELECT id FROM vectors WHERE content_hash = ?");
             PreparedStatement insertVector = writer.prepareStatement(
                     "INSERT INTO vectors (content_hash, embedding) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
             PreparedStatement insertMemory = writer.prepareStatement(Rows.INSERT_MEMORY);
             PreparedStatement clearTombstone = writer.prepareStatement("DELETE FROM tombstones WHERE id = ?")) {
            for (Memory m : memories) {
                String hash = m.contentHash();
                String shared = m.metadata().get(Memory.VECTOR_OF);
                if (shared != null && (vectorIds.containsKey(shared) || embeddings.containsKey(shared)
                        || exists(findVector, shared))) {
                    hash = shared;
                }
                Long vectorId = vectorIds.get(hash);
                if (vectorId == null) {
                    findVector.setString(1, hash);
                    try (ResultSet rs = findVector.executeQuery()) {
                        vectorId = rs.next() ? rs.getLong(1) : null;
                    }
                    if (vectorId == null) {
                        float[] vector = embeddings.get(hash);
                        if (vector == null) {
                            return Optional.empty();
                        }
                        insertVector.setString(1, hash);
                        insertVector.setBytes(2, Rows.vectorBytes(vector));
                        insertVector.executeUpdate();
                        try (ResultSet keys = insertVector.getGeneratedKeys()) {
                            keys.next();
                            vectorId = keys.getLong(1);
                        }
                        newVectors.add(new SegmentedIndex.Entry(vectorId, vector));
                    }
                    vectorIds.put(hash, vectorId);
                }
                Rows.bindMemory(insertMemory, m, hash, vectorId, addedAt.getOrDefault(m.id(), now));
                if (insertMemory.executeUpdate() == 1) {
                    added++;
                    Redactions.count(m, redactions);
                    clearTombstone.setString(1, m.id());
                    clearTombstone.executeUpdate();
                    if (m.session() != null) {
                        sessions.add(List.of(m.agent(), m.session()));
                    }
                }
            }
        }
        for (List<String> session : sessions) {
            refreshSession(session.get(0), session.get(1));
        }
        Redactions.apply(writer, redactions);
        if (source != null) {
            try (PreparedStatement ps = writer.prepareStatement(Rows.UPSERT_SOURCE)) {
                Rows.bindSource(ps, source);
                ps.executeUpdate();
            }
        }
        return Optional.of(new Committed(added, newVectors, List.of()));
    }

    /** The memory as the store keeps it: every string redacted ({@link dev.funes.redact.Redactor#redact(Memory)}). */
    Memory redacted(Memory m) {
        return options.redactor().redact(m).memory();
    }

    /** A text as the store keeps it, with its secrets replaced. */
    String redacted(String text) {
        return text == null ? null : options.redactor().redact(text).text();
    }

    /**
     * A checkpoint as the store keeps it: its path redacted as the provenance paths of the
     * memories read from that file are, so that the two still match ({@link #source} looks the
     * file up the same way).
     */
    private SourceState redacted(SourceState s) {
        if (s == null) {
            return null;
        }
        Path path = options.redactor().redactPath(s.path());
        return path.equals(s.path()) ? s : new SourceState(path, s.size(), s.lastModified(), s.indexedBytes(),
                s.indexedLines(), s.headFingerprint(), s.format(), s.indexedAt(), s.resume());
    }

    /** Recomputes a session's row from its memories; removes it when none is left. */
    void refreshSession(String agent, String session) throws SQLException {
        try (PreparedStatement delete = writer.prepareStatement("DELETE FROM sessions WHERE agent = ? AND session = ?");
             PreparedStatement insert = writer.prepareStatement("INSERT INTO sessions (agent, session, project,"
                     + " first_at, last_at, memories) " + Rows.SESSION_ROWS
                     + " WHERE agent = ? AND session = ? GROUP BY agent, session")) {
            delete.setString(1, agent);
            delete.setString(2, session);
            delete.executeUpdate();
            insert.setString(1, agent);
            insert.setString(2, session);
            insert.executeUpdate();
        }
    }

    /** Tells the dense index about committed vectors; it seals and merges segments as they pile up. */
    private void afterCommit(List<SegmentedIndex.Entry> newVectors) {
        if (newVectors.isEmpty()) {
            return;
        }
        // The batch is committed: a failure here must not fail the call. The next search catches
        // up with the database, and the next open reconciles the index with it.
        try {
            ann.added(newVectors, writer);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("Cannot add the new vectors to the dense index of {} ({}); the next search catches up", dir,
                    e.toString());
        }
    }

    @Override
    public boolean delete(String id) {
        Objects.requireNonNull(id, "id");
        // A memory's passages hold its full content: they go with it, in the same transaction.
        List<Long> deletedVectors = transaction("delete " + id, writer -> {
            Instant now = Instant.now();
            long vector = deleteRow(id, now);
            if (vector == NO_ROW) {
                return null;
            }
            List<Long> vectors = new ArrayList<>();
            if (vector >= 0) {
                vectors.add(vector);
            }
            for (String passage : passagesOf(id)) {
                long v = deleteRow(passage, now);
                if (v >= 0) {
                    vectors.add(v);
                }
            }
            return vectors;
        }, vectors -> {
            if (vectors != null) {
                vectors.forEach(ann::removed);
            }
        });
        return deletedVectors != null;
    }

    /** The ids of the passages of a memory (through the {@code memories_passage_of} index). */
    private List<String> passagesOf(String id) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement ps = writer.prepareStatement("SELECT id FROM memories WHERE kind = 'passage'"
                + " AND json_extract(metadata, '$." + Memory.PASSAGE_OF + "') = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        }
        return ids;
    }

    /**
     * Inside the open transaction, settles the memories cited from the source's file that are not
     * in {@code settle.keep()}: deletes those {@code settle} may replace, marks the others
     * {@link SourceState#CHANGED_KEY} (unless they already are); returns the ids of the vectors
     * that went with the deleted ones. A row whose metadata cannot be read is left as it is.
     */
    private List<Long> settleSource(SourceState source, Settle settle) throws SQLException {
        List<String> stale = new ArrayList<>();
        Map<String, Map<String, String>> unmarked = new LinkedHashMap<>();
        try (PreparedStatement ps = writer.prepareStatement("SELECT id, metadata FROM memories WHERE source_path = ?")) {
            ps.setString(1, source.path().toString());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String id = rs.getString(1);
                    if (settle.keep().contains(id)) {
                        continue;
                    }
                    if (settle.all() || settle.replace() != null && settle.replace().contains(id)) {
                        stale.add(id);
                        continue;
                    }
                    Map<String, String> metadata = Rows.metadata(rs.getString(2));
                    if (metadata == null || metadata.containsKey(SourceState.CHANGED_KEY)) {
                        continue; // of an earlier generation of the file: it stays as it is
                    }
                    if (settle.replace() == null) {
                        stale.add(id);
                    } else {
                        unmarked.put(id, metadata);
                    }
                }
            }
        }
        List<Long> deletedVectors = new ArrayList<>();
        Instant now = Instant.now();
        for (String id : stale) {
            long v = deleteRow(id, now);
            if (v >= 0) {
                deletedVectors.add(v);
            }
        }
        // Neither the full-text nor the dense index covers metadata: the row is updated in place,
        // keeping its row number, its time of addition and its vector.
        String changedAt = source.indexedAt().toString();
        try (PreparedStatement mark = writer.prepareStatement("UPDATE memories SET metadata = ? WHERE id = ?")) {
            for (Map.Entry<String, Map<String, String>> e : unmarked.entrySet()) {
                Map<String, String> metadata = new java.util.TreeMap<>(e.getValue());
                metadata.put(SourceState.CHANGED_KEY, changedAt);
                mark.setString(1, Rows.metadataJson(metadata));
                mark.setString(2, e.getKey());
                mark.addBatch();
            }
            mark.executeBatch();
        }
        settle.counts()[0] += stale.size();
        settle.counts()[1] += unmarked.size();
        if (!stale.isEmpty() || !unmarked.isEmpty()) {
            LOG.debug("{}: {} memories replaced, {} kept from an earlier version of the file", source.path(),
                    stale.size(), unmarked.size());
        }
        return deletedVectors;
    }

    /**
     * Deletes, inside the open transaction, each memory that was added here before the time it
     * was deleted elsewhere; adds the ids of the vectors that went to {@code deletedVectors}.
     *
     * @return how many memories were deleted
     */
    private int deleteAddedBefore(Map<String, Instant> deletions, List<Long> deletedVectors) throws SQLException {
        int deleted = 0;
        try (PreparedStatement ps = writer.prepareStatement("SELECT added_at FROM memories WHERE id = ?")) {
            for (Map.Entry<String, Instant> d : deletions.entrySet()) {
                ps.setString(1, d.getKey());
                Instant added;
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        continue;
                    }
                    added = Rows.instant(rs.getString(1));
                }
                if (!added.isBefore(d.getValue())) {
                    continue;
                }
                long v = deleteRow(d.getKey(), d.getValue());
                deleted++;
                if (v >= 0) {
                    deletedVectors.add(v);
                }
            }
        }
        return deleted;
    }

    /**
     * Book-keeping for a memory another writer ({@link CallerVectors}) just inserted inside the
     * open transaction: its redaction counts and clearing its tombstone, as {@link #addAll} does.
     */
    void inserted(Memory m) throws SQLException {
        Map<String, Long> redactions = new HashMap<>();
        Redactions.count(m, redactions);
        Redactions.apply(writer, redactions);
        try (PreparedStatement ps = writer.prepareStatement("DELETE FROM tombstones WHERE id = ?")) {
            ps.setString(1, m.id());
            ps.executeUpdate();
        }
    }

    /** {@link #deleteRow}'s answer when there is no such memory. */
    static final long NO_ROW = -2;

    /**
     * Deletes one memory inside the open transaction, refreshing its session and deleting its
     * vector once no memory uses it.
     *
     * @param deletedAt when, for the tombstone; {@code null} when the memory is replaced under the
     *                  same id in the same transaction (no tombstone)
     * @return the id of the deleted vector, -1 if the vector stays, {@link #NO_ROW} if no such memory
     */
    long deleteRow(String id, Instant deletedAt) throws SQLException {
        long seq;
        long vectorId;
        String agent;
        String session;
        Map<String, Long> redactions = new HashMap<>();
        try (PreparedStatement ps = writer.prepareStatement(
                "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE m.id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return NO_ROW;
                }
                Rows.StoredMemory stored = Rows.memory(rs);
                seq = stored.seq();
                vectorId = stored.vectorId();
                agent = stored.memory().agent();
                session = stored.memory().session();
                Redactions.count(stored.memory(), redactions);
            }
        }
        try (PreparedStatement ps = writer.prepareStatement("DELETE FROM memories WHERE seq = ?")) {
            ps.setLong(1, seq);
            ps.executeUpdate();
        }
        redactions.replaceAll((type, n) -> -n);
        Redactions.apply(writer, redactions);
        // Remembered so that an export tells other machines, and an import does not bring it back.
        if (deletedAt != null) {
            try (PreparedStatement ps = writer.prepareStatement(
                    "INSERT OR REPLACE INTO tombstones (id, deleted_at) VALUES (?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, Rows.instant(deletedAt));
                ps.executeUpdate();
            }
        }
        if (session != null) {
            refreshSession(agent, session);
        }
        // An embedding can give its text away; once no memory uses it, it goes too.
        try (PreparedStatement ps = writer.prepareStatement(
                "DELETE FROM vectors WHERE id = ? AND NOT EXISTS (SELECT 1 FROM memories WHERE vector_id = ?)")) {
            ps.setLong(1, vectorId);
            ps.setLong(2, vectorId);
            // > 0, not == 1: the driver counts the row the vector_digest trigger updates as well
            if (ps.executeUpdate() > 0) {
                return vectorId;
            }
        }
        return -1;
    }

    /** A write for {@link #transaction}: runs on the writer connection inside the transaction. */
    @FunctionalInterface
    interface Write<T> {
        T apply(Connection writer) throws SQLException;
    }

    /**
     * Runs {@code body} in one write transaction under both write locks and commits it; rolls
     * back if it throws. {@code afterCommit} runs after the commit, still under the locks (to tell
     * the ANN index about vectors). For writers other than {@link #addAll} ({@link CallerVectors}).
     */
    <T> T transaction(String what, Write<T> body, java.util.function.Consumer<T> afterCommit) {
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            ensureWritable(what);
            writeLock.lock();
            try {
                T result;
                try (WriteLock.Held held = fileLock.acquire(what)) {
                    writer.setAutoCommit(false);
                    try {
                        result = body.apply(writer);
                        writer.commit();
                    } catch (SQLException | RuntimeException e) {
                        abandon(writer, e);
                        throw e;
                    } finally {
                        writer.setAutoCommit(true);
                    }
                } catch (SQLException e) {
                    throw new StoreException("cannot " + what + " in the store " + dir + " (nothing was changed): "
                            + message(e), e);
                }
                afterCommit.accept(result);
                return result;
            } finally {
                writeLock.unlock();
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Tells the ANN index about vectors a {@link #transaction} committed and deleted. */
    void vectorsChanged(List<SegmentedIndex.Entry> added, List<Long> deleted) {
        deleted.forEach(ann::removed);
        afterCommit(added);
    }

    /**
     * Runs {@code work} in one write transaction on the writer connection, under this process's
     * and the store's write locks: for tables other than the memories' (see {@link SqliteLinkTables}).
     */
    <T> T write(String what, Read<T> work) {
        return transaction(what, work::apply, result -> { });
    }

    // ---------------------------------------------------------------- reads

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
    private <T> T readOpen(String what, Read<T> read) {
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

    @Override
    public Optional<Memory> get(String id) {
        Objects.requireNonNull(id, "id");
        return read("read memory " + id, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE m.id = ?")) {
                ps.setString(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(Rows.memory(rs).memory()) : Optional.empty();
                }
            }
        });
    }

    @Override
    public Optional<SourceState> source(Path file) {
        Objects.requireNonNull(file, "file");
        String path = options.redactor().redactPath(file.toAbsolutePath().normalize()).toString();
        return read("read the checkpoint of " + path, c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT " + Rows.SOURCE_COLUMNS + " FROM sources WHERE path = ?")) {
                ps.setString(1, path);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(Rows.source(rs)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public StoreStats stats() {
        return read("compute statistics", c -> {
            long memories = Rows.single(c, "SELECT count(*) FROM memories");
            long sessions = Rows.single(c, "SELECT count(*) FROM sessions");
            long sources = Rows.single(c, "SELECT count(*) FROM sources");
            long vectors = Rows.single(c, "SELECT count(*) FROM vectors");
            Map<String, Long> byAgent = grouped(c, "SELECT agent, count(*) FROM memories GROUP BY agent");
            Map<String, Long> byKind = grouped(c, "SELECT kind, count(*) FROM memories GROUP BY kind");
            long databaseBytes = 0;
            for (String suffix : new String[] {"", "-wal", "-shm"}) {
                Path p = dir.resolve(DATABASE_FILE + suffix);
                try {
                    databaseBytes += Files.exists(p) ? Files.size(p) : 0;
                } catch (IOException e) {
                    LOG.debug("Cannot size {}: {}", p, e.toString());
                }
            }
            return new StoreStats(memories, sessions, sources, vectors, byAgent, byKind, modelId, dimension,
                    databaseBytes, ann.fileBytes(), Redactions.read(c));
        });
    }

    @Override
    public List<SessionInfo> recentSessions(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        }
        // Times are stored fixed-width (Rows.instant), so text order is time order.
        return read("list recent sessions", c -> {
            try (PreparedStatement ps = c.prepareStatement("""
                    SELECT agent, session, project, first_at, last_at, memories FROM sessions
                    ORDER BY last_at IS NULL, last_at DESC, agent, session LIMIT ?""")) {
                ps.setInt(1, limit);
                List<SessionInfo> sessions = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        sessions.add(new SessionInfo(rs.getString(1), rs.getString(2), rs.getString(3),
                                Rows.instant(rs.getString(4)), Rows.instant(rs.getString(5)), rs.getLong(6)));
                    }
                }
                return sessions;
            }
        });
    }

    private static Map<String, Long> grouped(Connection c, String sql) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }

    // ---------------------------------------------------------------- search

    @Override
    public List<SearchHit> search(SearchRequest request) {
        Objects.requireNonNull(request, "request");
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            int k = Math.max(options.candidates(), 10 * request.limit());
            try {
                return readOpen("search", c -> search(c, request, k));
            } catch (UncheckedIOException e) {
                throw new StoreException("cannot read the ANN index of " + dir + " (" + e.getCause()
                        + "): close the store and open it again to rebuild the index from SQLite", e);
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /**
     * Whether a hybrid search ranks its full-text candidates on a {@link SearchThreads} thread
     * while the caller embeds the query and searches the dense index (the default), or does one
     * after the other; the results are the same. For tests.
     */
    void overlapLexical(boolean overlap) {
        this.overlapLexical = overlap;
    }

    private List<SearchHit> search(Connection c, SearchRequest request, int k) throws SQLException {
        ann.catchUp(c); // vectors another process (or this one, a moment ago) committed, a new manifest
        SqlFilter filter = SqlFilter.of(request);
        boolean dense = request.retrieval() != Retrieval.LEXICAL;
        // A filter many memories pass is applied after a wider unfiltered dense search: reading
        // the vectors it passes first would read much of the store (0.45 s at 1M for half of it).
        int wide = dense && !filter.isEmpty() ? wideCandidates(c, filter, k) : 0;
        VectorIdSet allowed = !dense || filter.isEmpty() || wide > 0 ? null : allowedVectors(c, filter);
        List<String> queryTerms = FtsQuery.terms(request.query()); // also for the rerank stage's proximity
        List<String> terms = request.retrieval() == Retrieval.DENSE ? List.of() : queryTerms;
        // After catchUp's reads, so the records are those of this transaction's snapshot.
        TermCounts.Generation counts = terms.isEmpty() ? null : termCounts.sync(c);

        // The full-text ranking reads through this search's connection (one read transaction, one
        // state of the database) on another thread, while this one, which leaves the connection
        // alone meanwhile, embeds the query and searches the dense index (no SQL).
        Future<Lexical> pending = dense && !terms.isEmpty() && overlapLexical
                ? searchThreads.submit(() -> lexicalCandidates(c, terms, filter, k, counts)) : null;
        float[] query = null;
        List<SegmentedIndex.Hit> denseHits;
        try {
            query = dense ? embedQuery(request) : null;
            denseHits = !dense ? List.of()
                    : wide > 0 ? ann.searchWide(query, wide, k) : denseCandidates(query, allowed, k);
        } catch (RuntimeException | Error e) { // an Error too (say, the ONNX runtime's): never leave the task on it
            if (pending != null) {
                try {
                    SearchThreads.await(pending); // the connection goes back to the pool after the task
                } catch (ExecutionException suppressed) {
                    e.addSuppressed(suppressed.getCause());
                }
            }
            throw e;
        }

        Fusion fusion = new Fusion(options.fusion(), request.retrieval());
        // Rows read for this search, by seq: a memory that is both a dense and a lexical candidate
        // is read once.
        Map<Long, Memory> rows = new HashMap<>();
        Lexical lexical = null;
        if (pending != null) {
            lexical = awaitLexical(pending);
        }
        if (wide > 0 && !denseHits.isEmpty()) {
            denseHits = filterWide(c, query, denseHits, wide, filter, k);
        }
        if (!denseHits.isEmpty()) {
            Map<Long, List<Rows.StoredMemory>> byVector = memoriesOfVectors(c, denseHits, rows);
            int rank = 0;
            for (SegmentedIndex.Hit hit : denseHits) {
                boolean any = false;
                for (Rows.StoredMemory stored : byVector.getOrDefault(hit.id(), List.of())) {
                    Memory m = stored.memory();
                    if (request.matches(m)) {
                        if (!any) {
                            any = true;
                            rank++;
                        }
                        fusion.dense(m, rank, hit.score());
                    }
                }
            }
        }

        if (!terms.isEmpty()) {
            if (lexical == null) {
                lexical = lexicalCandidates(c, terms, filter, k, counts);
            }
            readMemories(c, lexical.seqs(), lexical.count(), rows);
            int rank = 0;
            for (int i = 0; i < lexical.count(); i++) {
                Memory m = rows.get(lexical.seqs()[i]);
                if (m != null && request.matches(m)) {
                    // FTS5's bm25() is lower-is-better; ScoreParts wants higher-is-better.
                    fusion.lexical(m, ++rank, -lexical.bm25()[i]);
                }
            }
        }
        // Passages roll up to the memories they belong to: ask for more, so that k hits remain.
        List<SearchHit> ranked = Rerank.apply(fusion.ranked(), queryTerms, options.rerank(),
                Rollup.CANDIDATES_PER_HIT * request.limit());
        return Rollup.apply(ranked, request.limit(), ids -> memoriesById(c, ids));
    }

    /** The stored memories with these ids, by id; ids not stored are absent. */
    private static Map<String, Memory> memoriesById(Connection c, List<String> ids) throws SQLException {
        Map<String, Memory> found = new HashMap<>();
        readRows(c, "id", ids, PreparedStatement::setString, m -> found.put(m.memory().id(), m.memory()));
        return found;
    }

    private float[] embedQuery(SearchRequest request) {
        float[] query = embedder.embedQuery(request.query());
        if (query == null || query.length != dimension) {
            throw new EmbeddingException("the embedder " + modelId + " returned a query vector of length "
                    + (query == null ? 0 : query.length) + ", expected " + dimension);
        }
        return query;
    }

    /** The dense candidates among the allowed vectors (all: null); none when the filters leave none. */
    private List<SegmentedIndex.Hit> denseCandidates(float[] query, VectorIdSet allowed, int k) {
        if (allowed != null && allowed.size() == 0) {
            return List.of();
        }
        return ann.search(query, k, allowed);
    }

    /**
     * The first {@code k} of a wide search's vectors that have a memory passing the filter (as
     * {@link #allowedVectors} decides), best first. When fewer pass and the index holds more
     * vectors, one more wide search is sized by the share that passed among these (the query's
     * neighbourhood, not the store); when that would ask for more than
     * {@value #WIDE_RETRY_MAX_FACTOR} times {@code k}, or still finds too few, the filtered search.
     */
    private List<SegmentedIndex.Hit> filterWide(Connection c, float[] query, List<SegmentedIndex.Hit> hits, int wide,
                                                SqlFilter filter, int k) throws SQLException {
        wideSearches.incrementAndGet();
        List<SegmentedIndex.Hit> kept = passingHits(c, hits, filter, k);
        if (kept.size() < k && hits.size() == wide) {
            double share = Math.max(kept.size(), 1) / (double) wide;
            double retry = Math.ceil(k * WIDE_MARGIN / share);
            if (retry <= (double) WIDE_RETRY_MAX_FACTOR * k) {
                wideRetries.incrementAndGet();
                int more = (int) retry;
                hits = ann.searchWide(query, more, k);
                kept = passingHits(c, hits, filter, k);
                wide = more;
            }
        }
        if (kept.size() < k && hits.size() == wide) {
            wideFallbacks.incrementAndGet();
            return denseCandidates(query, allowedVectors(c, filter), k);
        }
        return kept;
    }

    /** The first {@code k} of {@code hits} with a memory passing the filter, checked in SQL by vector id. */
    private static List<SegmentedIndex.Hit> passingHits(Connection c, List<SegmentedIndex.Hit> hits, SqlFilter filter,
                                                        int k) throws SQLException {
        Set<Long> passing = new HashSet<>();
        // No DISTINCT: the set drops repeats.
        try (PreparedStatement ps = c.prepareStatement("SELECT m.vector_id FROM json_each(?) j"
                + " CROSS JOIN memories m INDEXED BY " + Schema.VECTOR_INDEX + " WHERE m.vector_id = j.value"
                + filter.sql())) {
            filter.bind(ps, 2);
            ps.setString(1, SqlArrays.jsonArray(i -> hits.get(i).id(), 0, hits.size()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    passing.add(rs.getLong(1));
                }
            }
        }
        List<SegmentedIndex.Hit> kept = new ArrayList<>(k);
        for (SegmentedIndex.Hit hit : hits) {
            if (kept.size() == k) {
                break;
            }
            if (passing.contains(hit.id())) {
                kept.add(hit);
            }
        }
        return kept;
    }

    /**
     * How many unfiltered dense candidates to search for a filter many memories pass, or 0 to read
     * the vectors it passes first. The share passing is estimated on {@value #FILTER_SAMPLE} rows
     * spread evenly over the row numbers (primary-key lookups); a share of {@code p} asks for
     * {@code k * }{@value #WIDE_MARGIN}{@code  / p} candidates, and 0 when that is more than
     * {@value #WIDE_MAX_FACTOR} times {@code k}. When fewer than {@code k} of them pass,
     * {@link #filterWide} searches wider once or falls back to the filtered search.
     */
    private int wideCandidates(Connection c, SqlFilter filter, int k) throws SQLException {
        long maxSeq;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT max(seq) FROM memories")) {
            maxSeq = rs.next() ? rs.getLong(1) : 0;
        }
        if (maxSeq < wideFilterMinRows) {
            return 0;
        }
        long last = maxSeq;
        String seqs = SqlArrays.jsonArray(i -> 1 + i * last / FILTER_SAMPLE, 0, FILTER_SAMPLE);
        // total() of the filter's condition: 1 where it holds, 0 or NULL (not counted) where not.
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), total(1 = 1" + filter.sql()
                + ") FROM json_each(?) j CROSS JOIN memories m NOT INDEXED WHERE m.seq = j.value")) {
            ps.setString(filter.bind(ps, 1), seqs);
            try (ResultSet rs = ps.executeQuery()) {
                long found = rs.next() ? rs.getLong(1) : 0;
                double passing = rs.getDouble(2);
                if (found < FILTER_SAMPLE / 4 || passing == 0) {
                    return 0; // mostly deleted rows, or a rare filter
                }
                double wanted = Math.ceil(k * WIDE_MARGIN * found / passing);
                return wanted <= (double) WIDE_MAX_FACTOR * k ? (int) wanted : 0;
            }
        }
    }

    /**
     * From how many rows (the largest row number) a filtered dense search estimates the share of
     * memories its filter passes and, when many do, searches the dense index unfiltered and
     * filters after ({@link #wideCandidates}); default {@value #WIDE_FILTER_MIN_ROWS}, and
     * {@link Long#MAX_VALUE} turns this off. For tests and benchmarks.
     */
    void wideFilterMinRows(long rows) {
        this.wideFilterMinRows = rows;
    }

    /**
     * Dense searches done wide so far, how many of them searched wider a second time, and how many
     * fell back to the filtered search. For tests.
     */
    long[] wideSearches() {
        return new long[] {wideSearches.get(), wideRetries.get(), wideFallbacks.get()};
    }

    private static Lexical awaitLexical(Future<Lexical> pending) throws SQLException {
        try {
            return SearchThreads.await(pending);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException se) {
                throw se;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** The best full-text matches, best first: their rows ({@code memories.seq}) and bm25 scores. */
    record Lexical(long[] seqs, double[] bm25, int count) {

        /**
         * The best {@code k} of two lists of disjoint rows, each sorted by bm25 then row: the
         * order of one query over both.
         */
        static Lexical merge(Lexical a, Lexical b, int k) {
            int n = Math.min(k, a.count + b.count);
            long[] seqs = new long[n];
            double[] scores = new double[n];
            int i = 0;
            int j = 0;
            for (int o = 0; o < n; o++) {
                boolean fromA = j == b.count || (i < a.count && (a.bm25[i] < b.bm25[j]
                        || (a.bm25[i] == b.bm25[j] && a.seqs[i] < b.seqs[j])));
                if (fromA) {
                    seqs[o] = a.seqs[i];
                    scores[o] = a.bm25[i++];
                } else {
                    seqs[o] = b.seqs[j];
                    scores[o] = b.bm25[j++];
                }
            }
            return new Lexical(seqs, scores, n);
        }
    }

    /**
     * What the lexical step of a search for {@code query} searches for under the store's
     * {@linkplain StoreOptions#lexicalBudget() postings budget}: the terms kept and dropped, with
     * their counts. For tests and probes.
     */
    PostingsBudget.Plan lexicalPlan(String query) {
        List<String> terms = FtsQuery.terms(query);
        if (terms.isEmpty()) {
            return new PostingsBudget.Plan(List.of(), List.of(), new long[0]);
        }
        return read("plan a lexical query", c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 FROM meta LIMIT 1")) {
                rs.next(); // the read transaction's first read: its snapshot, before the data version
            }
            return PostingsBudget.plan(c, terms, options.lexicalBudget(), termCounts.sync(c));
        });
    }

    /**
     * Whether the full-text ranking of a search that matches at least {@code postings} postings
     * (the document frequencies of its terms, summed) is split in two row ranges ranked at once on
     * two read connections; {@link Long#MAX_VALUE} never splits. The results are the same. For
     * tests and benchmarks.
     */
    void splitLexicalAt(long postings) {
        if (postings < 1) {
            throw new IllegalArgumentException("postings must be >= 1, was " + postings);
        }
        this.splitLexicalAt = postings;
    }

    /** How many term counts the postings budget took from its cache so far ({@link TermCounts}). For tests. */
    long termCountHits() {
        return termCounts.hits();
    }

    /** How many full-text rankings were split in two so far ({@link #splitLexicalAt}). For tests. */
    long lexicalSplits() {
        return lexicalSplits.get();
    }

    /**
     * The {@code k} best full-text matches by bm25, ties to the lower row, for the query's terms
     * that fit the postings budget ({@link PostingsBudget}). They are ranked on the
     * FTS5 index alone (the row number and the score, a narrow sort); the memories table is
     * joined only to apply filters, and no memory is read here: the caller reads the winners.
     * Reading and sorting every match's whole row made this step the bulk of a search once a
     * query matched tens of thousands of memories (docs/BENCHMARKS.md).
     *
     * <p>Unless a term is several tokens, or the terms hold more than
     * {@link Bm25Ranking#MAX_POSTINGS} postings, or a filter passes too few of the best matches,
     * the ranking is computed by {@link Bm25Ranking} from the postings: the same rows and scores,
     * at about a quarter of the cost on the 1M benchmark store. Otherwise FTS5 ranks, as follows.
     *
     * <p>FTS5 computes bm25 for every match, about 1.5 µs each, and that is the bulk of a large
     * store's search. When a query matches at least {@link #splitLexicalAt} postings and another
     * read connection is idle, the rows are split at the middle match: this connection ranks the
     * lower rows while a {@link SearchThreads} thread ranks the upper ones through the other
     * connection, and the two sorted lists are merged. FTS5's bm25 takes its statistics (the row
     * count, the average length, each term's document frequency) from the whole table whatever
     * the rowid range, so every score, and the merged list, is the one a single query gives. The
     * other connection's read transaction must see the same full-text index as this one (FTS5's
     * structure and averages records compared, {@link TermCounts}); after a write committed
     * between the two, the ranking is not split.
     */
    private Lexical lexicalCandidates(Connection c, List<String> terms, SqlFilter filter, int k,
                                      TermCounts.Generation counts) throws SQLException {
        PostingsBudget.Plan plan = PostingsBudget.plan(c, terms, options.lexicalBudget(), counts);
        if (rankInJava) {
            long postings = plan.keptPostings() >= 0 ? plan.keptPostings()
                    : countPostings(c, plan.kept(), Bm25Ranking.MAX_POSTINGS + 1, counts);
            if (postings <= Bm25Ranking.MAX_POSTINGS) {
                Lexical ranked = bm25.rank(c, plan.kept(), counts, k, filter);
                if (ranked != null) {
                    javaRankings.incrementAndGet();
                    return ranked;
                }
            }
        }
        String match = FtsQuery.match(plan.kept());
        Connection other = idleReaders.poll(); // no idle connection: no split, and nothing to count for one
        if (other != null) {
            try {
                long postings = plan.keptPostings() >= 0 ? plan.keptPostings()
                        : PostingsBudget.count(c, match, splitLexicalAt);
                if (postings >= splitLexicalAt) {
                    Lexical split = splitLexical(c, other, match, postings, filter, k, counts);
                    if (split != null) {
                        return split;
                    }
                }
            } finally {
                idleReaders.add(other);
            }
        }
        return rankLexical(c, match, filter, k, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * Loads every full-text row's token count into {@code cache} on a search thread, through an
     * idle read connection in a read transaction of its own; nothing when none is idle (a
     * later search asks again) or the store is closing. {@link #close} waits for it (search
     * threads end before the connections close), and it stops within a few thousand rows.
     */
    private void loadTokenCounts(DocLengths.View cache) {
        if (closing) {
            return;
        }
        searchThreads.submit(() -> {
            Connection c = closing ? null : idleReaders.poll();
            if (c == null) {
                cache.releaseLoad();
                return null;
            }
            try {
                c.setAutoCommit(false);
                try {
                    long started = System.nanoTime();
                    if (cache.loadAll(c, () -> closing)) {
                        LOG.debug("Read the token counts of {} in {} ms", dir, (System.nanoTime() - started) / 1_000_000);
                    }
                } finally {
                    endRead(c);
                }
            } catch (SQLException | RuntimeException e) {
                LOG.debug("Cannot read the token counts of {}: {}", dir, e.toString());
            } finally {
                idleReaders.add(c);
            }
            return null;
        });
    }

    /** The postings of {@code terms} summed, each counted up to {@code cap} (from the generation's counts when it has them). */
    private static long countPostings(Connection c, List<String> terms, long cap, TermCounts.Generation counts)
            throws SQLException {
        long sum = 0;
        for (String term : terms) {
            long count = counts.get(term, cap);
            if (count < 0) {
                count = PostingsBudget.count(c, FtsQuery.match(List.of(term)), cap);
                counts.put(term, count, cap);
            }
            sum += count;
        }
        return sum;
    }

    /**
     * Whether full-text rankings are computed by {@link Bm25Ranking} where it can (the default)
     * or always by FTS5's {@code bm25()}; the results are the same. For tests and benchmarks.
     */
    void rankInJava(boolean java) {
        this.rankInJava = java;
    }

    /** How many full-text rankings {@link Bm25Ranking} computed so far. For tests. */
    long javaRankings() {
        return javaRankings.get();
    }

    /** The ranking computed in Java. For tests. */
    Bm25Ranking bm25Ranking() {
        return bm25;
    }

    /**
     * {@link #lexicalCandidates} ranked in two row ranges at once, or null when the matches do
     * not reach the middle one (the postings counted terms that share rows).
     */
    private Lexical splitLexical(Connection c, Connection other, String match, long postings, SqlFilter filter, int k,
                                 TermCounts.Generation index) throws SQLException {
        long middle;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid LIMIT 1 OFFSET ?")) {
            ps.setString(1, match);
            ps.setLong(2, postings / 2);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                middle = rs.getLong(1);
            }
        }
        other.setAutoCommit(false);
        Future<Lexical> upper;
        try {
            if (!index.sameIndex(other)) { // the transaction's first read: its snapshot
                endRead(other);
                return null;
            }
            upper = searchThreads.submit(() -> {
                try {
                    // The same full-text index: the same rows up to the last.
                    return rankLexical(other, match, filter, k, middle, Long.MAX_VALUE);
                } finally {
                    endRead(other);
                }
            });
        } catch (SQLException | RuntimeException | Error e) {
            endRead(other);
            throw e;
        }
        Lexical lower;
        try {
            lower = rankLexical(c, match, filter, k, Long.MIN_VALUE, middle - 1);
        } catch (SQLException | RuntimeException | Error e) {
            try {
                SearchThreads.await(upper); // the other connection goes back to the pool after the task
            } catch (ExecutionException suppressed) {
                e.addSuppressed(suppressed.getCause());
            }
            throw e;
        }
        lexicalSplits.incrementAndGet();
        return Lexical.merge(lower, awaitLexical(upper), k);
    }

    /**
     * The full-text ranking's SQL: the MATCH, then {@code rowid BETWEEN ? AND ?} when
     * {@code range}, then the filter's parameters, then the limit. With filters the memories are
     * joined with {@code CROSS JOIN ... NOT INDEXED}: FTS5 stays the outer loop and each match
     * finds its memory by primary key. Given a rowid range (or statistics from {@code ANALYZE}),
     * SQLite would otherwise start from an index of the memories (the session's, say) and run the
     * MATCH once per memory, or scan that index once per match (the LoCoMo evaluation's searches,
     * filtered by session, took about 20 times longer the first way).
     */
    static String lexicalSql(SqlFilter filter, boolean range) {
        if (filter.isEmpty()) {
            return "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
                    + (range ? " AND rowid BETWEEN ? AND ?" : "") + " ORDER BY bm25(memories_fts), rowid LIMIT ?";
        }
        return "SELECT memories_fts.rowid, bm25(memories_fts) FROM memories_fts"
                + " CROSS JOIN memories m NOT INDEXED ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ?"
                + (range ? " AND memories_fts.rowid BETWEEN ? AND ?" : "") + filter.sql()
                + " ORDER BY bm25(memories_fts), memories_fts.rowid LIMIT ?";
    }

    /** Ends the read transaction of {@code c} (nothing was written), back to auto-commit. */
    private static void endRead(Connection c) throws SQLException {
        try {
            c.rollback();
        } finally {
            c.setAutoCommit(true);
        }
    }

    /** The {@code k} best full-text matches among the rows {@code from} to {@code to}, both included. */
    private static Lexical rankLexical(Connection c, String match, SqlFilter filter, int k, long from, long to)
            throws SQLException {
        boolean range = from != Long.MIN_VALUE || to != Long.MAX_VALUE;
        String sql = lexicalSql(filter, range);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            ps.setString(i++, match);
            if (range) {
                ps.setLong(i++, from);
                ps.setLong(i++, to);
            }
            i = filter.bind(ps, i);
            ps.setInt(i, k);
            long[] seqs = new long[Math.min(k, 1024)];
            double[] scores = new double[seqs.length];
            int n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (n == seqs.length) {
                        seqs = Arrays.copyOf(seqs, n * 2);
                        scores = Arrays.copyOf(scores, n * 2);
                    }
                    seqs[n] = rs.getLong(1);
                    scores[n++] = rs.getDouble(2);
                }
            }
            return new Lexical(seqs, scores, n);
        }
    }

    /** Reads the memories of the first {@code count} rows ({@code seq}) that {@code rows} lacks into it. */
    private static void readMemories(Connection c, long[] seqs, int count, Map<Long, Memory> rows)
            throws SQLException {
        List<Long> missing = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (!rows.containsKey(seqs[i])) {
                missing.add(seqs[i]);
            }
        }
        readRows(c, "seq", missing, PreparedStatement::setLong, m -> rows.put(m.seq(), m.memory()));
    }

    /** Binds one key of an IN list. */
    @FunctionalInterface
    private interface Binder<K> {
        void bind(PreparedStatement ps, int index, K key) throws SQLException;
    }

    /** Reads the memories whose {@code column} is one of {@code keys}, in IN lists of {@link #IN_LIST_CHUNK}. */
    private static <K> void readRows(Connection c, String column, List<K> keys, Binder<K> binder,
                                     java.util.function.Consumer<Rows.StoredMemory> each) throws SQLException {
        for (int from = 0; from < keys.size(); from += IN_LIST_CHUNK) {
            List<K> chunk = keys.subList(from, Math.min(from + IN_LIST_CHUNK, keys.size()));
            String sql = "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE m." + column + " IN ("
                    + "?,".repeat(chunk.size() - 1) + "?)";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < chunk.size(); i++) {
                    binder.bind(ps, i + 1, chunk.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        each.accept(Rows.memory(rs));
                    }
                }
            }
        }
    }

    /**
     * The memories using each vector, in storage order; vectors without memories are absent.
     * Every memory read is also put in {@code rows} by its {@code seq}.
     */
    private static Map<Long, List<Rows.StoredMemory>> memoriesOfVectors(Connection c, List<SegmentedIndex.Hit> vectors,
                                                                        Map<Long, Memory> rows) throws SQLException {
        Map<Long, List<Rows.StoredMemory>> byVector = new HashMap<>();
        for (int from = 0; from < vectors.size(); from += IN_LIST_CHUNK) {
            List<SegmentedIndex.Hit> chunk = vectors.subList(from, Math.min(from + IN_LIST_CHUNK, vectors.size()));
            // No ORDER BY: SQLite would copy every whole row into a sorter first, which doubled
            // the cost of this read on a large store; the few memories of each vector are sorted below.
            String sql = "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE m.vector_id IN ("
                    + "?,".repeat(chunk.size() - 1) + "?)";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < chunk.size(); i++) {
                    ps.setLong(i + 1, chunk.get(i).id());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Rows.StoredMemory m = Rows.memory(rs);
                        byVector.computeIfAbsent(m.vectorId(), id -> new ArrayList<>(1)).add(m);
                        rows.put(m.seq(), m.memory());
                    }
                }
            }
        }
        for (List<Rows.StoredMemory> memories : byVector.values()) {
            if (memories.size() > 1) {
                memories.sort(Comparator.comparingLong(Rows.StoredMemory::seq));
            }
        }
        return byVector;
    }

    private static VectorIdSet allowedVectors(Connection c, SqlFilter filter) throws SQLException {
        // No DISTINCT: VectorIdSet drops repeats, cheaper than SQLite's temporary B-tree.
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT m.vector_id FROM memories m WHERE 1 = 1" + filter.sql())) {
            filter.bind(ps, 1);
            long[] ids = new long[64];
            int n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (n == ids.length) {
                        ids = Arrays.copyOf(ids, n * 2);
                    }
                    ids[n++] = rs.getLong(1);
                }
            }
            return VectorIdSet.of(ids, n);
        }
    }

    // ---------------------------------------------------------------- lifecycle

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the store " + dir + " is closed");
        }
    }

    @Override
    public void close() {
        closing = true;
        lifecycle.writeLock().lock(); // waits for operations in flight
        try {
            if (closed) {
                return;
            }
            closed = true;
            try {
                ann.catchUp(writer); // what other processes committed, so that the seal covers every vector
            } catch (SQLException | RuntimeException e) {
                LOG.debug("Cannot catch up with the vectors of {} before closing: {}", dir, e.toString());
            }
            try {
                ann.close(); // seals the memtable into a segment, when this store maintains the index
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot close the dense index of {} (the next open rebuilds what is missing): {}", dir,
                        e.toString());
            }
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

    @Override
    public String toString() {
        return "FunesStore[" + dir + ", " + modelId + ", " + ann + "]";
    }
}
