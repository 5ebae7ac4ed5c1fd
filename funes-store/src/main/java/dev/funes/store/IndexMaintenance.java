package dev.funes.store;

import io.github.jbellis.jvector.vector.types.VectorFloat;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.funes.store.SegmentedIndex.LOG;

/**
 * What the maintaining instance of a {@link SegmentedIndex} does to its files: holds the
 * directory's maintainer lock (or takes it over), seals memtables and merges segments on a
 * background thread, builds the segments of bulk additions, and lists each new segment in the
 * manifest and the index's snapshot ({@link #publishLocked}). It works on the index's state under
 * the index's mutex.
 */
final class IndexMaintenance {

    private final SegmentedIndex index;
    private final MergePolicy mergePolicy;
    private ExecutorService executor;
    /** Tasks queued or running on {@link #executor}; guarded by the index's mutex. */
    private int pendingTasks;
    private boolean mergeQueued;
    private final AtomicInteger merges = new AtomicInteger();

    IndexMaintenance(SegmentedIndex index, SegmentedIndex.Options options) {
        this.index = index;
        this.mergePolicy = MergePolicy.of(options);
    }

    /** How many merges this instance completed. */
    int merges() {
        return merges.get();
    }

    /** Stops the thread once its tasks are done. */
    void shutdown() {
        if (executor != null) {
            executor.shutdown();
        }
    }

    /** Starts the maintenance thread, unless it runs. */
    void start() {
        if (executor != null) {
            return;
        }
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "funes-index-maintenance " + index.dir.getFileName());
            t.setDaemon(true);
            return t;
        });
    }

    /** The claim to maintain {@code dir}, or {@code null} when another instance or process holds it. */
    static DirectoryLock.Held tryMaintain(Path dir) {
        try {
            return new DirectoryLock(dir, SegmentedIndex.LOCK_FILE).tryAcquire("maintaining the index");
        } catch (IOException e) {
            LOG.debug("Cannot resolve {}: {}", dir, e.toString());
            return null;
        }
    }

    /**
     * Takes over maintenance when no other instance holds it (the maintainer closed): follows
     * the current manifest first, so that nothing it lists is lost when this instance writes the
     * next.
     */
    boolean becomeMaintainer() {
        DirectoryLock.Held taken = tryMaintain(index.dir);
        if (taken == null) {
            return false;
        }
        index.manifestStamp = null;
        index.reload();
        synchronized (index.mutex) {
            index.lock = taken;
            start();
        }
        LOG.debug("Took over the maintenance of the index {}", index.dir);
        return true;
    }

    /** Moves the active memtable to the sealing list and queues its seal. */
    void freezeLocked() {
        IndexSnapshot s = index.snapshot;
        if (s.active().size() == 0) {
            return;
        }
        List<Memtable> sealing = new ArrayList<>(s.sealing());
        sealing.add(s.active());
        index.snapshot = new IndexSnapshot(s.segments(), new Memtable(index.identity.dimension(), index.options),
                List.copyOf(sealing), s.tombstones());
        queueSealsLocked();
    }

    void queueSealsLocked() {
        if (executor == null) {
            return;
        }
        for (Memtable m : index.snapshot.sealing()) {
            if (!m.queued) {
                m.queued = true;
                submitLocked(() -> sealTask(m));
            }
        }
    }

    private void submitLocked(Runnable task) {
        pendingTasks++;
        executor.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) {
                LOG.warn("Index maintenance of {} failed: {}", index.dir, e.toString(), e);
            } finally {
                synchronized (index.mutex) {
                    pendingTasks--;
                    index.mutex.notifyAll();
                }
            }
        });
    }

    /** Waits until no seal or merge is queued or running. */
    void awaitTasks() {
        synchronized (index.mutex) {
            while (pendingTasks > 0) {
                try {
                    index.mutex.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void sealTask(Memtable m) {
        synchronized (index.mutex) {
            if (m.writing || !index.snapshot.sealing().contains(m)) {
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
            synchronized (index.mutex) {
                name = index.files.nextSegment();
            }
            long started = System.nanoTime();
            IndexSegment segment = index.files.writeSegment(name, ids, m.values(), m.graph());
            synchronized (index.mutex) {
                publishLocked(segment, List.of(), m, Set.of());
            }
            LOG.debug("Sealed {} vectors into {} in {} ms", ids.length, segment.file(),
                    (System.nanoTime() - started) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            LOG.warn("Cannot seal the memtable of the index {} ({}); its vectors stay searchable in memory", index.dir,
                    e.toString());
            synchronized (index.mutex) {
                m.queued = false;
                m.writing = false;
            }
        }
    }

    /**
     * The one way the segment list changes (a seal, a merge, a bulk addition): the current list
     * with {@code added} (if not {@code null}) in place of {@code retired} is written to the
     * manifest, then searched (a new snapshot), then merged if a merge is due.
     *
     * @param sealed  the memtable {@code added} holds, which leaves the sealing list; or {@code null}
     * @param dropped ids a merge left out as deleted: their tombstones go once no segment or
     *                memtable holds them
     */
    private void publishLocked(IndexSegment added, List<IndexSegment> retired, Memtable sealed, Set<Long> dropped)
            throws IOException {
        IndexSnapshot s = index.snapshot;
        List<IndexSegment> segments = new ArrayList<>(s.segments());
        segments.removeAll(retired);
        if (added != null) {
            segments.add(added);
        }
        List<Memtable> sealing = s.sealing();
        if (sealed != null) {
            sealing = new ArrayList<>(sealing);
            sealing.remove(sealed);
        }
        Set<Long> tombstones = s.tombstones();
        if (!dropped.isEmpty()) {
            tombstones = ConcurrentHashMap.newKeySet();
            for (Long t : s.tombstones()) {
                if (!dropped.contains(t) || IndexSnapshot.inAny(t, segments) || s.inMemory(t)) {
                    tombstones.add(t);
                }
            }
        }
        index.writeManifestLocked(segments, tombstones);
        index.snapshot = new IndexSnapshot(List.copyOf(segments), s.active(), List.copyOf(sealing), tombstones);
        queueMergeLocked();
    }

    private void queueMergeLocked() {
        if (!mergeQueued && !index.closing && !index.closed && mergePolicy.pick(index.snapshot.segments()) != null) {
            mergeQueued = true;
            submitLocked(this::mergeTask);
        }
    }

    private void mergeTask() {
        List<IndexSegment> group;
        Set<Long> tombstones;
        synchronized (index.mutex) {
            mergeQueued = false;
            if (index.closing || index.closed) {
                return;
            }
            group = mergePolicy.pick(index.snapshot.segments());
            if (group == null) {
                return;
            }
            tombstones = index.snapshot.tombstones();
            for (IndexSegment s : group) {
                s.tryAcquire(); // listed in the snapshot, so still open
            }
        }
        rewrite(group, tombstones);
    }

    /**
     * Queues, behind any seal or merge, a rewrite of each segment that holds a deleted id, alone
     * and without those ids: the vectors of forgotten memories leave the files now rather than at
     * the segment's next merge. Maintainer only (elsewhere nothing is queued).
     *
     * @param expunged incremented by the number of deleted vectors dropped, once the task ran
     */
    void queueExpungeLocked(AtomicInteger expunged) {
        if (executor != null && !index.closing && !index.closed) {
            submitLocked(() -> expungeTask(expunged));
        }
    }

    private void expungeTask(AtomicInteger expunged) {
        List<IndexSegment> holding = new ArrayList<>();
        Set<Long> tombstones;
        synchronized (index.mutex) {
            if (index.closing || index.closed) {
                return;
            }
            tombstones = index.snapshot.tombstones();
            for (IndexSegment s : index.snapshot.segments()) {
                for (Long t : tombstones) {
                    if (s.contains(t)) {
                        s.tryAcquire(); // listed in the snapshot, so still open
                        holding.add(s);
                        break;
                    }
                }
            }
        }
        for (IndexSegment s : holding) {
            expunged.addAndGet(rewrite(List.of(s), tombstones));
        }
    }

    /**
     * Replaces the group (each segment acquired once by the caller) by one segment of its live
     * vectors; returns how many deleted ones were dropped (0 when it failed: the group stays).
     */
    private int rewrite(List<IndexSegment> group, Set<Long> tombstones) {
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
                synchronized (index.mutex) {
                    name = index.files.nextSegment();
                }
                merged = index.files.buildSegment(name, ids.stream().mapToLong(Long::longValue).toArray(), vectors);
            }
            synchronized (index.mutex) {
                publishLocked(merged, group, null, dropped);
            }
            for (IndexSegment s : group) {
                s.release(); // this task's reference
                s.release(); // the index's: unmapped once the last search using it ends
                Files.deleteIfExists(s.file());
            }
            merges.incrementAndGet();
            LOG.debug("Merged {} into {} ({} vectors, {} deleted dropped) in {} ms", group, merged, ids.size(),
                    dropped.size(), (System.nanoTime() - started) / 1_000_000);
            return dropped.size();
        } catch (IOException | RuntimeException e) {
            for (IndexSegment s : group) {
                s.release();
            }
            LOG.warn("Cannot merge the segments {} of the index {}: {}", group, index.dir, e.toString());
            return 0;
        }
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
    void addSegment(List<SegmentedIndex.Entry> entries) throws IOException {
        for (SegmentedIndex.Entry e : entries) {
            index.check(e.vector());
        }
        long[] ids;
        long[] pending;
        String name;
        List<Memtable> toSeal = new ArrayList<>();
        List<Memtable> beingSealed = new ArrayList<>();
        synchronized (index.mutex) {
            index.ensureOpen();
            if (index.lock == null) {
                throw new IllegalStateException("only the maintainer writes segments");
            }
            List<SegmentedIndex.Entry> missing = new ArrayList<>(entries.size());
            for (SegmentedIndex.Entry e : entries) {
                if (!index.presentLocked(e.id())) {
                    missing.add(e);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            entries = missing;
            ids = entries.stream().mapToLong(SegmentedIndex.Entry::id).toArray();
            pending = ids.clone();
            Arrays.sort(pending);
            index.building.add(pending);
            index.maxKnownId = Math.max(index.maxKnownId, pending[pending.length - 1]);
            name = index.files.nextSegment();
            freezeLocked();
            for (Memtable m : index.snapshot.sealing()) {
                if (m.writing) {
                    beingSealed.add(m);
                } else {
                    m.writing = true; // this thread seals it rather than wait behind a merge
                    m.queued = true;
                    toSeal.add(m);
                }
            }
        }
        Path file = index.dir.resolve(name);
        IndexSegment segment = null;
        boolean listed = false;
        try {
            for (Memtable m : toSeal) {
                seal(m);
            }
            List<VectorFloat<?>> vectors = new ArrayList<>(entries.size());
            for (SegmentedIndex.Entry e : entries) {
                vectors.add(IndexSegment.VECTORS.createFloatVector(e.vector()));
            }
            segment = index.files.buildSegment(name, ids, vectors);
            synchronized (index.mutex) {
                awaitSealsLocked(beingSealed);
                index.ensureOpen();
                publishLocked(segment, List.of(), null, Set.of());
                listed = true;
            }
        } finally {
            synchronized (index.mutex) {
                index.building.remove(pending); // by identity: arrays do not override equals
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
        while (memtables.stream().anyMatch(m -> m.writing && index.snapshot.sealing().contains(m))) {
            try {
                index.mutex.wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for the memtable's seal");
            }
        }
    }

    /** Drops every segment and tombstone and removes the manifest: the index is empty. Maintainer only. */
    void clear() throws IOException {
        List<IndexSegment> retired;
        synchronized (index.mutex) {
            index.ensureOpen();
            if (index.lock == null) {
                throw new IllegalStateException("only the maintainer removes segments");
            }
            IndexSnapshot s = index.snapshot;
            retired = s.segments();
            index.snapshot = new IndexSnapshot(List.of(), s.active(), s.sealing(), ConcurrentHashMap.newKeySet());
            Files.deleteIfExists(index.files.manifest());
            index.manifestDirty = false;
            index.manifestStamp = index.files.stamp();
        }
        for (IndexSegment seg : retired) {
            seg.release();
            Files.deleteIfExists(seg.file());
        }
    }
}
