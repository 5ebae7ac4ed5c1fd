package dev.funes.bench.eval;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

class EvidenceIdsTest {

    private static final Predicate<String> TURNS = Set.of("D1:3", "D8:6", "D9:17", "D11:26", "D30:5", "D4:4",
            "D4:6", "D9:1")::contains;

    @Test
    void aWellFormedExistingIdIsKeptAsItIs() {
        EvidenceIds.Normalised n = EvidenceIds.normalise("D1:3", TURNS);
        assertThat(n.ids()).containsExactly("D1:3");
        assertThat(n.dropped()).isEmpty();
        assertThat(n.clean()).isTrue();
    }

    @Test
    void severalIdsInOneStringAreSplit() {
        assertThat(EvidenceIds.normalise("D8:6; D9:17", TURNS).ids()).containsExactly("D8:6", "D9:17");
        EvidenceIds.Normalised spaced = EvidenceIds.normalise("D9:1 D4:4 D4:6", TURNS);
        assertThat(spaced.ids()).containsExactly("D9:1", "D4:4", "D4:6");
        assertThat(spaced.clean()).isFalse();
    }

    @Test
    void aStrayColonAndALeadingZeroAreRepaired() {
        assertThat(EvidenceIds.normalise("D:11:26", TURNS).ids()).containsExactly("D11:26");
        assertThat(EvidenceIds.normalise("D30:05", TURNS).ids()).containsExactly("D30:5");
        assertThat(EvidenceIds.normalise("D30:05", TURNS).clean()).isFalse();
    }

    @Test
    void unreadableAndDanglingIdsAreDroppedAndReported() {
        EvidenceIds.Normalised bare = EvidenceIds.normalise("D", TURNS);
        assertThat(bare.ids()).isEmpty();
        assertThat(bare.dropped()).containsExactly("D");
        EvidenceIds.Normalised dangling = EvidenceIds.normalise("D10:19", TURNS);
        assertThat(dangling.ids()).isEmpty();
        assertThat(dangling.dropped()).containsExactly("D10:19");
        EvidenceIds.Normalised mixed = EvidenceIds.normalise("D1:3, D0:1,D8:6", TURNS);
        assertThat(mixed.ids()).containsExactly("D1:3", "D8:6");
        assertThat(mixed.dropped()).isEqualTo(List.of("D0:1"));
    }
}
