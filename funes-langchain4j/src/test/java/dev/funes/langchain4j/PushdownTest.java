package dev.funes.langchain4j;

import dev.funes.adapter.FilterPushdown;
import dev.langchain4j.store.embedding.filter.Filter;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;
import static org.assertj.core.api.Assertions.assertThat;

/** Which parts of a LangChain4j filter become Funes SQL filters. */
class PushdownTest {

    private static String of(Filter filter) {
        return Pushdown.of(filter).toString();
    }

    @Test
    void conjunctionsOfEqualityOnTheFieldKeysArePushedDown() {
        UUID session = UUID.fromString("5f0c2b9e-3d4a-4e8b-9c1d-7a6b5c4d3e2f");
        assertThat(of(metadataKey("project").isEqualTo("/p").and(metadataKey("agent").isEqualTo("codex"))
                .and(metadataKey("session").isEqualTo(session)).and(metadataKey("kind").isIn("decision", "note"))))
                .isEqualTo("FilterPushdown[project=/p, agent=codex, session=" + session
                        + ", kinds=[DECISION, NOTE], after=null, before=null, file=null]");
    }

    @Test
    void timeRangesAreWidenedByAMillisecondEachSide() {
        assertThat(of(metadataKey("timestamp").isGreaterThan(1000L).and(metadataKey("timestamp").isLessThanOrEqualTo(2000.7))))
                .isEqualTo("FilterPushdown[project=null, agent=null, session=null, kinds=null, after=999, before=2002, file=null]");
        assertThat(Pushdown.of(metadataKey("timestamp").isGreaterThan(5000L).and(metadataKey("timestamp").isLessThan(4000L)))
                .impossible()).isTrue();
    }

    @Test
    void disjunctionsNegationsOtherKeysAndValuesThatAreNoKindStayExact() {
        for (Filter filter : new Filter[] {
                metadataKey("agent").isEqualTo("a").or(metadataKey("agent").isEqualTo("b")),
                Filter.not(metadataKey("agent").isEqualTo("a")),
                metadataKey("agent").isNotEqualTo("a"),
                metadataKey("agent").isIn("a", "b"),
                metadataKey("team").isEqualTo("infra"),
                metadataKey("project").isEqualTo(7),
                metadataKey("kind").isEqualTo("Decision"),
                metadataKey("kind").isIn("decision", "meeting"),
                metadataKey("timestamp").isEqualTo(5L),
                metadataKey("timestamp").isGreaterThan(Double.NaN)}) {
            FilterPushdown p = Pushdown.of(filter);
            assertThat(p.isEmpty()).as(filter.toString()).isTrue();
            assertThat(p.impossible()).as(filter.toString()).isFalse();
        }
    }

    @Test
    void contradictionsNeedNoSearch() {
        assertThat(Pushdown.of(metadataKey("agent").isEqualTo("a").and(metadataKey("agent").isEqualTo("b"))).impossible())
                .isTrue();
        assertThat(Pushdown.of(metadataKey("kind").isEqualTo("note").and(metadataKey("kind").isEqualTo("decision")))
                .impossible()).isTrue();
        assertThat(Pushdown.of(metadataKey("agent").isEqualTo("a").and(metadataKey("agent").isEqualTo("a"))).impossible())
                .isFalse();
    }
}
