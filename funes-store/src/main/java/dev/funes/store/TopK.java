package dev.funes.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/** Keeps the {@code k} best-scoring vectors offered to it; not thread-safe. */
final class TopK {
    private static final Comparator<AnnGraph.Scored> WORST_FIRST =
            Comparator.comparingDouble(AnnGraph.Scored::similarity)
                      .thenComparing(Comparator.comparingLong(AnnGraph.Scored::vectorId).reversed());

    private final int k;
    private final PriorityQueue<AnnGraph.Scored> heap;

    TopK(int k) {
        this.k = k;
        this.heap = new PriorityQueue<>(Math.min(k, 1024) + 1, WORST_FIRST);
    }

    void offer(long vectorId, double similarity) {
        var scored = new AnnGraph.Scored(vectorId, similarity);
        if (heap.size() < k) {
            heap.add(scored);
        } else if (WORST_FIRST.compare(scored, heap.peek()) > 0) {
            heap.poll();
            heap.add(scored);
        }
    }

    void offerAll(List<AnnGraph.Scored> scored) {
        for (AnnGraph.Scored s : scored) {
            offer(s.vectorId(), s.similarity());
        }
    }

    /** The kept vectors, best first (ties: smaller id first). */
    List<AnnGraph.Scored> sorted() {
        List<AnnGraph.Scored> out = new ArrayList<>(heap);
        out.sort(WORST_FIRST.reversed());
        return out;
    }
}
