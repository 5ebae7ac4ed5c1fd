package dev.funes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A set of vector ids answers as the ids it was made of, in either form (a bitmap for dense ids,
 * a sorted array for sparse ones), and reads SQLite's {@code group_concat} list exactly.
 */
class VectorIdSetTest {

    private static void assertSame(VectorIdSet set, TreeSet<Long> truth, long probeUpTo) {
        assertThat(set.size()).isEqualTo(truth.size());
        assertThat(set.toArray()).containsExactly(truth.stream().mapToLong(Long::longValue).toArray());
        List<Long> each = new ArrayList<>();
        set.forEach(each::add);
        assertThat(each).containsExactlyElementsOf(truth);
        for (long id = -70; id <= probeUpTo; id++) {
            assertThat(set.contains(id)).as("id %d", id).isEqualTo(truth.contains(id));
        }
        for (long id : truth) {
            assertThat(set.contains(id)).isTrue();
            assertThat(set.contains(id + (1L << 33))).isFalse(); // same low bits, far beyond the bitmap
        }
        // Ranges: empty, reversed, within a word, across words, beyond either end, word edges.
        long[][] ranges = {{5, 4}, {-100, -1}, {0, 0}, {3, 65}, {63, 64}, {64, 127}, {1, probeUpTo}, {-5, 1L << 40},
                {probeUpTo / 2, probeUpTo / 2 + 200}, {127, 128}, {1L << 36, 1L << 36}};
        for (long[] range : ranges) {
            List<Long> between = new ArrayList<>();
            set.forEachBetween(range[0], range[1], between::add);
            List<Long> expected = range[0] > range[1] ? List.of()
                    : new ArrayList<>(truth.subSet(range[0], true, range[1], true));
            assertThat(between).as("from %d to %d", range[0], range[1]).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void denseIdsMakeABitmapSparseOnesAnArrayBothExact() {
        Random random = new Random(7);
        TreeSet<Long> dense = new TreeSet<>();
        long[] ids = new long[3000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = 1 + random.nextInt(5000); // repeats included
            dense.add(ids[i]);
        }
        VectorIdSet bitmap = VectorIdSet.of(ids, ids.length);
        assertThat(bitmap.bitmap()).isTrue();
        assertSame(bitmap, dense, 5200);

        TreeSet<Long> sparse = new TreeSet<>(List.of(3L, 64L, 65L, 1L << 36, 5L));
        long[] some = {1L << 36, 5, 65, 3, 64, 5};
        VectorIdSet array = VectorIdSet.of(some, some.length);
        assertThat(array.bitmap()).isFalse();
        assertSame(array, sparse, 200);

        assertThat(VectorIdSet.of(new long[] {9, 9, 2, 7}, 2).toArray()).containsExactly(9); // only the first count
        assertThat(VectorIdSet.of(new long[0], 0).size()).isZero();
    }

    @Test
    void theListOfGroupConcatIsReadExactly() {
        VectorIdSet set = VectorIdSet.parse("12,7,12,123456789012,0");
        assertThat(set.toArray()).containsExactly(0, 7, 12, 123456789012L);
        assertThat(VectorIdSet.parse(null).size()).isZero();
        assertThat(VectorIdSet.parse("").size()).isZero();
        StringBuilder many = new StringBuilder();
        TreeSet<Long> truth = new TreeSet<>();
        for (long id = 1; id <= 100_000; id += 3) {
            many.append(many.length() == 0 ? "" : ",").append(id);
            truth.add(id);
        }
        assertSame(VectorIdSet.parse(many.toString()), truth, 1000);
        assertThatThrownBy(() -> VectorIdSet.parse("1,2x,3")).hasMessageContaining("character 3");
        assertThatThrownBy(() -> VectorIdSet.parse("1,-2")).isInstanceOf(IllegalArgumentException.class);
    }
}
