package dev.funes.store;

import java.util.Arrays;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;

/**
 * An immutable set of vector ids: a bitmap over {@code 0..max} when the ids are dense enough
 * (vector ids count up from 1, so the set of a filter that many memories pass is), else a sorted
 * array searched by bisection. A graph walk or a scan asks {@link #contains} once per vector it
 * meets, so the bitmap's constant-time answer matters for large sets.
 */
final class VectorIdSet implements LongPredicate {

    /** A bitmap is used while it takes at most this many times the bytes of the sorted array. */
    private static final int BITMAP_MAX_RATIO = 4;

    /** The sorted distinct ids, or null for a bitmap. */
    private final long[] ids;
    /** The bitmap, or null. */
    private final long[] words;
    private final int size;

    private VectorIdSet(long[] sortedDistinct, long[] words, int size) {
        this.ids = sortedDistinct;
        this.words = words;
        this.size = size;
    }

    /** The set of the given ids, which may be unsorted and repeated; the array is not kept. */
    static VectorIdSet of(long[] ids, int count) {
        long max = -1;
        boolean negative = false;
        for (int i = 0; i < count; i++) {
            max = Math.max(max, ids[i]);
            negative |= ids[i] < 0;
        }
        // 64 ids per word: the bitmap's words against the array's longs.
        if (!negative && count > 0 && max / 64 + 1 <= (long) BITMAP_MAX_RATIO * count && max < Integer.MAX_VALUE) {
            long[] words = new long[(int) (max / 64) + 1];
            int distinct = 0;
            for (int i = 0; i < count; i++) {
                long id = ids[i];
                long bit = 1L << id;
                int w = (int) (id >>> 6);
                if ((words[w] & bit) == 0) {
                    words[w] |= bit;
                    distinct++;
                }
            }
            return new VectorIdSet(null, words, distinct);
        }
        long[] sorted = Arrays.copyOf(ids, count);
        Arrays.sort(sorted);
        int distinct = 0;
        for (int i = 0; i < sorted.length; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[distinct++] = sorted[i];
            }
        }
        return new VectorIdSet(Arrays.copyOf(sorted, distinct), null, distinct);
    }

    /**
     * The set of the ids in a comma-separated list of decimal numbers, as SQLite's
     * {@code group_concat} writes them ({@code null} or empty: none): one string crosses from
     * SQLite instead of one JDBC row per id, which at hundreds of thousands of ids was most of the read.
     *
     * @throws IllegalArgumentException if the list holds anything else
     */
    static VectorIdSet parse(String list) {
        if (list == null || list.isEmpty()) {
            return of(new long[0], 0);
        }
        long[] ids = new long[Math.max(16, list.length() / 6)];
        int n = 0;
        long value = 0;
        boolean digits = false;
        for (int i = 0, len = list.length(); i <= len; i++) {
            char ch = i == len ? ',' : list.charAt(i);
            if (ch >= '0' && ch <= '9') {
                value = value * 10 + (ch - '0');
                digits = true;
            } else if (ch == ',' && digits) {
                if (n == ids.length) {
                    ids = Arrays.copyOf(ids, n * 2);
                }
                ids[n++] = value;
                value = 0;
                digits = false;
            } else {
                throw new IllegalArgumentException("not a list of vector ids at character " + i + ": "
                        + list.substring(Math.max(0, i - 20), Math.min(len, i + 20)));
            }
        }
        return of(ids, n);
    }

    boolean contains(long id) {
        if (words != null) {
            long w = id >>> 6;
            return id >= 0 && w < words.length && (words[(int) w] & (1L << id)) != 0;
        }
        return Arrays.binarySearch(ids, id) >= 0;
    }

    @Override
    public boolean test(long id) {
        return contains(id);
    }

    int size() {
        return size;
    }

    /** Whether {@link #contains} is a bit test (else a bisection). For tests. */
    boolean bitmap() {
        return words != null;
    }

    /** The ids, sorted; a copy. */
    long[] toArray() {
        if (words == null) {
            return ids.clone();
        }
        long[] out = new long[size];
        int n = 0;
        for (int w = 0; w < words.length; w++) {
            long bits = words[w];
            while (bits != 0) {
                out[n++] = ((long) w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
            }
        }
        return out;
    }

    /** Each id, ascending. */
    void forEach(LongConsumer action) {
        if (words == null) {
            for (long id : ids) {
                action.accept(id);
            }
            return;
        }
        for (int w = 0; w < words.length; w++) {
            long bits = words[w];
            while (bits != 0) {
                action.accept(((long) w << 6) + Long.numberOfTrailingZeros(bits));
                bits &= bits - 1;
            }
        }
    }

    /** Each id from {@code from} to {@code to} (both included), ascending. */
    void forEachBetween(long from, long to, LongConsumer action) {
        if (from > to) {
            return;
        }
        if (words == null) {
            int at = Arrays.binarySearch(ids, from);
            for (int i = at >= 0 ? at : -at - 1; i < ids.length && ids[i] <= to; i++) {
                action.accept(ids[i]);
            }
            return;
        }
        long low = Math.max(0, from);
        long high = Math.min(to, (long) words.length * 64 - 1);
        if (low > high) {
            return;
        }
        int first = (int) (low >>> 6);
        int last = (int) (high >>> 6);
        for (int w = first; w <= last; w++) {
            long bits = words[w];
            if (w == first) {
                bits &= -1L << (low & 63);
            }
            if (w == last && (high & 63) != 63) {
                bits &= (1L << ((high & 63) + 1)) - 1;
            }
            while (bits != 0) {
                action.accept(((long) w << 6) + Long.numberOfTrailingZeros(bits));
                bits &= bits - 1;
            }
        }
    }
}
