package dev.funes.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.StoreStats;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link MemoryStore#stats}, whose counts a read connection keeps until the database changes: every
 * call counts what the store holds at that moment, after adds and forgets by the same store and by
 * another store of the same directory (another connection, as another process would be). One read
 * connection, so that every call goes through the connection that kept the counts; then the default.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatsCountsTest {

    private final Embedder embedder = TestModel.shared();

    private static Memory memory(MemoryKind kind, String agent, String text) {
        return Memory.builder(kind, agent, text).session("s-" + agent).build();
    }

    private Path dir;
    private StoreOptions options;

    /**
     * Every call of {@code store.stats()} counts these, and the rest of its counts are those a store
     * opened now (new connections, nothing kept) reads.
     */
    private void assertCounts(MemoryStore store, long memories, Map<String, Long> byKind, Map<String, Long> byAgent) {
        StoreStats fresh;
        try (MemoryStore opened = FunesStore.open(dir, embedder, options)) {
            fresh = opened.stats();
        }
        assertThat(fresh.memories()).isEqualTo(memories);
        for (int i = 0; i < 6; i++) { // more calls than read connections: each connection answers at least once
            StoreStats stats = store.stats();
            assertThat(stats.memories()).as("memories, call %d", i).isEqualTo(memories);
            assertThat(stats.byKind()).as("by kind, call %d", i).isEqualTo(byKind);
            assertThat(stats.byAgent()).as("by agent, call %d", i).isEqualTo(byAgent);
            assertThat(List.of(stats.sessions(), stats.sources(), stats.vectors())).as("sessions, sources, vectors, call %d", i)
                    .isEqualTo(List.of(fresh.sessions(), fresh.sources(), fresh.vectors()));
        }
    }

    @Test
    void countsFollowEveryChangeWithOneReadConnection(@TempDir Path dir) {
        everyChangeIsCounted(dir, StoreOptions.builder().readConnections(1).build());
    }

    @Test
    void countsFollowEveryChangeWithTheDefaultReadConnections(@TempDir Path dir) {
        everyChangeIsCounted(dir, StoreOptions.defaults());
    }

    private void everyChangeIsCounted(Path dir, StoreOptions options) {
        this.dir = dir;
        this.options = options;
        Memory first = memory(MemoryKind.EXCHANGE, "claude-code", "the zeppelin migration renames the quokka column");
        Memory note = memory(MemoryKind.NOTE, "api", "the release job signs the jar with the team key");
        Memory decision = memory(MemoryKind.DECISION, "codex", "we keep the ledger append-only and compact it weekly");
        try (MemoryStore store = FunesStore.open(dir, embedder, options)) {
            assertCounts(store, 0, Map.of(), Map.of());
            assertThat(store.add(first)).isTrue();
            assertCounts(store, 1, Map.of("exchange", 1L), Map.of("claude-code", 1L));

            try (MemoryStore other = FunesStore.open(dir, embedder, options)) {
                assertCounts(other, 1, Map.of("exchange", 1L), Map.of("claude-code", 1L));
                assertThat(other.add(note)).isTrue();
            }
            assertCounts(store, 2, Map.of("exchange", 1L, "note", 1L), Map.of("claude-code", 1L, "api", 1L));

            assertThat(store.addAll(List.of(decision)).added()).isEqualTo(1);
            assertCounts(store, 3, Map.of("exchange", 1L, "note", 1L, "decision", 1L),
                    Map.of("claude-code", 1L, "api", 1L, "codex", 1L));

            assertThat(FunesStore.forget(store, List.of(first.id())).memories()).isEqualTo(1);
            assertCounts(store, 2, Map.of("note", 1L, "decision", 1L), Map.of("api", 1L, "codex", 1L));
        }
    }
}
