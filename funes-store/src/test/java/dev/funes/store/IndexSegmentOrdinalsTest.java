package dev.funes.store;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The ordinal map of a segment whose ids are not ascending (a merged one), built without boxing. */
class IndexSegmentOrdinalsTest {

    private static final long SEED = 5L;

    @Test
    void eachSortedIdMapsToTheOrdinalThatHoldsIt() {
        Random random = new Random(SEED);
        long[] ids = random.longs(2_000, 1, 1_000_000_000L).distinct().toArray();
        long[] sorted = ids.clone();
        Arrays.sort(sorted);
        int[] ordinals = IndexSegment.ordinals(ids, sorted);
        for (int i = 0; i < sorted.length; i++) {
            assertThat(ids[ordinals[i]]).isEqualTo(sorted[i]);
        }
        assertThat(IndexSegment.ordinals(new long[] {30, 10, 20}, new long[] {10, 20, 30})).containsExactly(1, 2, 0);
    }
}
