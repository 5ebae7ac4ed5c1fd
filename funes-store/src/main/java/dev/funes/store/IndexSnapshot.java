package dev.funes.store;

import dev.funes.store.SegmentedIndex.Hit;
import io.github.jbellis.jvector.vector.types.VectorFloat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;

/**
 * What the searches of a {@link SegmentedIndex} read: immutable lists; the memtables grow
 * (append-only) and the tombstone set gains ids while the snapshot is in use, which only makes a
 * search stricter. The index replaces its snapshot whenever a segment is listed or retired.
 *
 * @param segments   the listed segments, oldest first
 * @param active     the memtable additions go to
 * @param sealing    memtables being written as segments, still searched
 * @param tombstones the deleted ids still present somewhere
 */
record IndexSnapshot(List<IndexSegment> segments, Memtable active, List<Memtable> sealing, Set<Long> tombstones) {

    /** Whether a memtable (active or sealing) holds the id, deleted or not. */
    boolean inMemory(long id) {
        if (active.contains(id)) {
            return true;
        }
        for (Memtable m : sealing) {
            if (m.contains(id)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a segment or memtable holds the id, deleted or not. */
    boolean holds(long id) {
        return inMemory(id) || inAny(id, segments);
    }

    /** Whether one of the segments holds the id. */
    static boolean inAny(long id, List<IndexSegment> segments) {
        for (IndexSegment seg : segments) {
            if (seg.contains(id)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Takes a reference to every segment, so that none is unmapped while searched; {@code false}
     * (and none taken) when a merge retired one meanwhile.
     */
    boolean tryAcquire() {
        List<IndexSegment> taken = new ArrayList<>(segments.size());
        for (IndexSegment seg : segments) {
            if (seg.tryAcquire()) {
                taken.add(seg);
            } else {
                taken.forEach(IndexSegment::release);
                return false;
            }
        }
        return true;
    }

    /** Releases what {@link #tryAcquire()} took. */
    void release() {
        segments.forEach(IndexSegment::release);
    }

    /** See {@link SegmentedIndex#search(float[], int, int, LongPredicate)}; the segments acquired. */
    List<Hit> search(float[] query, int k, int beam, LongPredicate allowed) {
        LongPredicate accept = allowed == null
                ? id -> tombstones.isEmpty() || !tombstones.contains(id)
                : id -> (tombstones.isEmpty() || !tombstones.contains(id)) && allowed.test(id);
        VectorFloat<?> q = IndexSegment.VECTORS.createFloatVector(query);
        Collector collector = new Collector();
        for (IndexSegment seg : segments) {
            seg.search(q, k, beam, accept, collector);
        }
        active.search(q, k, beam, accept, collector);
        for (Memtable m : sealing) {
            m.search(q, k, beam, accept, collector);
        }
        return collector.top(k);
    }

    /**
     * The {@code k} most similar among the given ids, the segments acquired: scanned on PQ codes
     * and the best {@code beam} reranked ({@code scan}), or scored exactly.
     */
    List<Hit> among(float[] query, int k, VectorIdSet ids, boolean scan, int beam) {
        LongPredicate accept = id -> tombstones.isEmpty() || !tombstones.contains(id);
        Collector collector = new Collector();
        VectorFloat<?> q = IndexSegment.VECTORS.createFloatVector(query);
        for (IndexSegment seg : segments) {
            if (scan) {
                seg.scanAmong(q, query, ids, beam, accept, collector);
            } else {
                seg.exact(query, ids, accept, collector);
            }
        }
        List<Memtable> memtables = new ArrayList<>(sealing);
        memtables.add(active);
        for (Memtable m : memtables) {
            // The smaller side is walked: a large allowed set against a small memtable, or the reverse.
            LongConsumer score = id -> {
                float[] v = m.vector(id);
                if (v != null && accept.test(id)) {
                    double dot = 0;
                    for (int i = 0; i < v.length; i++) {
                        dot += query[i] * v[i];
                    }
                    collector.offer(id, dot);
                }
            };
            if (ids.size() > m.size()) {
                m.forEachId(id -> {
                    if (ids.contains(id)) {
                        score.accept(id);
                    }
                });
            } else {
                ids.forEach(score);
            }
        }
        return collector.top(k);
    }

    /** Keeps the best score per id, then the top {@code k}. */
    private static final class Collector implements SegmentedIndex.HitSink {
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

    /** The largest id in a segment; 0 when there is none. */
    long segmentsMaxId() {
        long max = 0;
        for (IndexSegment s : segments) {
            max = Math.max(max, s.maxId());
        }
        return max;
    }

    /** The ids in segments (deleted ones included), sorted, distinct. */
    long[] segmentIds() {
        return segments.stream().flatMapToLong(s -> Arrays.stream(s.sortedIds())).sorted().distinct().toArray();
    }

    /**
     * The digest of the live ids in segments (those not deleted), or {@code null} when an id is in
     * two segments (the digest of a set would not describe them).
     */
    VectorDigest segmentDigest() {
        VectorDigest digest = VectorDigest.EMPTY;
        for (IndexSegment seg : segments) {
            digest = digest.plus(seg.digest());
        }
        for (Long t : tombstones) {
            int holders = 0;
            for (IndexSegment seg : segments) {
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

    /** Vectors in segments, minus those deleted. */
    long segmentVectors() {
        long n = 0;
        for (IndexSegment seg : segments) {
            n += seg.size();
        }
        for (Long t : tombstones) {
            if (segments.stream().anyMatch(seg -> seg.contains(t))) {
                n--;
            }
        }
        return n;
    }

    /** Vectors in memtables (sealing ones included), minus those deleted. */
    int memtableVectors() {
        int n = active.size();
        for (Memtable m : sealing) {
            n += m.size();
        }
        for (Long t : tombstones) {
            if (active.contains(t) || sealing.stream().anyMatch(m -> m.contains(t))) {
                n--;
            }
        }
        return n;
    }

    /**
     * The view after following a manifest another process wrote: its segments, its tombstones and
     * this process's own, and in {@code memtable} (new, empty) the vectors no listed segment holds.
     */
    IndexSnapshot followed(List<IndexSegment> listed, long[] listedTombstones, Memtable memtable) {
        Set<Long> all = ConcurrentHashMap.newKeySet();
        for (long t : listedTombstones) {
            all.add(t);
        }
        all.addAll(tombstones); // this process's own deletions, not known to the maintainer
        List<Memtable> old = new ArrayList<>(sealing);
        old.add(active);
        for (Memtable mt : old) {
            mt.forEach((id, v) -> {
                if (listed.stream().noneMatch(seg -> seg.contains(id)) && !memtable.contains(id)) {
                    memtable.add(id, v);
                }
            });
        }
        return new IndexSnapshot(List.copyOf(listed), memtable, List.of(), all);
    }
}
