package dev.funes.store;

import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.GraphSearcher;
import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.ListRandomAccessVectorValues;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.SearchResult;
import io.github.jbellis.jvector.graph.similarity.DefaultSearchScoreProvider;
import io.github.jbellis.jvector.util.Bits;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongPredicate;
import java.util.stream.Collectors;
import java.util.zip.CRC32C;

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

    /** The manifest's file name. */
    static final String MANIFEST = "manifest";
    /** The maintainer lock's file name. */
    static final String LOCK_FILE = "index.lock";
    private static final byte[] MANIFEST_MAGIC = "FUNESMAN".getBytes(StandardCharsets.US_ASCII);
    private static final int MANIFEST_VERSION = 1;

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

    /** A manifest line: one segment. */
    record ManifestEntry(String name, int count, long fileLength, int bodyCrc) {
    }

    /** The manifest's content. */
    record Manifest(IndexSegment.Identity identity, long nextSegment, List<ManifestEntry> segments, long[] tombstones) {
    }

    /**
     * What searches read: immutable lists; the memtables grow (append-only) and the tombstone set
     * gains ids while the snapshot is in use, which only makes a search stricter.
     */
    private record Snapshot(List<IndexSegment> segments, Memtable active, List<Memtable> sealing, Set<Long> tombstones) {
    }

    private final Path dir;
    private final IndexSegment.Identity identity;
    private final Options options;
    private final Object mutex = new Object();
    private volatile Snapshot snapshot;
    private volatile MaintainerLock lock;
    private volatile long maxKnownId = Long.MIN_VALUE;
    private volatile Object manifestStamp;
    /** Which segment files were verified in full, and unchanged since (a cache in the directory). */
    private VerifiedSegments verified;
    private ExecutorService maintenance;
    /** The sorted ids of segments being built by {@link #addSegment}; guarded by {@link #mutex}. */
    private final List<long[]> building = new ArrayList<>();
    /** Tasks queued or running on {@link #maintenance}; guarded by {@link #mutex}. */
    private int pendingTasks;
    private boolean mergeQueued;
    private long nextSegment = 1;
    private boolean manifestDirty;
    private String openProblem;
    private volatile boolean closed;
    /** Set when closing starts: no new merge is queued (a running one is awaited). */
    private volatile boolean closing;
    private final java.util.concurrent.atomic.AtomicInteger merges = new java.util.concurrent.atomic.AtomicInteger();

    private SegmentedIndex(Path dir, IndexSegment.Identity identity, Options options) {
        this.dir = dir;
        this.identity = identity;
        this.options = options;
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
        Path manifest = dir.resolve(MANIFEST);
        IndexSegment.Identity id;
        if (Files.exists(manifest)) {
            id = readManifest(manifest, null).identity();
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
        lock = MaintainerLock.tryAcquire(dir);
        verified = VerifiedSegments.read(dir);
        List<String> problems = new ArrayList<>();
        Manifest manifest;
        Object stamp = stamp();
        try {
            manifest = readManifest(dir.resolve(MANIFEST), identity);
        } catch (IndexSegment.InvalidIndexException e) {
            problems.add(e.getMessage());
            manifest = new Manifest(identity, 1, List.of(), new long[0]);
        }
        List<IndexSegment> segments = new ArrayList<>();
        for (ManifestEntry entry : manifest.segments()) {
            try {
                segments.add(loadSegment(entry));
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
        nextSegment = Math.max(manifest.nextSegment(), highestSegmentFile() + 1);
        for (IndexSegment s : segments) {
            maxKnownId = Math.max(maxKnownId, s.maxId());
        }
        snapshot = new Snapshot(List.copyOf(segments), new Memtable(identity.dimension(), options),
                List.of(), tombstones);
        manifestStamp = stamp;
        openProblem = problems.isEmpty() ? null : String.join("; ", problems);
        if (lock != null) {
            startMaintenance();
            removeStrayFiles();
            verified.retain(snapshot.segments().stream().map(IndexSegment::name).collect(Collectors.toSet()));
            verified.writeIfChanged();
            if (!problems.isEmpty() && Files.exists(dir.resolve(MANIFEST))) {
                synchronized (mutex) {
                    writeManifestLocked(snapshot.segments(), snapshot.tombstones());
                }
            }
        }
    }

    private IndexSegment loadSegment(ManifestEntry entry) throws IndexSegment.InvalidIndexException {
        IndexSegment segment = IndexSegment.load(dir.resolve(entry.name()), identity, verified);
        if (segment.size() != entry.count() || segment.fileLength() != entry.fileLength()
                || segment.bodyCrc() != entry.bodyCrc()) {
            segment.release();
            throw new IndexSegment.InvalidIndexException("index file does not match the manifest (" + segment.size()
                    + " vectors, " + segment.fileLength() + " bytes; the manifest says " + entry.count() + ", "
                    + entry.fileLength() + ")");
        }
        return segment;
    }

    private void startMaintenance() {
        maintenance = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "funes-index-maintenance " + dir.getFileName());
            t.setDaemon(true);
            return t;
        });
    }

    private long highestSegmentFile() {
        long highest = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "seg-*")) {
            for (Path f : files) {
                highest = Math.max(highest, segmentNumber(f.getFileName().toString()));
            }
        } catch (IOException e) {
            LOG.debug("Cannot list {}: {}", dir, e.toString());
        }
        return highest;
    }

    private static long segmentNumber(String name) {
        int end = name.indexOf(".ann");
        if (!name.startsWith("seg-") || end < 0) {
            return 0;
        }
        try {
            return Long.parseLong(name.substring(4, end));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Removes segment files no manifest lists and temporary files: only the maintainer writes any. */
    private void removeStrayFiles() {
        Set<String> listed = new HashSet<>();
        for (IndexSegment s : snapshot.segments()) {
            listed.add(s.name());
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.endsWith(".tmp") || (name.startsWith("seg-") && !listed.contains(name))) {
                    Files.deleteIfExists(f);
                    LOG.info("Removed the stray index file {}", f);
                }
            }
        } catch (IOException e) {
            LOG.debug("Cannot clean {}: {}", dir, e.toString());
        }
    }

    /** What did not validate at open (manifest or segments), {@code null} when everything did. */
    String openProblem() {
        return openProblem;
    }

    /** How many merges this instance completed. */
    int mergesDone() {
        return merges.get();
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

    private void check(float[] v) {
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

    private boolean presentLocked(long id) {
        for (long[] ids : building) {
            if (Arrays.binarySearch(ids, id) >= 0) {
                return true;
            }
        }
        Snapshot s = snapshot;
        if (s.active().contains(id)) {
            return true;
        }
        for (Memtable m : s.sealing()) {
            if (m.contains(id)) {
                return true;
            }
        }
        for (IndexSegment seg : s.segments()) {
            if (seg.contains(id)) {
                return true;
            }
        }
        return false;
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
        if (lock == null && !becomeMaintainer()) {
            return; // another process seals; until it does, the memtable grows here
        }
        synchronized (mutex) {
            if (snapshot.active().size() >= options.memtableLimit()) {
                freezeLocked();
            }
        }
    }

    /**
     * Takes over maintenance when no other instance holds it (the maintainer closed): follows the
     * current manifest first, so that nothing it lists is lost when this instance writes the next.
     */
    private boolean becomeMaintainer() {
        MaintainerLock taken = MaintainerLock.tryAcquire(dir);
        if (taken == null) {
            return false;
        }
        manifestStamp = null;
        reload();
        synchronized (mutex) {
            lock = taken;
            if (maintenance == null) {
                startMaintenance();
            }
        }
        LOG.debug("Took over the maintenance of the index {}", dir);
        return true;
    }

    /** Moves the active memtable to the sealing list and queues its seal. */
    private void freezeLocked() {
        Snapshot s = snapshot;
        if (s.active().size() == 0) {
            return;
        }
        List<Memtable> sealing = new ArrayList<>(s.sealing());
        sealing.add(s.active());
        snapshot = new Snapshot(s.segments(), new Memtable(identity.dimension(), options), List.copyOf(sealing),
                s.tombstones());
        queueSealsLocked();
    }

    private void queueSealsLocked() {
        if (maintenance == null) {
            return;
        }
        for (Memtable m : snapshot.sealing()) {
            if (!m.queued) {
                m.queued = true;
                submitLocked(() -> sealTask(m));
            }
        }
    }

    private void submitLocked(Runnable task) {
        pendingTasks++;
        maintenance.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("Index maintenance of {} failed: {}", dir, e.toString(), e);
            } finally {
                synchronized (mutex) {
                    pendingTasks--;
                    mutex.notifyAll();
                }
            }
        });
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
            freezeLocked();
            queueSealsLocked();
        }
        awaitTasks();
        synchronized (mutex) {
            if (!snapshot.sealing().isEmpty()) {
                throw new IOException("cannot write the memtable of the index " + dir + " as a segment (see the log)");
            }
        }
    }

    /** Waits until no seal or merge is queued or running. */
    public void awaitMerges() {
        awaitTasks();
    }

    private void awaitTasks() {
        synchronized (mutex) {
            while (pendingTasks > 0) {
                try {
                    mutex.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void sealTask(Memtable m) {
        synchronized (mutex) {
            if (m.writing || !snapshot.sealing().contains(m)) {
                return; // a bulk addition is writing it, or wrote it already
            }
            m.writing = true;
        }
        seal(m);
    }

    /** Writes a frozen memtable as a segment and lists it; on failure it stays searchable in memory. */
    private void seal(Memtable m) {
        try {
            m.finish();
            long[] ids = m.ids();
            String name;
            synchronized (mutex) {
                name = "seg-" + nextSegment++ + ".ann";
            }
            Path file = dir.resolve(name);
            long started = System.nanoTime();
            IndexSegment.write(file, identity, ids, m.values(), m.graph(), ids.length >= options.pqThreshold());
            IndexSegment segment = IndexSegment.load(file, identity);
            synchronized (mutex) {
                Snapshot s = snapshot;
                List<IndexSegment> segments = new ArrayList<>(s.segments());
                segments.add(segment);
                List<Memtable> sealing = new ArrayList<>(s.sealing());
                sealing.remove(m);
                writeManifestLocked(segments, s.tombstones());
                snapshot = new Snapshot(List.copyOf(segments), s.active(), List.copyOf(sealing), s.tombstones());
                queueMergeLocked();
            }
            LOG.debug("Sealed {} vectors into {} in {} ms", ids.length, file, (System.nanoTime() - started) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot seal the memtable of the index {} ({}); its vectors stay searchable in memory", dir,
                    e.toString());
            synchronized (mutex) {
                m.queued = false;
                m.writing = false;
            }
        }
    }

    private void queueMergeLocked() {
        if (!mergeQueued && !closing && !closed && pickMerge(snapshot.segments()) != null) {
            mergeQueued = true;
            submitLocked(this::mergeTask);
        }
    }

    /**
     * The segments to merge next: {@code mergeFanIn} of one size tier (tier {@code t} holds
     * segments of {@code memtableLimit * fanIn^t} vectors and up), the smallest first; or
     * {@code null}.
     */
    private List<IndexSegment> pickMerge(List<IndexSegment> segments) {
        Map<Integer, List<IndexSegment>> tiers = new HashMap<>();
        for (IndexSegment s : segments) {
            double ratio = Math.max(1.0, (double) s.size() / options.memtableLimit());
            int tier = (int) Math.floor(Math.log(ratio) / Math.log(options.mergeFanIn()) + 1e-9);
            tiers.computeIfAbsent(tier, t -> new ArrayList<>()).add(s);
        }
        for (int tier = 0; tier < 64; tier++) {
            List<IndexSegment> group = tiers.get(tier);
            if (group != null && group.size() >= options.mergeFanIn()) {
                group.sort((a, b) -> Integer.compare(a.size(), b.size()));
                return List.copyOf(group.subList(0, options.mergeFanIn()));
            }
        }
        return null;
    }

    private void mergeTask() {
        List<IndexSegment> group;
        Set<Long> tombstones;
        synchronized (mutex) {
            mergeQueued = false;
            if (closing || closed) {
                return;
            }
            group = pickMerge(snapshot.segments());
            if (group == null) {
                return;
            }
            tombstones = snapshot.tombstones();
            for (IndexSegment s : group) {
                s.tryAcquire(); // listed in the snapshot, so still open
            }
        }
        long started = System.nanoTime();
        try {
            List<Long> ids = new ArrayList<>();
            List<VectorFloat<?>> vectors = new ArrayList<>();
            Set<Long> dropped = new HashSet<>();
            Set<Long> seen = new HashSet<>();
            for (IndexSegment s : group) {
                s.forEachVector(id -> {
                    if (tombstones.contains(id)) {
                        dropped.add(id);
                        return false;
                    }
                    return seen.add(id);
                }, (id, v) -> {
                    ids.add(id);
                    vectors.add(IndexSegment.VECTORS.createFloatVector(v));
                });
            }
            IndexSegment merged = null;
            if (!ids.isEmpty()) {
                String name;
                synchronized (mutex) {
                    name = "seg-" + nextSegment++ + ".ann";
                }
                Path file = dir.resolve(name);
                var values = new ListRandomAccessVectorValues(vectors, identity.dimension());
                ImmutableGraphIndex graph = IndexSegment.build(values, options.maxDegree(), options.beamWidth());
                IndexSegment.write(file, identity, ids.stream().mapToLong(Long::longValue).toArray(), values, graph,
                        ids.size() >= options.pqThreshold());
                merged = IndexSegment.load(file, identity);
            }
            synchronized (mutex) {
                Snapshot s = snapshot;
                List<IndexSegment> segments = new ArrayList<>(s.segments());
                segments.removeAll(group);
                if (merged != null) {
                    segments.add(merged);
                }
                Set<Long> remaining = ConcurrentHashMap.newKeySet();
                for (Long t : s.tombstones()) {
                    if (!dropped.contains(t) || stillPresent(t, segments, s)) {
                        remaining.add(t);
                    }
                }
                writeManifestLocked(segments, remaining);
                snapshot = new Snapshot(List.copyOf(segments), s.active(), s.sealing(), remaining);
                queueMergeLocked();
            }
            for (IndexSegment s : group) {
                s.release(); // this task's reference
                s.release(); // the index's: unmapped once the last search using it ends
                Files.deleteIfExists(s.file());
            }
            merges.incrementAndGet();
            LOG.debug("Merged {} into {} ({} vectors, {} deleted dropped) in {} ms", group, merged, ids.size(),
                    dropped.size(), (System.nanoTime() - started) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            for (IndexSegment s : group) {
                s.release();
            }
            LOG.warn("Cannot merge the segments {} of the index {}: {}", group, dir, e.toString());
        }
    }

    private static boolean stillPresent(long id, List<IndexSegment> segments, Snapshot s) {
        for (IndexSegment seg : segments) {
            if (seg.contains(id)) {
                return true;
            }
        }
        if (s.active().contains(id)) {
            return true;
        }
        for (Memtable m : s.sealing()) {
            if (m.contains(id)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Builds one segment from the given vectors at once (JVector's parallel builder) and lists
     * it: bulk additions, and how the store puts back vectors a damaged segment or manifest lost.
     * Ids already in the index, or being built by another call, are skipped; while the build runs
     * the ids count as present (so a concurrent catch-up does not build them twice) but are not
     * searchable yet. What the memtable held before is sealed first, on this thread, so the
     * segments always hold every id below their largest one: a crash then loses only ids above
     * it, which the next open loads from SQLite. Maintainer only.
     *
     * @throws IOException if the segment cannot be written (nothing of it is listed; the caller
     *                     keeps the vectors another way)
     */
    void addSegment(List<Entry> entries) throws IOException {
        for (Entry e : entries) {
            check(e.vector());
        }
        long[] ids;
        long[] pending;
        String name;
        List<Memtable> toSeal = new ArrayList<>();
        List<Memtable> beingSealed = new ArrayList<>();
        synchronized (mutex) {
            ensureOpen();
            if (lock == null) {
                throw new IllegalStateException("only the maintainer writes segments");
            }
            List<Entry> missing = new ArrayList<>(entries.size());
            for (Entry e : entries) {
                if (!presentLocked(e.id())) {
                    missing.add(e);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            entries = missing;
            ids = entries.stream().mapToLong(Entry::id).toArray();
            pending = ids.clone();
            Arrays.sort(pending);
            building.add(pending);
            maxKnownId = Math.max(maxKnownId, pending[pending.length - 1]);
            name = "seg-" + nextSegment++ + ".ann";
            freezeLocked();
            for (Memtable m : snapshot.sealing()) {
                if (m.writing) {
                    beingSealed.add(m);
                } else {
                    m.writing = true; // this thread seals it rather than wait behind a merge
                    m.queued = true;
                    toSeal.add(m);
                }
            }
        }
        Path file = dir.resolve(name);
        IndexSegment segment = null;
        boolean listed = false;
        try {
            for (Memtable m : toSeal) {
                seal(m);
            }
            List<VectorFloat<?>> vectors = new ArrayList<>(entries.size());
            for (Entry e : entries) {
                vectors.add(IndexSegment.VECTORS.createFloatVector(e.vector()));
            }
            var values = new ListRandomAccessVectorValues(vectors, identity.dimension());
            ImmutableGraphIndex graph = IndexSegment.build(values, options.maxDegree(), options.beamWidth());
            IndexSegment.write(file, identity, ids, values, graph, ids.length >= options.pqThreshold());
            segment = IndexSegment.load(file, identity);
            synchronized (mutex) {
                awaitSealsLocked(beingSealed);
                ensureOpen();
                Snapshot s = snapshot;
                List<IndexSegment> segments = new ArrayList<>(s.segments());
                segments.add(segment);
                writeManifestLocked(segments, s.tombstones());
                snapshot = new Snapshot(List.copyOf(segments), s.active(), s.sealing(), s.tombstones());
                listed = true;
                queueMergeLocked();
            }
        } finally {
            synchronized (mutex) {
                building.remove(pending); // by identity: arrays do not override equals
            }
            if (!listed) {
                if (segment != null) {
                    segment.release();
                }
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * Waits until none of the given memtables, each being written by the maintenance thread, is
     * still waiting: each is a segment in the manifest, or its seal failed (its vectors stay
     * searchable in memory).
     *
     * @throws InterruptedIOException if the waiting thread is interrupted
     */
    private void awaitSealsLocked(List<Memtable> memtables) throws InterruptedIOException {
        while (memtables.stream().anyMatch(m -> m.writing && snapshot.sealing().contains(m))) {
            try {
                mutex.wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the memtable's seal");
            }
        }
    }

    /** Drops every segment and tombstone and removes the manifest: the index is empty. Maintainer only. */
    void clear() throws IOException {
        List<IndexSegment> retired;
        synchronized (mutex) {
            ensureOpen();
            if (lock == null) {
                throw new IllegalStateException("only the maintainer removes segments");
            }
            Snapshot s = snapshot;
            retired = s.segments();
            snapshot = new Snapshot(List.of(), s.active(), s.sealing(), ConcurrentHashMap.newKeySet());
            Files.deleteIfExists(dir.resolve(MANIFEST));
            manifestDirty = false;
            manifestStamp = stamp();
        }
        for (IndexSegment seg : retired) {
            seg.release();
            Files.deleteIfExists(seg.file());
        }
    }

    // ---------------------------------------------------------------- the manifest

    private void writeManifestLocked(List<IndexSegment> segments, Set<Long> tombstones) throws IOException {
        List<ManifestEntry> entries = new ArrayList<>();
        for (IndexSegment s : segments) {
            entries.add(new ManifestEntry(s.name(), s.size(), s.fileLength(), s.bodyCrc()));
        }
        long[] tomb = tombstones.stream().mapToLong(Long::longValue).sorted().toArray();
        writeManifest(dir.resolve(MANIFEST), new Manifest(identity, nextSegment, entries, tomb));
        manifestDirty = false;
        manifestStamp = stamp();
    }

    /** Writes a manifest atomically: temporary file, fsync, rename, fsync of the directory. */
    static void writeManifest(Path file, Manifest m) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MANIFEST_MAGIC);
            out.writeInt(MANIFEST_VERSION);
            out.writeLong(m.identity().storeId().getMostSignificantBits());
            out.writeLong(m.identity().storeId().getLeastSignificantBits());
            byte[] model = m.identity().modelId().getBytes(StandardCharsets.UTF_8);
            out.writeShort(model.length);
            out.write(model);
            out.writeInt(m.identity().dimension());
            out.writeLong(m.nextSegment());
            out.writeInt(m.segments().size());
            for (ManifestEntry e : m.segments()) {
                byte[] name = e.name().getBytes(StandardCharsets.UTF_8);
                out.writeShort(name.length);
                out.write(name);
                out.writeInt(e.count());
                out.writeLong(e.fileLength());
                out.writeInt(e.bodyCrc());
            }
            out.writeInt(m.tombstones().length);
            for (long t : m.tombstones()) {
                out.writeLong(t);
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        ByteBuffer tail = ByteBuffer.allocate(4).putInt((int) crc.getValue());
        bytes.write(tail.array());
        Path dir = file.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(dir, file.getFileName() + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes.toByteArray());
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            IndexSegment.syncDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Reads and validates a manifest.
     *
     * @param expected the identity it must carry, or {@code null} to accept any
     */
    static Manifest readManifest(Path file, IndexSegment.Identity expected) throws IndexSegment.InvalidIndexException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IndexSegment.InvalidIndexException("index manifest missing");
        } catch (IOException e) {
            throw new IndexSegment.InvalidIndexException("index manifest unreadable (" + e + ")", e);
        }
        if (bytes.length < MANIFEST_MAGIC.length + 8
                || !Arrays.equals(Arrays.copyOf(bytes, MANIFEST_MAGIC.length), MANIFEST_MAGIC)) {
            throw new IndexSegment.InvalidIndexException("index manifest corrupt (not a Funes manifest)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt()) {
            throw new IndexSegment.InvalidIndexException("index manifest corrupt (checksum mismatch)");
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes, 0, bytes.length - 4);
            in.position(MANIFEST_MAGIC.length);
            int version = in.getInt();
            if (version != MANIFEST_VERSION) {
                throw new IndexSegment.InvalidIndexException("index manifest format version " + version
                        + ", this Funes writes version " + MANIFEST_VERSION);
            }
            UUID storeId = new UUID(in.getLong(), in.getLong());
            byte[] model = new byte[Short.toUnsignedInt(in.getShort())];
            in.get(model);
            IndexSegment.Identity identity = new IndexSegment.Identity(storeId,
                    new String(model, StandardCharsets.UTF_8), in.getInt());
            if (expected != null && !storeId.equals(expected.storeId())) {
                throw new IndexSegment.InvalidIndexException("index manifest belongs to another store (" + storeId + ")");
            }
            if (expected != null && !identity.equals(expected)) {
                throw new IndexSegment.InvalidIndexException("index built for model " + identity.modelId() + " ("
                        + identity.dimension() + " dimensions), the store uses " + expected.modelId() + " ("
                        + expected.dimension() + ")");
            }
            long next = in.getLong();
            int count = in.getInt();
            List<ManifestEntry> entries = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte[] name = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(name);
                String n = new String(name, StandardCharsets.UTF_8);
                if (!n.matches("seg-[0-9]+\\.ann")) {
                    throw new IndexSegment.InvalidIndexException("index manifest corrupt (segment name " + n + ")");
                }
                entries.add(new ManifestEntry(n, in.getInt(), in.getLong(), in.getInt()));
            }
            long[] tombstones = new long[in.getInt()];
            for (int i = 0; i < tombstones.length; i++) {
                tombstones[i] = in.getLong();
            }
            if (in.hasRemaining()) {
                throw new IndexSegment.InvalidIndexException("index manifest corrupt (trailing bytes)");
            }
            return new Manifest(identity, next, List.copyOf(entries), tombstones);
        } catch (RuntimeException e) {
            throw new IndexSegment.InvalidIndexException("index manifest corrupt (" + e + ")", e);
        }
    }

    private Object stamp() {
        try {
            BasicFileAttributes a = Files.readAttributes(dir.resolve(MANIFEST), BasicFileAttributes.class);
            return Arrays.asList(a.fileKey(), a.lastModifiedTime(), a.size());
        } catch (IOException e) {
            return List.of();
        }
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

    private boolean reload() {
        Object stamp = stamp();
        if (stamp.equals(manifestStamp)) {
            return false;
        }
        Manifest m;
        try {
            m = readManifest(dir.resolve(MANIFEST), identity);
        } catch (IndexSegment.InvalidIndexException e) {
            LOG.debug("Not following the index manifest of {}: {}", dir, e.getMessage());
            manifestStamp = stamp;
            return false;
        }
        Map<String, IndexSegment> current = new HashMap<>();
        for (IndexSegment s : snapshot.segments()) {
            current.put(s.name(), s);
        }
        List<IndexSegment> loaded = new ArrayList<>();
        List<IndexSegment> fresh = new ArrayList<>();
        try {
            for (ManifestEntry e : m.segments()) {
                IndexSegment s = current.get(e.name());
                if (s == null || s.fileLength() != e.fileLength() || s.bodyCrc() != e.bodyCrc()) {
                    s = loadSegment(e);
                    fresh.add(s);
                }
                loaded.add(s);
            }
        } catch (IndexSegment.InvalidIndexException e) {
            fresh.forEach(IndexSegment::release);
            LOG.debug("Not following the index manifest of {}: {}", dir, e.getMessage());
            return false;
        }
        List<IndexSegment> retired = new ArrayList<>();
        synchronized (mutex) {
            if (closed) {
                fresh.forEach(IndexSegment::release);
                return false;
            }
            Snapshot s = snapshot;
            Set<Long> tombstones = ConcurrentHashMap.newKeySet();
            for (long t : m.tombstones()) {
                tombstones.add(t);
            }
            tombstones.addAll(s.tombstones()); // this process's own deletions, not known to the maintainer
            List<Memtable> old = new ArrayList<>(s.sealing());
            old.add(s.active());
            Memtable memtable = new Memtable(identity.dimension(), options);
            for (Memtable mt : old) {
                mt.forEach((id, v) -> {
                    if (loaded.stream().noneMatch(seg -> seg.contains(id)) && !memtable.contains(id)) {
                        memtable.add(id, v);
                    }
                });
            }
            for (IndexSegment seg : s.segments()) {
                if (!loaded.contains(seg)) {
                    retired.add(seg);
                }
            }
            for (IndexSegment seg : loaded) {
                maxKnownId = Math.max(maxKnownId, seg.maxId());
            }
            snapshot = new Snapshot(List.copyOf(loaded), memtable, List.of(), tombstones);
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
        Snapshot s = acquire();
        try {
            Set<Long> tombstones = s.tombstones();
            LongPredicate accept = allowed == null
                    ? id -> tombstones.isEmpty() || !tombstones.contains(id)
                    : id -> (tombstones.isEmpty() || !tombstones.contains(id)) && allowed.test(id);
            VectorFloat<?> q = IndexSegment.VECTORS.createFloatVector(query);
            Collector collector = new Collector();
            for (IndexSegment seg : s.segments()) {
                seg.search(q, k, beam, accept, collector);
            }
            s.active().search(q, k, beam, accept, collector);
            for (Memtable m : s.sealing()) {
                m.search(q, k, beam, accept, collector);
            }
            return collector.top(k);
        } finally {
            release(s);
        }
    }

    /**
     * The {@code k} most similar among the given ids, scored exactly: for a small filter, where a
     * graph search restricted to a few nodes could miss some.
     */
    List<Hit> searchAmong(float[] query, int k, long[] ids) {
        return among(query, k, ids, false);
    }

    /**
     * The {@code k} most similar among the given ids: in each segment with PQ codes, all of them
     * scored on the codes and the best {@code k * overquery} reranked exactly (a scan, for a
     * filter too selective for the graph walk); elsewhere scored exactly.
     */
    List<Hit> scanAmong(float[] query, int k, long[] ids) {
        return among(query, k, ids, true);
    }

    private List<Hit> among(float[] query, int k, long[] ids, boolean scan) {
        check(query);
        Snapshot s = acquire();
        try {
            Set<Long> tombstones = s.tombstones();
            LongPredicate accept = id -> tombstones.isEmpty() || !tombstones.contains(id);
            Collector collector = new Collector();
            VectorFloat<?> q = IndexSegment.VECTORS.createFloatVector(query);
            int beam = Math.max(k, (int) Math.ceil(k * options.overquery()));
            for (IndexSegment seg : s.segments()) {
                if (scan) {
                    seg.scanAmong(q, query, ids, beam, accept, collector);
                } else {
                    seg.exact(query, ids, accept, collector);
                }
            }
            List<Memtable> memtables = new ArrayList<>(s.sealing());
            memtables.add(s.active());
            for (Memtable m : memtables) {
                for (long id : ids) {
                    float[] v = m.vector(id);
                    if (v != null && accept.test(id)) {
                        double dot = 0;
                        for (int i = 0; i < v.length; i++) {
                            dot += query[i] * v[i];
                        }
                        collector.offer(id, dot);
                    }
                }
            }
            return collector.top(k);
        } finally {
            release(s);
        }
    }

    /** The segments searched now, not retained: for tests, with no merge running. */
    List<IndexSegment> currentSegments() {
        return snapshot.segments();
    }

    private Snapshot acquire() {
        while (true) {
            Snapshot s = snapshot;
            ensureOpen();
            List<IndexSegment> taken = new ArrayList<>(s.segments().size());
            boolean all = true;
            for (IndexSegment seg : s.segments()) {
                if (seg.tryAcquire()) {
                    taken.add(seg);
                } else {
                    all = false;
                    break;
                }
            }
            if (all) {
                return s;
            }
            taken.forEach(IndexSegment::release); // a merge retired one meanwhile: take the new snapshot
        }
    }

    private static void release(Snapshot s) {
        s.segments().forEach(IndexSegment::release);
    }

    /** Keeps the best score per id, then the top {@code k}. */
    private static final class Collector implements HitSink {
        private final Map<Long, Double> best = new HashMap<>();

        @Override
        public void offer(long id, double score) {
            best.merge(id, score, Math::max);
        }

        List<Hit> top(int k) {
            TopK top = new TopK(k);
            best.forEach(top::offer);
            return top.sorted();
        }
    }

    // ---------------------------------------------------------------- state

    /** The largest id added or found in a segment; {@link Long#MIN_VALUE} when empty. */
    long maxKnownId() {
        return maxKnownId;
    }

    /** The largest id in a segment; 0 when there is none. */
    long segmentsMaxId() {
        long max = 0;
        for (IndexSegment s : snapshot.segments()) {
            max = Math.max(max, s.maxId());
        }
        return max;
    }

    /** The ids in segments (deleted ones included), sorted, distinct. */
    long[] segmentIds() {
        long[] all = snapshot.segments().stream().flatMapToLong(s -> Arrays.stream(s.sortedIds())).sorted().distinct()
                .toArray();
        return all;
    }

    /**
     * The digest of the live ids in segments (those not deleted), or {@code null} when an id is in
     * two segments (the digest of a set would not describe them).
     */
    VectorDigest segmentDigest() {
        Snapshot s = snapshot;
        VectorDigest digest = VectorDigest.EMPTY;
        for (IndexSegment seg : s.segments()) {
            digest = digest.plus(seg.digest());
        }
        for (Long t : s.tombstones()) {
            int holders = 0;
            for (IndexSegment seg : s.segments()) {
                holders += seg.contains(t) ? 1 : 0;
            }
            if (holders > 1) {
                return null;
            }
            if (holders == 1) {
                digest = digest.minus(t);
            }
        }
        return digest;
    }

    /** Whether the id is in a segment or memtable (deleted or not). */
    boolean contains(long id) {
        synchronized (mutex) {
            return presentLocked(id);
        }
    }

    /** Vectors in segments, minus those deleted. */
    long segmentVectors() {
        Snapshot s = snapshot;
        long n = 0;
        for (IndexSegment seg : s.segments()) {
            n += seg.size();
        }
        for (Long t : s.tombstones()) {
            if (s.segments().stream().anyMatch(seg -> seg.contains(t))) {
                n--;
            }
        }
        return n;
    }

    /** Vectors in memtables (sealing ones included), minus those deleted. */
    int memtableVectors() {
        Snapshot s = snapshot;
        int n = s.active().size();
        for (Memtable m : s.sealing()) {
            n += m.size();
        }
        for (Long t : s.tombstones()) {
            if (s.active().contains(t) || s.sealing().stream().anyMatch(m -> m.contains(t))) {
                n--;
            }
        }
        return n;
    }

    /** Whether vectors or deletions exist that the files do not have yet. */
    boolean dirty() {
        Snapshot s = snapshot;
        synchronized (mutex) {
            return s.active().size() > 0 || !s.sealing().isEmpty() || manifestDirty;
        }
    }

    /** What the index holds now. */
    public Stats stats() {
        Snapshot s = snapshot;
        List<SegmentStats> segments = new ArrayList<>();
        for (IndexSegment seg : s.segments()) {
            segments.add(new SegmentStats(seg.name(), seg.size(), seg.fileLength(), seg.compressed()));
        }
        return new Stats(segments, memtableVectors(), s.tombstones().size(), fileBytes(),
                VectorizationProvider.getInstance().getClass().getSimpleName(), lock != null);
    }

    /** Bytes of the segment files and the manifest this instance uses. */
    long fileBytes() {
        long n = 0;
        for (IndexSegment seg : snapshot.segments()) {
            n += seg.fileLength();
        }
        try {
            Path m = dir.resolve(MANIFEST);
            n += Files.exists(m) ? Files.size(m) : 0;
        } catch (IOException e) {
            LOG.debug("Cannot size {}: {}", dir, e.toString());
        }
        return n;
    }

    private void ensureOpen() {
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
            becomeMaintainer(); // the maintainer closed before this instance: seal what only this one has
        }
        if (lock != null) {
            try {
                synchronized (mutex) {
                    freezeLocked();
                    queueSealsLocked();
                }
                awaitTasks();
                synchronized (mutex) {
                    if (manifestDirty) {
                        writeManifestLocked(snapshot.segments(), snapshot.tombstones());
                    }
                }
            } catch (IOException e) {
                failure = e;
            }
        }
        Snapshot s;
        synchronized (mutex) {
            closed = true;
            s = snapshot;
        }
        if (maintenance != null) {
            maintenance.shutdown();
        }
        s.segments().forEach(IndexSegment::release);
        MaintainerLock held = lock;
        lock = null;
        if (held != null) {
            held.release();
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        Snapshot s = snapshot;
        return "SegmentedIndex[" + dir + ", graph " + s.segments() + ", memtable " + s.active().size()
                + (s.sealing().isEmpty() ? "" : ", sealing " + s.sealing().size()) + ", tombstones "
                + s.tombstones().size() + (lock != null ? ", maintainer" : "") + "]";
    }

    // ---------------------------------------------------------------- the memtable

    /**
     * The mutable in-memory graph: vectors appended under the index's mutex, searched
     * concurrently. {@link #finish()} (before sealing) takes the write lock, searches the read lock.
     */
    static final class Memtable {
        private static final int CHUNK = 1024;
        private final int dimension;
        private final Options options;
        private volatile VectorFloat<?>[][] vectorChunks = new VectorFloat<?>[16][];
        private volatile long[][] idChunks = new long[16][];
        private volatile int size;
        private final ConcurrentHashMap<Long, Integer> ordinals = new ConcurrentHashMap<>();
        private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        private final Values values = new Values();
        private GraphIndexBuilder builder;
        /** Whether a seal of this memtable is queued; guarded by the index's mutex. */
        boolean queued;
        /** Whether a thread is writing this memtable as a segment now; guarded by the index's mutex. */
        boolean writing;

        Memtable(int dimension, Options options) {
            this.dimension = dimension;
            this.options = options;
        }

        /** The vectors by ordinal, as JVector reads them. */
        private final class Values implements RandomAccessVectorValues {
            @Override
            public int size() {
                return size;
            }

            @Override
            public int dimension() {
                return dimension;
            }

            @Override
            public VectorFloat<?> getVector(int ordinal) {
                return vectorChunks[ordinal / CHUNK][ordinal % CHUNK];
            }

            @Override
            public boolean isValueShared() {
                return false;
            }

            @Override
            public RandomAccessVectorValues copy() {
                return this;
            }
        }

        int size() {
            return size;
        }

        boolean contains(long id) {
            return ordinals.containsKey(id);
        }

        long idAt(int ordinal) {
            return idChunks[ordinal / CHUNK][ordinal % CHUNK];
        }

        /** Appends; the caller serializes calls. */
        void add(long id, float[] vector) {
            int ordinal = size;
            int chunk = ordinal / CHUNK;
            if (chunk == vectorChunks.length) {
                vectorChunks = Arrays.copyOf(vectorChunks, chunk * 2);
                idChunks = Arrays.copyOf(idChunks, chunk * 2);
            }
            if (vectorChunks[chunk] == null) {
                vectorChunks[chunk] = new VectorFloat<?>[CHUNK];
                idChunks[chunk] = new long[CHUNK];
            }
            VectorFloat<?> v = IndexSegment.VECTORS.createFloatVector(vector);
            vectorChunks[chunk][ordinal % CHUNK] = v;
            idChunks[chunk][ordinal % CHUNK] = id;
            if (builder == null) {
                builder = IndexSegment.incrementalBuilder(values, options.maxDegree(), options.beamWidth());
            }
            size = ordinal + 1;
            builder.addGraphNode(ordinal, v);
            ordinals.put(id, ordinal);
        }

        /** The vector of an id (a copy), or {@code null}. */
        float[] vector(long id) {
            Integer ordinal = ordinals.get(id);
            return ordinal == null ? null : copy(values.getVector(ordinal));
        }

        private static float[] copy(VectorFloat<?> v) {
            float[] out = new float[v.length()];
            for (int i = 0; i < out.length; i++) {
                out[i] = v.get(i);
            }
            return out;
        }

        void forEach(VectorSink action) {
            int n = size;
            for (int i = 0; i < n; i++) {
                action.accept(idAt(i), copy(values.getVector(i)));
            }
        }

        void search(VectorFloat<?> query, int k, int beam, LongPredicate accept, HitSink sink) {
            int n = ordinals.size(); // nodes fully added
            if (n == 0) {
                return;
            }
            lock.readLock().lock();
            try {
                Bits bits = ordinal -> accept.test(idAt(ordinal));
                try (GraphSearcher searcher = new GraphSearcher(builder.getGraph())) {
                    var scores = DefaultSearchScoreProvider.exact(query, IndexSegment.SIMILARITY, values);
                    SearchResult result = searcher.search(scores, Math.min(k, n), Math.min(beam, n), 0f, 0f, bits);
                    for (SearchResult.NodeScore node : result.getNodes()) {
                        sink.offer(idAt(node.node), 2.0 * node.score - 1.0);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                lock.readLock().unlock();
            }
        }

        /** Completes the graph before it is written; no more adds come. */
        void finish() {
            lock.writeLock().lock();
            try {
                builder.cleanup();
            } finally {
                lock.writeLock().unlock();
            }
        }

        long[] ids() {
            int n = size;
            long[] ids = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = idAt(i);
            }
            return ids;
        }

        RandomAccessVectorValues values() {
            return values;
        }

        ImmutableGraphIndex graph() {
            return builder.getGraph();
        }
    }

    // ---------------------------------------------------------------- the maintainer lock

    /**
     * The lock that makes one {@link SegmentedIndex} (one process) the maintainer of a directory:
     * an OS lock on {@link #LOCK_FILE}, held from open to close. Within one JVM a map decides
     * first, since closing any channel of a file drops the process's POSIX locks on it.
     */
    private static final class MaintainerLock {
        private static final ConcurrentMap<Path, Boolean> IN_THIS_JVM = new ConcurrentHashMap<>();
        private final Path file;
        private final FileChannel channel;
        private final FileLock lock;

        private MaintainerLock(Path file, FileChannel channel, FileLock lock) {
            this.file = file;
            this.channel = channel;
            this.lock = lock;
        }

        /** The lock, or {@code null} when another instance or process holds it. */
        static MaintainerLock tryAcquire(Path dir) {
            Path file;
            try {
                file = dir.toRealPath().resolve(LOCK_FILE);
            } catch (IOException e) {
                LOG.debug("Cannot resolve {}: {}", dir, e.toString());
                return null;
            }
            if (IN_THIS_JVM.putIfAbsent(file, Boolean.TRUE) != null) {
                return null;
            }
            FileChannel channel = null;
            try {
                channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
                FileLock lock = channel.tryLock();
                if (lock != null) {
                    return new MaintainerLock(file, channel, lock);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("Cannot lock {}: {}", file, e.toString());
            }
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException ignored) {
                    // not held
                }
            }
            IN_THIS_JVM.remove(file);
            return null;
        }

        void release() {
            try {
                lock.release();
                channel.close();
            } catch (IOException ignored) {
                // closing the channel releases the lock in any case
            } finally {
                IN_THIS_JVM.remove(file);
            }
        }
    }
}
