package dev.funes.store;

import io.github.jbellis.jvector.vector.VectorizationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;

/**
 * The store's dense index, usable on its own: approximate nearest-neighbour search over unit
 * vectors by cosine similarity, kept in a directory of immutable JVector segments.
 *
 * <ul>
 *   <li>{@link #add} puts vectors into the <em>memtable</em>, a mutable in-memory JVector graph
 *       that is searched directly. Once it holds {@link Options#memtableLimit()} vectors (or on
 *       {@link #seal()} or {@link #close()}), it is written as an immutable segment
 *       ({@code seg-<n>.ann}) with a checksummed header naming the store, model, dimension and
 *       count. No insert rebuilds a graph.</li>
 *   <li>A checksummed {@code manifest}, replaced atomically (temporary file, fsync, rename),
 *       lists the segments and the tombstones.</li>
 *   <li>A background thread merges segments of similar size ({@link Options#mergeFanIn()} of a
 *       size tier) into one new segment built from their live vectors, dropping deleted ones, then
 *       swaps the manifest.</li>
 *   <li>Segments of at least {@link Options#pqThreshold()} vectors keep product-quantized codes
 *       in RAM; a search walks their graph on the codes and reranks with the full-precision
 *       vectors read from the file.</li>
 *   <li>{@link #delete} records a tombstone: deleted ids are never returned, and merges drop
 *       them.</li>
 *   <li>A search works on one immutable snapshot of segments and memtables; segments are
 *       reference-counted, so one merged away is unmapped only after the searches using it end.</li>
 * </ul>
 *
 * <p>Several processes may open one directory: the first holds the lock file
 * {@code index.lock} and is the <em>maintainer</em> (it alone writes segments and the manifest);
 * the others read the segments the manifest lists, keep their own additions in memory, and
 * follow the manifest when it changes ({@link #refresh()}).
 *
 * <p>Thread-safe. Ids are caller-chosen longs, each added at most once: a deleted id must not be
 * added again.
 */
public final class SegmentedIndex implements AutoCloseable {

    static final Logger LOG = LoggerFactory.getLogger(SegmentedIndex.class);

    /** The maintainer lock's file name. */
    static final String LOCK_FILE = "index.lock";

    /**
     * Tuning of a {@link SegmentedIndex}.
     *
     * @param memtableLimit vectors the in-memory graph holds before it is sealed into a segment
     * @param pqThreshold   segments with at least this many vectors keep PQ codes in RAM and
     *                      rerank from disk; smaller ones are searched on full vectors.
     *                      {@link Integer#MAX_VALUE} disables compression
     * @param maxDegree     the graphs' maximum degree (JVector's M)
     * @param beamWidth     the beam width while building graphs
     * @param overquery     a search of {@code k} keeps {@code ceil(k * overquery)} candidates per
     *                      segment (the search beam, and the number reranked); higher is more
     *                      accurate and slower
     * @param mergeFanIn    how many segments of one size tier are merged into one
     */
    public record Options(int memtableLimit, int pqThreshold, int maxDegree, int beamWidth, double overquery,
                          int mergeFanIn) {

        /** Validates the values. */
        public Options {
            if (memtableLimit < 1) {
                throw new IllegalArgumentException("memtableLimit must be >= 1, was " + memtableLimit);
            }
            if (pqThreshold < 256) {
                throw new IllegalArgumentException("pqThreshold must be >= 256 (PQ trains 256 centroids), was "
                        + pqThreshold);
            }
            if (maxDegree < 4 || maxDegree > 512) {
                throw new IllegalArgumentException("maxDegree must be between 4 and 512, was " + maxDegree);
            }
            if (beamWidth < maxDegree) {
                throw new IllegalArgumentException("beamWidth must be >= maxDegree (" + maxDegree + "), was "
                        + beamWidth);
            }
            if (!(overquery >= 1.0 && overquery <= 100.0)) {
                throw new IllegalArgumentException("overquery must be between 1 and 100, was " + overquery);
            }
            if (mergeFanIn < 2 || mergeFanIn > 64) {
                throw new IllegalArgumentException("mergeFanIn must be between 2 and 64, was " + mergeFanIn);
            }
        }

        /**
         * A memtable of 20,000 vectors, PQ from 10,000 vectors per segment, degree 32, beam width
         * 100, overquery 4, merges of 4 segments.
         */
        public static Options defaults() {
            return new Options(20_000, 10_000, 32, 100, 4.0, 4);
        }

        /** These options with another memtable limit. */
        public Options withMemtableLimit(int limit) {
            return new Options(limit, pqThreshold, maxDegree, beamWidth, overquery, mergeFanIn);
        }

        /** These options with another PQ threshold. */
        public Options withPqThreshold(int threshold) {
            return new Options(memtableLimit, threshold, maxDegree, beamWidth, overquery, mergeFanIn);
        }

        /** These options with another overquery factor. */
        public Options withOverquery(double factor) {
            return new Options(memtableLimit, pqThreshold, maxDegree, beamWidth, factor, mergeFanIn);
        }

        /** These options with another graph degree (JVector's M), and a beam width of at least that. */
        public Options withMaxDegree(int degree) {
            return new Options(memtableLimit, pqThreshold, degree, Math.max(beamWidth, degree), overquery, mergeFanIn);
        }

        /** These options with another merge fan-in. */
        public Options withMergeFanIn(int fanIn) {
            return new Options(memtableLimit, pqThreshold, maxDegree, beamWidth, overquery, fanIn);
        }
    }

    /**
     * One search result.
     *
     * @param id    the vector's id
     * @param score its cosine similarity to the query, -1 to 1
     */
    public record Hit(long id, double score) {
    }

    /**
     * One segment, for {@link Stats}.
     *
     * @param file       its file name
     * @param vectors    vectors in it, deleted ones included until a merge drops them
     * @param bytes      its file size
     * @param compressed whether it keeps PQ codes in RAM
     */
    public record SegmentStats(String file, int vectors, long bytes, boolean compressed) {
    }

    /**
     * What the index holds.
     *
     * @param segments              the segments, oldest first
     * @param memtableVectors       vectors in memory not yet in a segment
     * @param tombstones            deleted ids still present in a segment or the memtable
     * @param indexBytes            bytes of the segment files and the manifest
     * @param vectorizationProvider JVector's vectorization provider (its class name):
     *                              {@code PanamaVectorizationProvider} uses SIMD, available with
     *                              {@code --add-modules jdk.incubator.vector} on JDK 20+
     * @param maintainer            whether this instance writes segments (holds the lock)
     */
    public record Stats(List<SegmentStats> segments, int memtableVectors, int tombstones, long indexBytes,
                        String vectorizationProvider, boolean maintainer) {

        /** Copies the list. */
        public Stats {
            segments = List.copyOf(segments);
        }

        /** Vectors in segments, deleted ones included. */
        public long segmentVectors() {
            return segments.stream().mapToLong(SegmentStats::vectors).sum();
        }
    }

    /** Receives scored ids. */
    interface HitSink {
        void offer(long id, double score);
    }

    /** Receives vectors. */
    interface VectorSink {
        void accept(long id, float[] vector);
    }

    /** A vector and its id. */
    record Entry(long id, float[] vector) {
    }

    final Path dir;
    final IndexSegment.Identity identity;
    final Options options;
    private final IndexMaintenance maintenance;
    // The state below is shared with IndexMaintenance.
    final Object mutex = new Object();
    volatile IndexSnapshot snapshot;
    volatile DirectoryLock.Held lock;
    volatile long maxKnownId = Long.MIN_VALUE;
    volatile Object manifestStamp;
    /** The directory's files; set at open. */
    IndexFiles files;
    /** The sorted ids of segments being built by {@link #addSegment}; guarded by {@link #mutex}. */
    final List<long[]> building = new ArrayList<>();
    boolean manifestDirty;
    private String openProblem;
    volatile boolean closed;
    /** Set when closing starts: no new merge is queued (a running one is awaited). */
    volatile boolean closing;

    private SegmentedIndex(Path dir, IndexSegment.Identity identity, Options options) {
        this.dir = dir;
        this.identity = identity;
        this.options = options;
        this.maintenance = new IndexMaintenance(this, options);
    }

    // ---------------------------------------------------------------- opening

    /**
     * Opens (or creates) an index in {@code dir}: loads the manifest and its segments. A segment
     * that does not validate is left out and logged; a damaged manifest is an error, since the
     * index has no other source of its vectors (the store rebuilds from SQLite instead).
     *
     * @param dimension the vectors' dimension; must match the index's
     * @throws IOException              if the directory cannot be used or the manifest is damaged
     * @throws IllegalArgumentException if the index holds vectors of another dimension
     */
    public static SegmentedIndex open(Path dir, int dimension, Options options) throws IOException {
        Objects.requireNonNull(options, "options");
        if (dimension < 1) {
            throw new IllegalArgumentException("dimension must be >= 1, was " + dimension);
        }
        Path manifest = dir.resolve(IndexManifest.FILE);
        IndexSegment.Identity id;
        if (Files.exists(manifest)) {
            id = IndexManifest.read(manifest, null).identity();
            if (id.dimension() != dimension) {
                throw new IllegalArgumentException("the index in " + dir + " holds vectors of dimension "
                        + id.dimension() + ", not " + dimension);
            }
        } else {
            id = new IndexSegment.Identity(UUID.randomUUID(), "", dimension);
        }
        boolean created = !Files.exists(manifest);
        SegmentedIndex index = open(dir, id, options);
        if (created) {
            index.openProblem = null; // a new index, not a lost manifest
            if (index.maintainer() && !Files.exists(manifest)) {
                synchronized (index.mutex) { // records the identity for instances opened later
                    index.writeManifestLocked(List.of(), index.snapshot.tombstones());
                }
            }
        }
        if (index.openProblem() != null) {
            LOG.warn("Opened the index {} without what did not validate: {}", dir, index.openProblem());
        }
        return index;
    }

    /**
     * Opens the index of a store: never fails on damaged files, which are left out; what was
     * wrong is in {@link #openProblem()}, for the caller to rebuild from its source.
     */
    static SegmentedIndex open(Path dir, IndexSegment.Identity identity, Options options) throws IOException {
        Files.createDirectories(dir);
        SegmentedIndex index = new SegmentedIndex(dir.toAbsolutePath().normalize(), identity, options);
        index.load();
        return index;
    }

    private void load() throws IOException {
        lock = IndexMaintenance.tryMaintain(dir);
        files = new IndexFiles(dir, identity, options);
        List<String> problems = new ArrayList<>();
        IndexManifest manifest;
        Object stamp = files.stamp();
        try {
            manifest = files.readManifest();
        } catch (IndexSegment.InvalidIndexException e) {
            problems.add(e.getMessage());
            manifest = new IndexManifest(identity, 1, List.of(), new long[0]);
        }
        List<IndexSegment> segments = new ArrayList<>();
        for (IndexManifest.Segment entry : manifest.segments()) {
            try {
                segments.add(files.loadSegment(entry));
            } catch (IndexSegment.InvalidIndexException e) {
                problems.add(entry.name() + ": " + e.getMessage());
            }
        }
        Set<Long> tombstones = ConcurrentHashMap.newKeySet();
        for (long t : manifest.tombstones()) {
            if (segments.stream().anyMatch(s -> s.contains(t))) {
                tombstones.add(t);
            }
        }
        files.numberAfter(manifest);
        for (IndexSegment s : segments) {
            maxKnownId = Math.max(maxKnownId, s.maxId());
        }
        snapshot = new IndexSnapshot(List.copyOf(segments), new Memtable(identity.dimension(), options),
                List.of(), tombstones);
        manifestStamp = stamp;
        openProblem = problems.isEmpty() ? null : String.join("; ", problems);
        if (lock != null) {
            maintenance.start();
            files.removeStrayFiles(snapshot.segments());
            if (!problems.isEmpty() && Files.exists(files.manifest())) {
                synchronized (mutex) {
                    writeManifestLocked(snapshot.segments(), snapshot.tombstones());
                }
            }
        }
    }

    /** What did not validate at open (manifest or segments), {@code null} when everything did. */
    String openProblem() {
        return openProblem;
    }

    /** How many merges this instance completed. */
    int mergesDone() {
        return maintenance.merges();
    }

    /** The options this index was opened with. */
    Options options() {
        return options;
    }

    /** Whether this instance writes segments and the manifest. */
    boolean maintainer() {
        return lock != null;
    }

    /** The index directory. */
    Path dir() {
        return dir;
    }

    // ---------------------------------------------------------------- writes

    /**
     * Adds one vector.
     *
     * @param unitVector a vector of length 1 and the index's dimension; not copied, must not be
     *                   changed afterwards
     * @throws IllegalArgumentException if the id is present or was deleted, or the vector is wrong
     */
    public void add(long id, float[] unitVector) {
        addAll(new long[] {id}, new float[][] {unitVector});
    }

    /**
     * Adds vectors, {@code unitVectors[i]} under {@code ids[i]}; all or (on a bad argument) none.
     * In the maintaining instance, a call of at least {@link Options#memtableLimit()} vectors is
     * built straight into a segment of its own with JVector's parallel builder (searchable when
     * this returns); smaller ones go to the memtable.
     *
     * @throws IllegalArgumentException if an id is present, repeated or was deleted, or a vector
     *                                  is of the wrong dimension or not finite
     */
    public void addAll(long[] ids, float[][] unitVectors) {
        if (ids.length != unitVectors.length) {
            throw new IllegalArgumentException(ids.length + " ids for " + unitVectors.length + " vectors");
        }
        List<Entry> entries = new ArrayList<>(ids.length);
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < ids.length; i++) {
            check(unitVectors[i]);
            if (!seen.add(ids[i])) {
                throw new IllegalArgumentException("id " + ids[i] + " given twice");
            }
            entries.add(new Entry(ids[i], unitVectors[i]));
        }
        synchronized (mutex) {
            ensureOpen();
            for (Entry e : entries) {
                if (presentLocked(e.id()) || snapshot.tombstones().contains(e.id())) {
                    throw new IllegalArgumentException("id " + e.id() + " is already in the index or was deleted");
                }
            }
            if (entries.size() < options.memtableLimit() || lock == null) {
                addLocked(entries);
                entries = null;
            }
        }
        if (entries != null) {
            try {
                addSegment(entries);
                return;
            } catch (IOException | RuntimeException e) {
                LOG.warn("Cannot write a segment of {} vectors to the index {} ({}); adding them to the memtable",
                        entries.size(), dir, e.toString());
                synchronized (mutex) {
                    ensureOpen();
                    addLocked(entries.stream().filter(x -> !presentLocked(x.id())).toList());
                }
            }
        }
        afterAdd();
    }

    /** Adds the entries whose ids are not in the index yet (the store's catch-up); skips the others. */
    void addMissing(List<Entry> entries) {
        if (entries.isEmpty()) {
            return;
        }
        synchronized (mutex) {
            ensureOpen();
            List<Entry> missing = new ArrayList<>(entries.size());
            for (Entry e : entries) {
                if (!presentLocked(e.id())) {
                    check(e.vector());
                    missing.add(e);
                }
            }
            addLocked(missing);
        }
        afterAdd();
    }

    void check(float[] v) {
        if (v == null || v.length != identity.dimension()) {
            throw new IllegalArgumentException("vector of length " + (v == null ? 0 : v.length) + ", the index has "
                    + identity.dimension() + " dimensions");
        }
        for (float f : v) {
            if (!Float.isFinite(f)) {
                throw new IllegalArgumentException("vector with " + f);
            }
        }
    }

    boolean presentLocked(long id) {
        for (long[] ids : building) {
            if (Arrays.binarySearch(ids, id) >= 0) {
                return true;
            }
        }
        return snapshot.holds(id);
    }

    private void addLocked(List<Entry> entries) {
        Memtable active = snapshot.active();
        for (Entry e : entries) {
            active.add(e.id(), e.vector());
            if (e.id() > maxKnownId) {
                maxKnownId = e.id();
            }
        }
    }

    private void afterAdd() {
        if (snapshot.active().size() < options.memtableLimit()) {
            return;
        }
        if (lock == null && !maintenance.becomeMaintainer()) {
            return; // another process seals; until it does, the memtable grows here
        }
        synchronized (mutex) {
            if (snapshot.active().size() >= options.memtableLimit()) {
                maintenance.freezeLocked();
            }
        }
    }

    /**
     * Marks an id deleted: searches never return it again, and the next merge of its segment
     * drops it.
     *
     * @return whether the id was in the index
     */
    public boolean delete(long id) {
        synchronized (mutex) {
            ensureOpen();
            if (!presentLocked(id)) {
                return false;
            }
            boolean added = snapshot.tombstones().add(id);
            manifestDirty |= added;
            return added;
        }
    }

    /**
     * Writes the memtable as a segment now and waits until it is (and any earlier one) in the
     * manifest. Only the maintainer seals; elsewhere this does nothing.
     *
     * @throws IOException if a segment cannot be written (the vectors stay searchable in memory)
     */
    public void seal() throws IOException {
        synchronized (mutex) {
            ensureOpen();
            if (lock == null) {
                return;
            }
            maintenance.freezeLocked();
            maintenance.queueSealsLocked();
        }
        maintenance.awaitTasks();
        synchronized (mutex) {
            if (!snapshot.sealing().isEmpty()) {
                throw new IOException("cannot write the memtable of the index " + dir + " as a segment (see the log)");
            }
        }
    }

    /**
     * Seals the memtable, then rewrites each segment that holds a deleted id without it, and
     * waits for both: a deleted vector is then in no file of the index (a search of another
     * process still holding an old segment keeps it mapped until that search ends). Only the
     * maintainer writes segments; elsewhere this does nothing (the maintainer's merges drop the
     * vectors later) and returns 0.
     *
     * @return how many deleted vectors were dropped from the segments
     * @throws IOException if the memtable cannot be written as a segment
     */
    public int expungeDeleted() throws IOException {
        seal();
        java.util.concurrent.atomic.AtomicInteger expunged = new java.util.concurrent.atomic.AtomicInteger();
        synchronized (mutex) {
            ensureOpen();
            if (lock == null) {
                return 0;
            }
            maintenance.queueExpungeLocked(expunged);
        }
        maintenance.awaitTasks();
        return expunged.get();
    }

    /** Waits until no seal or merge is queued or running. */
    public void awaitMerges() {
        maintenance.awaitTasks();
    }

    /**
     * Builds one segment from the given vectors at once and lists it: bulk additions, and how the
     * store puts back vectors a damaged segment or manifest lost. Maintainer only; see
     * {@link IndexMaintenance#addSegment}.
     *
     * @throws IOException if the segment cannot be written (nothing of it is listed)
     */
    void addSegment(List<Entry> entries) throws IOException {
        maintenance.addSegment(entries);
    }

    /** Drops every segment and tombstone and removes the manifest: the index is empty. Maintainer only. */
    void clear() throws IOException {
        maintenance.clear();
    }

    // ---------------------------------------------------------------- the manifest

    void writeManifestLocked(List<IndexSegment> segments, Set<Long> tombstones) throws IOException {
        manifestStamp = files.writeManifest(segments, tombstones);
        manifestDirty = false;
    }

    /**
     * Follows the manifest when another process (the maintainer) replaced it: loads the new
     * segments, drops the merged-away ones, and keeps in memory only the vectors no segment holds.
     * Does nothing in the maintainer, or when the new manifest or one of its segments does not
     * load (then the current view stays).
     *
     * @return whether the view changed
     */
    boolean refresh() {
        if (lock != null || closed) {
            return false;
        }
        return reload();
    }

    boolean reload() {
        Object stamp = files.stamp();
        if (stamp.equals(manifestStamp)) {
            return false;
        }
        IndexManifest m;
        try {
            m = files.readManifest();
        } catch (IndexSegment.InvalidIndexException e) {
            LOG.debug("Not following the index manifest of {}: {}", dir, e.getMessage());
            manifestStamp = stamp;
            return false;
        }
        List<IndexSegment> current = snapshot.segments();
        List<IndexSegment> loaded;
        try {
            loaded = files.loadListed(m, current);
        } catch (IndexSegment.InvalidIndexException e) {
            LOG.debug("Not following the index manifest of {}: {}", dir, e.getMessage());
            return false;
        }
        List<IndexSegment> retired = new ArrayList<>();
        synchronized (mutex) {
            if (closed) {
                loaded.stream().filter(seg -> !current.contains(seg)).forEach(IndexSegment::release);
                return false;
            }
            IndexSnapshot s = snapshot;
            for (IndexSegment seg : s.segments()) {
                if (!loaded.contains(seg)) {
                    retired.add(seg);
                }
            }
            for (IndexSegment seg : loaded) {
                maxKnownId = Math.max(maxKnownId, seg.maxId());
            }
            snapshot = s.followed(loaded, m.tombstones(), new Memtable(identity.dimension(), options));
            manifestStamp = stamp;
        }
        retired.forEach(IndexSegment::release);
        return true;
    }

    // ---------------------------------------------------------------- search

    /**
     * The {@code k} vectors most similar to the query by cosine similarity, best first, among
     * those {@code allowed} admits ({@code null}: all), never a deleted one. Searches every
     * segment and the memtable of one consistent snapshot and merges by score.
     *
     * @param query a unit vector of the index's dimension
     */
    public List<Hit> search(float[] query, int k, LongPredicate allowed) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be >= 1, was " + k);
        }
        return search(query, k, Math.max(k, (int) Math.ceil(k * options.overquery())), allowed);
    }

    /** {@link #search(float[], int, LongPredicate)} with the beam given instead of the overquery's. */
    List<Hit> search(float[] query, int k, int beam, LongPredicate allowed) {
        check(query);
        if (k < 1 || beam < k) {
            throw new IllegalArgumentException("need 1 <= k <= beam, was k " + k + ", beam " + beam);
        }
        IndexSnapshot s = acquire();
        try {
            return s.search(query, k, beam, allowed);
        } finally {
            s.release();
        }
    }

    /**
     * The {@code k} most similar among the given ids, scored exactly: for a small filter, where a
     * graph search restricted to a few nodes could miss some.
     */
    List<Hit> searchAmong(float[] query, int k, long[] ids) {
        return among(query, k, VectorIdSet.of(ids, ids.length), false);
    }

    /** {@link #searchAmong(float[], int, long[])} of a set. */
    List<Hit> searchAmong(float[] query, int k, VectorIdSet ids) {
        return among(query, k, ids, false);
    }

    /**
     * The {@code k} most similar among the given ids: in each segment with PQ codes, all of them
     * scored on the codes and the best {@code k * overquery} reranked exactly (a scan, for a
     * filter too selective for the graph walk); elsewhere scored exactly.
     */
    List<Hit> scanAmong(float[] query, int k, long[] ids) {
        return among(query, k, VectorIdSet.of(ids, ids.length), true);
    }

    /** {@link #scanAmong(float[], int, long[])} of a set. */
    List<Hit> scanAmong(float[] query, int k, VectorIdSet ids) {
        return among(query, k, ids, true);
    }

    private List<Hit> among(float[] query, int k, VectorIdSet ids, boolean scan) {
        check(query);
        IndexSnapshot s = acquire();
        try {
            return s.among(query, k, ids, scan, Math.max(k, (int) Math.ceil(k * options.overquery())));
        } finally {
            s.release();
        }
    }

    /** The segments searched now, not retained: for tests, with no merge running. */
    List<IndexSegment> currentSegments() {
        return snapshot.segments();
    }

    private IndexSnapshot acquire() {
        while (true) {
            IndexSnapshot s = snapshot;
            ensureOpen();
            if (s.tryAcquire()) {
                return s;
            } // else a merge retired a segment meanwhile: take the new snapshot
        }
    }

    // ---------------------------------------------------------------- state

    /** The largest id added or found in a segment; {@link Long#MIN_VALUE} when empty. */
    long maxKnownId() {
        return maxKnownId;
    }

    /** The largest id in a segment; 0 when there is none. */
    long segmentsMaxId() {
        return snapshot.segmentsMaxId();
    }

    /** The ids in segments (deleted ones included), sorted, distinct. */
    long[] segmentIds() {
        return snapshot.segmentIds();
    }

    /** See {@link IndexSnapshot#segmentDigest()}. */
    VectorDigest segmentDigest() {
        return snapshot.segmentDigest();
    }

    /** Whether the id is in a segment or memtable (deleted or not). */
    boolean contains(long id) {
        synchronized (mutex) {
            return presentLocked(id);
        }
    }

    /** Vectors in segments, minus those deleted. */
    long segmentVectors() {
        return snapshot.segmentVectors();
    }

    /** Vectors in memtables (sealing ones included), minus those deleted. */
    int memtableVectors() {
        return snapshot.memtableVectors();
    }

    /** Whether vectors or deletions exist that the files do not have yet. */
    boolean dirty() {
        IndexSnapshot s = snapshot;
        synchronized (mutex) {
            return s.active().size() > 0 || !s.sealing().isEmpty() || manifestDirty;
        }
    }

    /** What the index holds now. */
    public Stats stats() {
        IndexSnapshot s = snapshot;
        List<SegmentStats> segments = new ArrayList<>();
        for (IndexSegment seg : s.segments()) {
            segments.add(new SegmentStats(seg.name(), seg.size(), seg.fileLength(), seg.compressed()));
        }
        return new Stats(segments, memtableVectors(), s.tombstones().size(), fileBytes(),
                VectorizationProvider.getInstance().getClass().getSimpleName(), lock != null);
    }

    /** Bytes of the segment files and the manifest this instance uses. */
    long fileBytes() {
        return files.bytes(snapshot.segments());
    }

    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the index " + dir + " is closed");
        }
    }

    /**
     * Closes the index. The maintainer first seals the memtable, waits for a running merge (no
     * new one starts) and writes the manifest, so that the next open loads everything from the
     * files; searches must have ended.
     */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        if (closed) {
            return;
        }
        closing = true;
        if (lock == null && memtableVectors() > 0) {
            maintenance.becomeMaintainer(); // the maintainer closed before this instance: seal what only this one has
        }
        if (lock != null) {
            try {
                synchronized (mutex) {
                    maintenance.freezeLocked();
                    maintenance.queueSealsLocked();
                }
                maintenance.awaitTasks();
                synchronized (mutex) {
                    if (manifestDirty) {
                        writeManifestLocked(snapshot.segments(), snapshot.tombstones());
                    }
                }
            } catch (IOException e) {
                failure = e;
            }
        }
        IndexSnapshot s;
        synchronized (mutex) {
            closed = true;
            s = snapshot;
        }
        maintenance.shutdown();
        s.segments().forEach(IndexSegment::release);
        DirectoryLock.Held held = lock;
        lock = null;
        if (held != null) {
            held.close();
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        IndexSnapshot s = snapshot;
        return "SegmentedIndex[" + dir + ", graph " + s.segments() + ", memtable " + s.active().size()
                + (s.sealing().isEmpty() ? "" : ", sealing " + s.sealing().size()) + ", tombstones "
                + s.tombstones().size() + (lock != null ? ", maintainer" : "") + "]";
    }
}
