package dev.funes.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The store's dense index: a {@link SegmentedIndex} in {@code <store>/index}, kept in step with
 * the vectors in SQLite, which stay the source of truth. Opening compares the two: ids the
 * segments hold but the database no longer has become tombstones; vectors newer than every
 * segment go to the memtable; vectors a damaged or missing segment or manifest lost are built
 * into a new segment from SQLite (logged, never fatal). While SQLite's digest of its vector ids
 * equals the index's ({@link VectorDigest}), the ids are not read one by one.
 *
 * <p>With {@link StoreOptions#indexOnFirstUse()} all of that happens when the index is first
 * needed ({@link #onFirstUse}); a write opens it before its transaction begins.
 */
final class StoreIndex implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreIndex.class);

    /** The index directory's name in the store directory. */
    static final String DIR = "index";
    /** Below this many allowed vectors, a filtered search scores them exactly. */
    private static final int EXACT_FILTER_SIZE = 2_000;
    private static final int IN_LIST_CHUNK = 500;

    /**
     * What {@link #open} did.
     *
     * @param idsCompared whether every vector id of SQLite was read and compared with the
     *                    segments' (false: the digests agreed, {@link #agreed})
     */
    record Outcome(boolean rebuilt, String reason, long segmentVectors, int memtableVectors, boolean idsCompared) {
    }

    /** An index opened, and what its open did. */
    private record Opened(SegmentedIndex index, Outcome outcome, java.time.Duration took) {
    }

    /** What an open on first use needs ({@link StoreOptions#indexOnFirstUse()}); null when opened with the store. */
    private record Deferred(Path storeDir, IndexSegment.Identity identity, StoreOptions options, StoreDatabase db) {
    }

    private final int dimension;
    private final Deferred deferred;
    private final Object opening = new Object();
    private volatile Opened opened;

    private StoreIndex(int dimension, Deferred deferred, Opened opened) {
        this.dimension = dimension;
        this.deferred = deferred;
        this.opened = opened;
    }

    static SegmentedIndex.Options options(StoreOptions options) {
        return SegmentedIndex.Options.defaults().withMemtableLimit(options.freshLimit());
    }

    /** Opens the index of the store in {@code storeDir} and brings it in step with the database. */
    static StoreIndex open(Path storeDir, IndexSegment.Identity identity, StoreOptions options, Connection db)
            throws SQLException, IOException {
        return new StoreIndex(identity.dimension(), null, openNow(storeDir, identity, options, db));
    }

    /**
     * The index of the store in {@code storeDir}, opened and brought in step with the database
     * only when first needed: by a call given a connection, on that connection (a search's read
     * transaction; the writer, before a write's transaction begins), else on the writer under the
     * store's write lock. Until then nothing of {@code index/} is read, and closing does nothing.
     */
    static StoreIndex onFirstUse(Path storeDir, IndexSegment.Identity identity, StoreOptions options,
                                 StoreDatabase db) {
        return new StoreIndex(identity.dimension(), new Deferred(storeDir, identity, options, db), null);
    }

    private static Opened openNow(Path storeDir, IndexSegment.Identity identity, StoreOptions options, Connection db)
            throws SQLException, IOException {
        long started = System.nanoTime();
        SegmentedIndex index = SegmentedIndex.open(storeDir.resolve(DIR), identity, options(options));
        try {
            Outcome outcome = reconcile(index, identity.dimension(), db);
            return new Opened(index, outcome, java.time.Duration.ofNanos(System.nanoTime() - started));
        } catch (SQLException | IOException | RuntimeException e) {
            try {
                index.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** How long the open took (opening the segments and reconciling them with SQLite); a deferred index opens now. */
    java.time.Duration openTime() {
        return opened().took();
    }

    /** Whether the index was opened (at once, or since by a first use). */
    boolean isOpen() {
        return opened != null;
    }

    /** The opened index; a deferred one opens now, on {@code c}. */
    private Opened opened(Connection c) {
        Opened o = opened;
        if (o != null) {
            return o;
        }
        openHere(c);
        return opened;
    }

    /** Opens a deferred index on {@code c} unless it is open; whether this call opened it. */
    private boolean openHere(Connection c) {
        if (opened != null) {
            return false;
        }
        synchronized (opening) {
            if (opened == null) {
                Deferred d = deferred;
                try {
                    opened = openNow(d.storeDir(), d.identity(), d.options(), c);
                } catch (SQLException | IOException e) {
                    throw new dev.funes.StoreException("cannot open the dense index of " + d.storeDir() + ": "
                            + StoreDatabase.message(e), e);
                }
                LOG.debug("Opened the dense index of {} on first use: {}", d.storeDir(), opened.outcome());
                return true;
            }
            return false;
        }
    }

    /** The opened index; a deferred one opens now, on the writer under the store's write lock. */
    private Opened opened() {
        Opened o = opened;
        if (o != null) {
            return o;
        }
        StoreDatabase db = deferred.db();
        return db.writing(() -> opened(db.writer()));
    }

    /**
     * Opens a deferred index now, on {@code c}: a writer calls this before its transaction, so
     * that the open reads SQLite as it was before the write.
     */
    void open(Connection c) {
        opened(c);
    }

    private static Outcome reconcile(SegmentedIndex index, int dimension, Connection db)
            throws SQLException, IOException {
        String problem = index.openProblem();
        if (problem == null) {
            Outcome agreed = agreed(index, dimension, db);
            if (agreed != null) {
                return agreed;
            }
        }
        long[] inDatabase = ids(db);
        if (inDatabase.length == 0) {
            if (index.maintainer() && index.segmentIds().length > 0) {
                index.clear();
                LOG.info("Removed the index segments of {}: the store has no vectors", index.dir());
            }
            return new Outcome(false, null, 0, 0, true);
        }
        long[] inSegments = index.segmentIds();
        // ids in both sorted arrays: deleted since (segments only) and missing (database only)
        long max = index.segmentsMaxId();
        List<Long> lost = new ArrayList<>();
        int deleted = 0;
        int i = 0;
        int j = 0;
        while (i < inSegments.length || j < inDatabase.length) {
            if (j == inDatabase.length || (i < inSegments.length && inSegments[i] < inDatabase[j])) {
                if (index.delete(inSegments[i])) {
                    deleted++;
                }
                i++;
            } else if (i == inSegments.length || inDatabase[j] < inSegments[i]) {
                if (problem != null || inDatabase[j] <= max) {
                    lost.add(inDatabase[j]);
                }
                j++;
            } else {
                i++;
                j++;
            }
        }
        if (deleted > 0) {
            LOG.debug("{} vectors of the index {} were deleted since it was written", deleted, index.dir());
        }
        String reason = problem != null ? problem
                : lost.isEmpty() ? null
                : "index is stale: " + lost.size() + " vectors up to id " + max + " are in no segment";
        if (!lost.isEmpty()) {
            LOG.info("Rebuilding {} vectors of the index {} from SQLite: {}", lost.size(), index.dir(), reason);
            List<SegmentedIndex.Entry> entries = load(db, lost, dimension);
            boolean written = false;
            if (index.maintainer()) {
                try {
                    index.addSegment(entries);
                    written = true;
                } catch (IOException | RuntimeException e) {
                    LOG.warn("Cannot write the index {} ({}); searching those vectors from memory", index.dir(),
                            e.toString());
                }
            }
            if (!written) {
                index.addMissing(entries);
            }
        }
        if (problem == null) {
            index.addMissing(loadAfter(db, max, dimension));
        }
        return new Outcome(reason != null, reason, index.segmentVectors(), index.memtableVectors(), true);
    }

    /**
     * The open without reading every vector id, when it is safe: the segments all loaded, and
     * SQLite's digest of its vector ids (kept by triggers, {@link VectorDigest}) equals the digest
     * of the segments' live ids plus the ids newer than every segment, which go to the memtable.
     * Then SQLite holds exactly the segments' live ids up to their largest one: nothing was
     * deleted by another process that the index did not record, and no vector sealed nowhere
     * (a memtable lost in a crash) is missing. Database work: the digest twice (a writer that
     * commits in between sends the open to the full comparison) and the newer vectors.
     *
     * @return the outcome, or {@code null} when the digests differ and the full comparison must run
     */
    private static Outcome agreed(SegmentedIndex index, int dimension, Connection db) throws SQLException {
        VectorDigest live = index.segmentDigest();
        if (live == null) {
            return null;
        }
        VectorDigest before = VectorDigest.ofDatabase(db);
        if (before.count() == 0) {
            return null;
        }
        List<SegmentedIndex.Entry> newer = loadAfter(db, index.segmentsMaxId(), dimension);
        if (!before.equals(VectorDigest.ofDatabase(db))) {
            return null;
        }
        VectorDigest expected = live;
        for (SegmentedIndex.Entry e : newer) {
            expected = expected.plus(e.id());
        }
        if (!expected.equals(before)) {
            LOG.debug("The index {} and SQLite's vectors differ (digest {} vs {}): comparing their ids", index.dir(),
                    expected, before);
            return null;
        }
        index.addMissing(newer);
        return new Outcome(false, null, index.segmentVectors(), index.memtableVectors(), false);
    }

    /** What the open did; a deferred index opens now. */
    Outcome outcome() {
        return opened().outcome();
    }

    /**
     * Records vectors this process just committed (catching up first when others committed in
     * between). A batch of at least a memtable's worth, in the process that maintains the index,
     * is built into a segment of its own with JVector's parallel builder (both cores) instead of
     * being inserted into the memtable's graph one vector at a time.
     */
    void added(List<SegmentedIndex.Entry> entries, Connection db) throws SQLException {
        if (entries.isEmpty()) {
            return;
        }
        if (openHere(db)) {
            return; // opened after they were committed: the open read them from SQLite
        }
        SegmentedIndex index = opened(db).index();
        long first = entries.stream().mapToLong(SegmentedIndex.Entry::id).min().orElseThrow();
        if (first > index.maxKnownId() + 1 || index.maxKnownId() == Long.MIN_VALUE) {
            catchUp(db);
        }
        add(entries);
    }

    /**
     * Adds entries the index may lack: a memtable's worth or more becomes a segment of its own
     * (JVector's parallel builder) in the maintainer, anything else goes to the memtable.
     */
    private void add(List<SegmentedIndex.Entry> entries) {
        SegmentedIndex index = opened().index();
        if (entries.size() >= index.options().memtableLimit() && index.maintainer()) {
            try {
                index.addSegment(entries);
                return;
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot write a segment of the index {} ({}); keeping the vectors in memory", index.dir(),
                        e.toString());
            }
        }
        index.addMissing(entries);
    }

    /** Records a vector just deleted. */
    void removed(long vectorId) {
        opened().index().delete(vectorId);
    }

    /** {@link SegmentedIndex#expungeDeleted()}. */
    int expungeDeleted() throws IOException {
        return opened().index().expungeDeleted();
    }

    /**
     * Loads the vectors with ids above the largest known one (committed by another process). Many
     * at once (another process indexed a lot) are built into a segment with JVector's parallel
     * builder when this process maintains the index, rather than inserted one by one.
     */
    void catchUp(Connection db) throws SQLException {
        SegmentedIndex index = opened(db).index();
        index.refresh();
        if (maxVectorId(db) > index.maxKnownId()) {
            add(loadAfter(db, Math.max(0, index.maxKnownId()), dimension));
        }
    }

    /**
     * The dense candidates: the graph search without a filter; exact among a small allowed set;
     * a scan of a larger one's PQ codes ({@link SegmentedIndex#scanAmong}): a graph walk that
     * skips what the filter does not allow visits much of the graph when few vectors pass (0.5
     * to 1 s at 1M for 4% of them, against milliseconds for the scan). Even for a set of a
     * quarter to a half of the index, the walk's slow searches (p95) are slower than the scan's:
     * the searches that get here are those whose neighbourhood holds few passing vectors.
     */
    List<SegmentedIndex.Hit> search(float[] query, int k, VectorIdSet allowed) {
        SegmentedIndex index = opened().index();
        if (allowed == null) {
            return index.search(query, k, null);
        }
        if (allowed.size() <= Math.max(EXACT_FILTER_SIZE, 4 * k)) {
            return index.searchAmong(query, k, allowed);
        }
        return index.scanAmong(query, k, allowed);
    }

    /**
     * The {@code wide} best vectors, unfiltered, for a caller that keeps the first {@code k} of
     * them passing its filter: the beam is {@code wide}, or a search of {@code k}'s if larger.
     */
    List<SegmentedIndex.Hit> searchWide(float[] query, int wide, int k) {
        SegmentedIndex index = opened().index();
        int beam = Math.max(wide, (int) Math.ceil(k * index.options().overquery()));
        return index.search(query, wide, beam, null);
    }

    /** The index files' bytes; a deferred index opens now, on {@code c}. */
    long fileBytes(Connection c) {
        return opened(c).index().fileBytes();
    }

    boolean dirty() {
        return opened().index().dirty();
    }

    long segmentVectors() {
        return opened().index().segmentVectors();
    }

    SegmentedIndex index() {
        return opened().index();
    }

    /** Closes the index (sealing its memtable, when this process maintains it); one never opened needs nothing. */
    @Override
    public void close() throws IOException {
        Opened o = opened;
        if (o != null) {
            o.index().close();
        }
    }

    @Override
    public String toString() {
        Opened o = opened;
        return o != null ? o.index().toString() : "StoreIndex[" + deferred.storeDir().resolve(DIR) + ", not opened yet]";
    }

    /**
     * Replaces the index of a closed store (or one whose maintainer is this call) by one segment
     * built from all vectors in SQLite, as read through {@code db}'s snapshot.
     *
     * @return how many vectors the index holds now
     * @throws IOException if another process maintains the index (a store is open) or writing fails
     */
    static int rebuild(Path storeDir, IndexSegment.Identity identity, Connection db) throws SQLException, IOException {
        try (SegmentedIndex index = SegmentedIndex.open(storeDir.resolve(DIR), identity,
                options(StoreOptions.defaults()))) {
            if (!index.maintainer()) {
                throw new IOException("the index is in use by an open store (it holds " + SegmentedIndex.LOCK_FILE
                        + "); the next open of the store rebuilds what is wrong");
            }
            index.clear();
            List<SegmentedIndex.Entry> all = loadAfter(db, 0, identity.dimension());
            index.addSegment(all);
            return all.size();
        }
    }

    // ---------------------------------------------------------------- SQLite

    /**
     * All vector ids, sorted. Read unordered, so that SQLite scans the small index of
     * {@code content_hash} (it holds the ids too) rather than the table, whose rows carry the
     * embeddings (~1.5 KB each); sorted here.
     */
    static long[] ids(Connection c) throws SQLException {
        long[] ids = new long[1024];
        int n = 0;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM vectors")) {
            while (rs.next()) {
                if (n == ids.length) {
                    ids = Arrays.copyOf(ids, n * 2);
                }
                ids[n++] = rs.getLong(1);
            }
        }
        long[] sorted = Arrays.copyOf(ids, n);
        Arrays.sort(sorted);
        return sorted;
    }

    static List<SegmentedIndex.Entry> loadAfter(Connection db, long afterId, int dimension) throws SQLException {
        List<SegmentedIndex.Entry> entries = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT id, embedding FROM vectors WHERE id > ? ORDER BY id")) {
            ps.setLong(1, afterId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    entries.add(new SegmentedIndex.Entry(id, Rows.vector(rs.getBytes(2), dimension, id)));
                }
            }
        }
        return entries;
    }

    private static List<SegmentedIndex.Entry> load(Connection db, List<Long> ids, int dimension) throws SQLException {
        List<SegmentedIndex.Entry> entries = new ArrayList<>(ids.size());
        for (int from = 0; from < ids.size(); from += IN_LIST_CHUNK) {
            List<Long> chunk = ids.subList(from, Math.min(from + IN_LIST_CHUNK, ids.size()));
            try (PreparedStatement ps = db.prepareStatement("SELECT id, embedding FROM vectors WHERE id IN ("
                    + "?,".repeat(chunk.size() - 1) + "?) ORDER BY id")) {
                for (int i = 0; i < chunk.size(); i++) {
                    ps.setLong(i + 1, chunk.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long id = rs.getLong(1);
                        entries.add(new SegmentedIndex.Entry(id, Rows.vector(rs.getBytes(2), dimension, id)));
                    }
                }
            }
        }
        return entries;
    }

    /** The highest vector id in the database as the connection sees it, 0 when there is none. */
    static long maxVectorId(Connection db) throws SQLException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT max(id) FROM vectors")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }
}
