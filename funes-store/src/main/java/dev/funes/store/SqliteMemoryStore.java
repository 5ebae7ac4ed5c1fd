package dev.funes.store;

import dev.funes.AddResult;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SourceCheckpoints;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SessionInfo;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;
import dev.funes.StoreException;
import dev.funes.StoreStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The {@link MemoryStore} over one directory: SQLite ({@code funes.db}) as the source of truth and
 * a derived dense index of JVector segments ({@code index/}, {@link SegmentedIndex}); see docs/STORE-FORMAT.md.
 *
 * <p>It hands each call to the part that does it: the database's connections, transactions and
 * lifecycle ({@link StoreDatabase}), the write path ({@link MemoryWriter}), searches
 * ({@link HybridSearch}, over {@link LexicalRetriever} and {@link DenseRetriever}); the simple
 * reads are here.
 *
 * <p>Read-only: a store whose directory or database file cannot be written (permissions, a
 * read-only file system) opens for reading only. Searches and reads work; every write fails
 * with a {@link StoreException} saying so; nothing is migrated, rebuilt or sealed on disk (the
 * dense index searches what its files lack from memory).
 */
final class SqliteMemoryStore implements MemoryStore, SourceCheckpoints {

    private static final Logger LOG = LoggerFactory.getLogger(SqliteMemoryStore.class);

    /** {@link StoreDatabase#DATABASE_FILE}, by the name {@link StoreCheck} and tests use. */
    static final String DATABASE_FILE = StoreDatabase.DATABASE_FILE;
    /** {@link StoreDatabase#DAMAGE_ADVICE}, by the name {@link StoreCheck} uses. */
    static final String DAMAGE_ADVICE = StoreDatabase.DAMAGE_ADVICE;

    private final StoreDatabase db;
    private final StoreOptions options;
    private final String modelId;
    private final int dimension;
    private final StoreIndex ann;
    private final MemoryWriter writes;
    private final LexicalRetriever lexical;
    private final DenseRetriever dense;
    private final HybridSearch search;
    /** The database's version found at open (0: created), for {@link #openReport()}. */
    private final int foundVersion;
    private volatile OpenReport openReport;

    private SqliteMemoryStore(StoreDatabase db, Embedder embedder, StoreOptions options, SearchTuning tuning,
                              StoreIndex ann, int foundVersion) {
        this.db = db;
        this.options = options;
        this.modelId = embedder.modelId();
        this.dimension = embedder.dimension();
        this.ann = ann;
        this.foundVersion = foundVersion;
        this.writes = new MemoryWriter(db, embedder, options, ann);
        this.lexical = new LexicalRetriever(db, options, tuning);
        this.dense = new DenseRetriever(ann, embedder, tuning);
        this.search = new HybridSearch(db, options, tuning, dense, lexical);
    }

    /** Opens or creates the store in {@code dir}; see {@link FunesStore#open(Path, Embedder, StoreOptions)}. */
    static SqliteMemoryStore open(Path dir, Embedder embedder, StoreOptions options) {
        return open(dir, embedder, options, SearchTuning.DEFAULT);
    }

    /** {@link #open(Path, Embedder, StoreOptions)}, its searches done the ways {@code tuning} says. */
    static SqliteMemoryStore open(Path dir, Embedder embedder, StoreOptions options, SearchTuning tuning) {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(embedder, "embedder");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(tuning, "tuning");
        Path directory = dir.toAbsolutePath().normalize();
        StoreDatabase db = StoreDatabase.open(directory, embedder, options);
        try {
            IndexSegment.Identity identity = new IndexSegment.Identity(db.storeId(), embedder.modelId(),
                    embedder.dimension());
            StoreIndex ann = options.indexOnFirstUse() ? StoreIndex.onFirstUse(directory, identity, options, db)
                    : StoreIndex.open(directory, identity, options, db.writer());
            SqliteMemoryStore store = new SqliteMemoryStore(db, embedder, options, tuning, ann, db.foundVersion());
            LOG.info("Opened Funes store {} ({}{}): {}", directory, store.modelId, db.isReadOnly() ? ", read-only" : "",
                    ann.isOpen() ? store.openReport().summary() : "dense index opened on first use");
            return store;
        } catch (SQLException | IOException | RuntimeException e) {
            throw StoreDatabase.failedOpen(directory, db.connections(), e);
        }
    }

    /** {@link StoreDatabase#connect}, by the name {@link StoreCheck} uses. */
    static Connection connect(Path file, boolean readOnly) throws SQLException {
        return StoreDatabase.connect(file, readOnly);
    }

    /** {@link StoreDatabase#message}, by the name {@link StoreCheck} uses. */
    static String message(Exception e) {
        return StoreDatabase.message(e);
    }

    /** {@link StoreDatabase#damaged}, by the name {@link StoreCheck} uses. */
    static boolean damaged(Throwable e) {
        return StoreDatabase.damaged(e);
    }

    /** The dense index (tests: what its open did, {@link StoreIndex#outcome()}). */
    StoreIndex denseIndex() {
        return ann;
    }

    /** The full-text side of searches (tests: its counters, {@link LexicalRetriever#plan}). */
    LexicalRetriever lexical() {
        return lexical;
    }

    /** The dense side of searches (tests: its counters). */
    DenseRetriever dense() {
        return dense;
    }

    /** The database: its read and write transactions, for the store's other views and tests. */
    StoreDatabase database() {
        return db;
    }

    /** The write path, for the writers of the store's other views ({@link CallerVectors}, imports). */
    MemoryWriter writes() {
        return writes;
    }

    /** What opening the store did; a dense index opened on first use opens now. */
    OpenReport openReport() {
        OpenReport report = openReport;
        if (report == null) {
            StoreIndex.Outcome outcome = ann.outcome();
            int schema = db.read("read the schema version", Schema::version);
            report = new OpenReport(foundVersion == 0, foundVersion, schema, outcome.rebuilt(), outcome.reason(),
                    (int) outcome.segmentVectors(), outcome.memtableVectors(), ann.openTime());
            openReport = report;
        }
        return report;
    }

    /** The store's directory. */
    Path dir() {
        return db.dir();
    }

    /** The embedding model's id. */
    String modelId() {
        return modelId;
    }

    /** The embedding model's vector dimension. */
    int dimension() {
        return dimension;
    }

    /** Whether this store was opened read-only ({@link StoreDatabase#readOnly(Path, Path)}). */
    boolean isReadOnly() {
        return db.isReadOnly();
    }

    // ---------------------------------------------------------------- writes

    @Override
    public AddResult addAll(Collection<Memory> memories) {
        return writes.addAll(memories, null);
    }

    /** This store keeps the checkpoints of the logs it was filled from: it is its own. */
    @Override
    public Optional<SourceCheckpoints> checkpoints() {
        return Optional.of(this);
    }

    @Override
    public AddResult addAll(Collection<Memory> memories, SourceState source) {
        return writes.addAll(memories, source);
    }

    @Override
    public SourceUpdate replaceSource(Collection<Memory> memories, SourceState source, Set<String> keep) {
        return writes.replaceSource(memories, source, keep);
    }

    @Override
    public SourceUpdate updateSource(Collection<Memory> memories, SourceState source, Set<String> keep,
                                     Set<String> replace) {
        return writes.updateSource(memories, source, keep, replace);
    }

    @Override
    public boolean delete(String id) {
        return writes.delete(id);
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<Memory> get(String id) {
        Objects.requireNonNull(id, "id");
        return db.read("read memory " + id, c -> {
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
        return db.read("read the checkpoint of " + path, c -> {
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
        return db.read("compute statistics", c -> {
            Counts n = counts(c);
            long databaseBytes = 0;
            for (String suffix : new String[] {"", "-wal", "-shm"}) {
                Path p = db.dir().resolve(DATABASE_FILE + suffix);
                try {
                    databaseBytes += Files.exists(p) ? Files.size(p) : 0;
                } catch (IOException e) {
                    LOG.debug("Cannot size {}: {}", p, e.toString());
                }
            }
            return new StoreStats(n.memories(), n.sessions(), n.sources(), n.vectors(), n.byAgent(), n.byKind(), modelId,
                    dimension, databaseBytes, ann.fileBytes(c), Redactions.read(c));
        });
    }

    /** The row counts of {@link #stats}, as of one read connection's {@code PRAGMA data_version}. */
    private record Counts(long dataVersion, long memories, long sessions, long sources, long vectors,
                          Map<String, Long> byAgent, Map<String, Long> byKind) {
    }

    /**
     * Counts per read connection, with the data version they were read at. The counts per kind scan
     * every memory (no index has the kind): 0.1-0.2 s at 100k memories, most of what a resident
     * {@code funes serve} spent answering {@code stats}. A read connection never writes, so its
     * {@code data_version}, read inside the read transaction, changes exactly when another
     * connection (this process's writer or another process) has committed since.
     */
    private final Map<Connection, Counts> counts = new java.util.concurrent.ConcurrentHashMap<>();

    private Counts counts(Connection c) throws SQLException {
        long version = Rows.single(c, "PRAGMA data_version");
        Counts known = counts.get(c);
        if (known != null && known.dataVersion() == version) {
            return known;
        }
        Counts now = new Counts(version,
                Rows.single(c, "SELECT count(*) FROM memories"),
                Rows.single(c, "SELECT count(*) FROM sessions"),
                Rows.single(c, "SELECT count(*) FROM sources"),
                Rows.single(c, "SELECT count(*) FROM vectors"),
                Map.copyOf(grouped(c, "SELECT agent, count(*) FROM memories GROUP BY agent")),
                Map.copyOf(grouped(c, "SELECT kind, count(*) FROM memories GROUP BY kind")));
        counts.put(c, now);
        return now;
    }

    @Override
    public List<SessionInfo> recentSessions(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, not " + limit);
        }
        // Times are stored fixed-width (Rows.instant), so text order is time order.
        return db.read("list recent sessions", c -> {
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
        return search.search(request);
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void close() {
        db.close(writer -> {
            if (!ann.isOpen()) {
                return; // opened on first use, and never used: nothing of it to catch up or seal
            }
            try {
                ann.catchUp(writer); // what other processes committed, so that the seal covers every vector
            } catch (SQLException | RuntimeException e) {
                LOG.debug("Cannot catch up with the vectors of {} before closing: {}", db.dir(), e.toString());
            }
            try {
                ann.close(); // seals the memtable into a segment, when this store maintains the index
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot close the dense index of {} (the next open rebuilds what is missing): {}", db.dir(),
                        e.toString());
            }
        });
    }

    @Override
    public String toString() {
        return "FunesStore[" + db.dir() + ", " + modelId + ", " + ann + "]";
    }
}
