package dev.funes.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/** Keeps the {@code k} best-scoring vectors offered to it; not thread-safe. */
final class TopK {
    private static final Comparator<SegmentedIndex.Hit> WORST_FIRST =
            Comparator.comparingDouble(SegmentedIndex.Hit::score)
                      .thenComparing(Comparator.comparingLong(SegmentedIndex.Hit::id).reversed());

    private final int k;
    private final PriorityQueue<SegmentedIndex.Hit> heap;

    TopK(int k) {
        this.k = k;
        this.heap = new PriorityQueue<>(Math.min(k, 1024) + 1, WORST_FIRST);
    }

    void offer(long vectorId, double similarity) {
        var scored = new SegmentedIndex.Hit(vectorId, similarity);
        if (heap.size() < k) {
            heap.add(scored);
        } else if (WORST_FIRST.compare(scored, heap.peek()) > 0) {
            heap.poll();
            heap.add(scored);
        }
    }

    void offerAll(List<SegmentedIndex.Hit> scored) {
        for (SegmentedIndex.Hit s : scored) {
            offer(s.id(), s.score());
        }
    }

    /** The kept vectors, best first (ties: smaller id first). */
    List<SegmentedIndex.Hit> sorted() {
        List<SegmentedIndex.Hit> out = new ArrayList<>(heap);
        out.sort(WORST_FIRST.reversed());
        return out;
    }
}
