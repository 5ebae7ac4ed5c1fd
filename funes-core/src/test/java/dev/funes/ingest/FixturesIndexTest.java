package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Indexer over the whole shared fixtures folder, with every built-in format: each agent
 * gives sessions and memories, nothing fails, and a second run finds nothing changed.
 */
class FixturesIndexTest {

    @Test
    void everyAgentOfTheFixturesIsIndexed() {
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).formats(AgentLogs.formats(ClassLoader.getPlatformClassLoader())).build();

        IndexReport report = indexer.index(List.of(Logs.fixtures("")));

        assertThat(report.filesFailed()).isZero();
        assertThat(report.problems()).isEmpty();
        // README, SOURCES, and the Cline task's ui_messages, task_metadata and focus chain are not logs.
        assertThat(report.filesIgnored()).isEqualTo(5);
        Map<String, List<Memory>> byAgent = store.all().stream()
                .collect(Collectors.groupingBy(Memory::agent, TreeMap::new, Collectors.toList()));
        assertThat(byAgent.keySet()).containsExactlyInAnyOrder(
                Set.of("claude-code", "codex", "aider", "gemini", "cline", "openhands", "swe-agent").toArray(String[]::new));
        byAgent.forEach((agent, memories) -> {
            assertThat(memories).as(agent).isNotEmpty();
            assertThat(memories.stream().map(Memory::session).distinct().count()).as(agent).isPositive();
        });

        IndexReport again = indexer.index(List.of(Logs.fixtures("")));
        assertThat(again.filesUnchanged()).isEqualTo(report.filesIndexed());
        assertThat(again.memoriesAdded()).isZero();
    }
}
