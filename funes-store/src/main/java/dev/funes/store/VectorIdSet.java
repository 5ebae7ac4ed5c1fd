package dev.funes.store;

import java.util.Arrays;
import java.util.function.LongConsumer;

/** An immutable set of vector ids: a sorted array, searched by bisection. */
final class VectorIdSet {
    private final long[] ids;

    private VectorIdSet(long[] sortedDistinct) {
        this.ids = sortedDistinct;
    }

    /** The set of the given ids, which may be unsorted and repeated; the array is not kept. */
    static VectorIdSet of(long[] ids, int count) {
        long[] sorted = Arrays.copyOf(ids, count);
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        return new VectorIdSet(Arrays.copyOf(sorted, distinct));
    }

    boolean contains(long id) {
        return Arrays.binarySearch(ids, id) >= 0;
    }

    int size() {
        return ids.length;
    }

    /** The ids, sorted; a copy. */
    long[] toArray() {
        return ids.clone();
    }

    void forEach(LongConsumer action) {
        for (long id : ids) {
            action.accept(id);
        }
    }
}
