package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The real Cline task folder in the shared fixtures (see its SOURCES.md); skipped where it is absent. */
class ClineFixturesTest {

    private static Path history() {
        return Logs.fixtures("cline").resolve("online-card-architecture-1769053680585").resolve("api_conversation_history.json");
    }

    @Test
    void theHistoryIsDetectedAndParsesCompletely() throws Exception {
        Path file = history();
        byte[] bytes = Files.readAllBytes(file);
        Logs.Parsed parsed = Logs.parse(AgentLogs.cline(), file);
        Logs.Lines lines = Logs.Lines.of(file);

        assertThat(AgentLogs.cline().canRead(file, Arrays.copyOf(bytes, Math.min(bytes.length, Indexer.HEAD_BYTES)))).isTrue();
        for (String other : List.of("ui_messages.json", "task_metadata.json", "focus_chain_taskid_1769053680585.md")) {
            Path f = file.resolveSibling(other);
            byte[] head = Arrays.copyOf(Files.readAllBytes(f), (int) Math.min(Files.size(f), Indexer.HEAD_BYTES));
            assertThat(AgentLogs.formats()).as(other).noneMatch(format -> format.canRead(f, head));
        }
        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().records()).isEqualTo(94);
        assertThat(parsed.result().indexedBytes()).isEqualTo(bytes.length);
        assertThat(parsed.memories()).isNotEmpty().allSatisfy(m -> Logs.assertCitedLinesExist(m, lines));
    }

    @Test
    void theTaskIsTheRequestAndTheGameActionsItCreatedAreRemembered() {
        List<Memory> memories = Logs.parse(AgentLogs.cline(), history()).memories();

        assertThat(memories.get(0).text()).startsWith("User: You have been given a Dockerized codebase for an unfinished 3D multiplayer Unity deck building rogue like.");
        assertThat(memories.stream().filter(m -> m.text().startsWith("User: "))).hasSize(1);
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("[write_to_file] BeginTurnGA.cs → ok"));
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("[execute_command] cd /workspaces/Online-Card-Architecture/golden_tests"));
        assertThat(memories).allSatisfy(m -> {
            assertThat(m.project()).isEqualTo("/workspaces/Online-Card-Architecture");
            assertThat(m.metadata()).containsEntry("model", "claude-sonnet-4-5-20250929").containsEntry("agentVersion", "3.51.0");
            assertThat(m.startedAt()).isNotNull();
        });
        // The final answer (attempt_completion) ends the last memory.
        assertThat(memories.get(memories.size() - 1).text()).contains("I have successfully secured and extended the Online Card Architecture");
        assertThat(memories).noneSatisfy(m -> assertThat(m.text()).contains("environment_details", "TODO LIST UPDATE REQUIRED"));
    }

    @Test
    void eachPassageCitesTheBytesOfItsOwnBlockThoughTheWholeHistoryIsOneLine() throws Exception {
        Path file = history();
        InMemoryStore store = new InMemoryStore();
        Indexer.builder(store).build().index(List.of(file));
        List<Memory> passages = store.all().stream().filter(m -> m.kind() == MemoryKind.PASSAGE).toList();
        // The history is one JSON array on one line: a citation by lines names all of it.
        assertThat(Logs.Lines.of(file).count()).isEqualTo(1);
        assertThat(passages).hasSizeGreaterThan(400)
                .anySatisfy(p -> assertThat(p.text()).startsWith("[write_to_file] BeginTurnGA.cs\n"));
        for (Memory p : passages) {
            Provenance cited = p.provenance();
            String bytes = PassageBytesTest.read(file, cited.byteStart(), cited.byteEnd());
            // Its longest line, as the log writes it, lies in the bytes it cites: a written
            // file's passage cites its tool call, not the file list of the first request, which
            // names the same path first.
            String body = p.text().substring(p.text().indexOf('\n') + 1);
            String longest = body.lines().map(String::strip).max(Comparator.comparingInt(String::length)).orElseThrow();
            assertThat(bytes).as("%s cites %d-%d", p.text().lines().findFirst().orElse(""), cited.byteStart(), cited.byteEnd())
                    .contains(Json.escape(longest));
            assertThat(cited.byteEnd() - cited.byteStart()).as("%s", cited).isLessThan(Files.size(file) / 10);
        }
    }
}
