package dev.funes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Retrieval;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FusionTest {

    private static Memory memory(String id) {
        return Memory.builder(MemoryKind.EXCHANGE, "claude-code", "text " + id).id(id).build();
    }

    /** Each candidate's fused score, by id. */
    private static Map<String, Double> fused(Fusion fusion) {
        Map<String, Double> scores = new HashMap<>();
        for (Fusion.Candidate c : fusion.ranked()) {
            scores.put(c.memory.id(), c.fused());
        }
        return scores;
    }

    /** Dense similarities 0.9, 0.8, ... and BM25 scores 10, 9, ... for {@code n} memories each. */
    private static Fusion lists(int n, int anchor) {
        Fusion fusion = new Fusion(FusionOptions.MINMAX, Retrieval.HYBRID, anchor);
        for (int i = 0; i < n; i++) {
            fusion.dense(memory("d" + i), i + 1, 0.9 - i * 0.1);
            fusion.lexical(memory("l" + i), i + 1, 10 - i);
        }
        fusion.dense(memory("both"), n + 1, 0.9 - n * 0.1);
        fusion.lexical(memory("both"), n + 1, 10 - n);
        return fusion;
    }

    @Test
    void longerListsLeaveTheScoresOfTheFirstCandidatesAsTheyWere() {
        Map<String, Double> short4 = fused(lists(4, 5));   // 5 candidates a list: all within the anchor
        Map<String, Double> long8 = fused(lists(8, 5));    // 9 a list: the first 5 set the scale
        for (Map.Entry<String, Double> e : short4.entrySet()) {
            assertThat(long8.get(e.getKey())).as(e.getKey()).isCloseTo(e.getValue(), within(1e-12));
        }
        // Below the first 5 a list adds nothing: d5..d7, l5..l7 (and "both", 9th in each).
        assertThat(long8.get("d6")).isZero();
        assertThat(long8.get("l7")).isZero();
        assertThat(long8.get("both")).isZero();
        // Without an anchor the longer lists rescale everything: the 5th is no longer 0.
        Map<String, Double> unanchored = fused(lists(8, Integer.MAX_VALUE));
        assertThat(unanchored.get("both")).isZero();
        assertThat(unanchored.get("l4")).isGreaterThan(0);
        assertThat(short4.get("both")).isZero();
    }

    @Test
    void theFirstCandidatesScaleFromZeroToTheirWeight() {
        Map<String, Double> scores = fused(lists(4, 5));
        FusionOptions o = FusionOptions.MINMAX;
        assertThat(scores.get("d0")).isCloseTo(o.denseWeight(), within(1e-12));
        assertThat(scores.get("l0")).isCloseTo(o.lexicalWeight(), within(1e-12));
        assertThat(scores.get("d2")).isCloseTo(o.denseWeight() * 0.5, within(1e-12));
        assertThat(List.of(scores.get("d3"), scores.get("l3"))).allSatisfy(s -> assertThat(s).isGreaterThan(0));
    }

    @Test
    void anAnchorBelowOneIsRefused() {
        assertThatThrownBy(() -> new Fusion(FusionOptions.MINMAX, Retrieval.HYBRID, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("anchor");
    }
}
