package dev.funes.bench.eval;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class MetricsTest {

    private static final List<String> RANKED = List.of("D1:1", "D1:4", "D2:2", "D1:4", "D3:1", "D2:7");

    @Test
    void recallCountsTheEvidenceFoundAmongTheFirstK() {
        Set<String> evidence = Set.of("D1:4", "D3:1", "D9:9");
        assertThat(Metrics.recallAt(RANKED, evidence, 1)).isEqualTo(0.0);
        assertThat(Metrics.recallAt(RANKED, evidence, 2)).isCloseTo(1.0 / 3, within(1e-12));
        // A duplicate in the ranking is one item found, not two.
        assertThat(Metrics.recallAt(RANKED, evidence, 4)).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(Metrics.recallAt(RANKED, evidence, 5)).isCloseTo(2.0 / 3, within(1e-12));
        // k beyond the list: the whole list.
        assertThat(Metrics.recallAt(RANKED, evidence, 50)).isCloseTo(2.0 / 3, within(1e-12));
        assertThat(Metrics.recallAt(List.of(), evidence, 5)).isEqualTo(0.0);
    }

    @Test
    void recallIsUndefinedWithoutEvidence() {
        assertThatThrownBy(() -> Metrics.recallAt(RANKED, Set.of(), 5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("undefined");
        assertThatThrownBy(() -> Metrics.recallAt(RANKED, Set.of("D1:1"), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void successAndReciprocalRankLookForTheFirstRelevantResult() {
        assertThat(Metrics.successAt(RANKED, "D2:2"::equals, 2)).isEqualTo(0.0);
        assertThat(Metrics.successAt(RANKED, "D2:2"::equals, 3)).isEqualTo(1.0);
        assertThat(Metrics.reciprocalRank(RANKED, "D2:2"::equals)).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(Metrics.reciprocalRank(RANKED, "D1:4"::equals)).isEqualTo(0.5);
        assertThat(Metrics.reciprocalRank(RANKED, "D1:1"::equals)).isEqualTo(1.0);
        assertThat(Metrics.reciprocalRank(RANKED, "nope"::equals)).isEqualTo(0.0);
    }

    @Test
    void meanAveragesEachCutoffAndTheReciprocalRanks() {
        Metrics.Mean a = new Metrics.Mean();
        a.add(new double[] {0, 0.5, 1, 1}, 0.5);
        a.add(new double[] {1, 1, 1, 1}, 1);
        Metrics.Mean b = new Metrics.Mean();
        b.add(new double[] {0, 0, 0, 0.5}, 0.05);
        Metrics.Mean all = new Metrics.Mean();
        all.addAll(List.of(a, b));

        assertThat(a.questions()).isEqualTo(2);
        assertThat(a.atK(1)).isEqualTo(0.5);
        assertThat(a.atK(5)).isEqualTo(0.75);
        assertThat(a.mrr()).isEqualTo(0.75);
        assertThat(all.questions()).isEqualTo(3);
        assertThat(all.atK(20)).isCloseTo(2.5 / 3, within(1e-12));
        assertThat(all.mrr()).isCloseTo(1.55 / 3, within(1e-12));
        assertThat(new Metrics.Mean().atK(10)).isNaN();
        assertThatThrownBy(() -> a.atK(3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.add(new double[] {1}, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
