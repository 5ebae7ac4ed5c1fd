package dev.funes.adapter;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;
import dev.funes.SearchRequest;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The metadata conventions and filter pushdown the framework adapters share. */
class FilterPushdownTest {

    @Test
    void collectedConditionsBecomeTheRequestsFilters() {
        SearchRequest r = new FilterPushdown().equal(FieldMetadata.PROJECT, "/p").equal(FieldMetadata.AGENT, "codex")
                .kindIn(List.of("decision", "note")).kind("decision")
                .after(new BigDecimal("1000")).before(new BigDecimal("2000.7")).file("a.jsonl")
                .request("why", 7);
        assertThat(r.project()).isEqualTo("/p");
        assertThat(r.agent()).isEqualTo("codex");
        assertThat(r.kinds()).containsExactly(MemoryKind.DECISION);
        // widened a millisecond each side: > 1000 holds from 999 on, <= 2000.7 before 2002
        assertThat(r.after()).isEqualTo(Instant.ofEpochMilli(999));
        assertThat(r.before()).isEqualTo(Instant.ofEpochMilli(2002));
        assertThat(r.file()).isEqualTo("a.jsonl");
        assertThat(r.limit()).isEqualTo(7);
    }

    @Test
    void valuesThatCannotBePushedDownAddNothing() {
        FilterPushdown p = new FilterPushdown().equal(FieldMetadata.PROJECT, null).equal("team", "infra")
                .kind("Decision").kindIn(List.of("decision", "meeting")).after(null).before(null);
        assertThat(p.isEmpty()).isTrue();
        assertThat(p.impossible()).isFalse();
    }

    @Test
    void contradictionsAndEmptyRangesAreImpossible() {
        assertThat(new FilterPushdown().equal(FieldMetadata.AGENT, "a").equal(FieldMetadata.AGENT, "b").impossible())
                .isTrue();
        assertThat(new FilterPushdown().equal(FieldMetadata.AGENT, "a").equal(FieldMetadata.AGENT, "a").impossible())
                .isFalse();
        assertThat(new FilterPushdown().kind("note").kind("decision").impossible()).isTrue();
        FilterPushdown empty = new FilterPushdown().after(new BigDecimal(5000)).before(new BigDecimal(4000));
        assertThat(empty.impossible()).isTrue();
        assertThatThrownBy(() -> empty.request("q", 1)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("nothing to search");
        // beyond the store's last year nothing can be later; before its first nothing earlier
        assertThat(new FilterPushdown().after(BigDecimal.valueOf(FieldMetadata.MAX_TIMESTAMP).add(BigDecimal.TEN))
                .impossible()).isTrue();
        assertThat(new FilterPushdown().before(BigDecimal.valueOf(FieldMetadata.MIN_TIMESTAMP).subtract(BigDecimal.TEN))
                .impossible()).isTrue();
        // a bound far outside every year is clamped, not an overflow
        assertThat(new FilterPushdown().before(new BigDecimal("1e40")).isEmpty()).isTrue();
    }

    @Test
    void aMemorysFieldsBecomeMetadataThatItsOwnMetadataCannotOverride() {
        Instant start = Instant.parse("2026-12-04T10:00:00Z");
        Instant end = Instant.parse("2026-12-04T10:05:00Z");
        Memory m = Memory.builder(MemoryKind.DECISION, "claude-code", "We chose SQLite.").project("/p").session("s1")
                .time(start, end).metadata("agent", "forged").metadata("branch", "main")
                .provenance(new Provenance(Path.of("/logs/s1.jsonl"), 3, 5, 100, 250, List.of())).build();
        Map<String, Object> meta = FieldMetadata.of(m);
        assertThat(meta).containsEntry("branch", "main").containsEntry(FieldMetadata.AGENT, "claude-code")
                .containsEntry(FieldMetadata.KIND, "decision").containsEntry(FieldMetadata.PROJECT, "/p")
                .containsEntry(FieldMetadata.SESSION, "s1")
                .containsEntry(FieldMetadata.TIMESTAMP, end.toEpochMilli())
                .containsEntry(FieldMetadata.STARTED_AT, start.toString())
                .containsEntry(FieldMetadata.LINE_START, 3).containsEntry(FieldMetadata.LINE_END, 5)
                .containsEntry(FieldMetadata.BYTE_START, 100L).containsEntry(FieldMetadata.BYTE_END, 250L)
                .containsEntry(FieldMetadata.SOURCE, Path.of("/logs/s1.jsonl").toString());
    }

    @Test
    void timesAreReadFromNumbersAndIsoStringsAndOtherValuesAreRefusedByName() {
        assertThat(FieldMetadata.time(1_000L, "document 1")).isEqualTo(Instant.ofEpochMilli(1000));
        assertThat(FieldMetadata.time(" 2026-12-04 ", "document 1")).isEqualTo(Instant.parse("2026-12-04T00:00:00Z"));
        assertThat(FieldMetadata.time("2026-12-04T11:00:00+01:00", "document 1"))
                .isEqualTo(Instant.parse("2026-12-04T10:00:00Z"));
        assertThat(FieldMetadata.time("yesterday", "document 1")).isNull();
        assertThatThrownBy(() -> FieldMetadata.time(1.5, "document 7")).hasMessageStartingWith("document 7: metadata 'timestamp'");
        assertThatThrownBy(() -> FieldMetadata.time(Long.MAX_VALUE, "entry 8")).hasMessageContaining("outside years 0 to 9999");
        assertThat(FieldMetadata.kind("convention")).isEqualTo(MemoryKind.CONVENTION);
        assertThat(FieldMetadata.kind("Convention")).isEqualTo(MemoryKind.NOTE);
    }
}
