package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Project-written Cline task folders, with every memory expected exactly. The newer task (native
 * tool calls) covers: the task with environment details (working folder, workspace git state),
 * thinking, read/replace/execute results, injected task-progress reminders, a completion with
 * feedback, a follow-up question and its answer, a denied write, and times from
 * ui_messages.json and metadata from task_metadata.json. The older task writes its tool calls
 * as XML in the text.
 */
class ClineSampleTest {

    static Path task() {
        return Logs.resource("cline/tasks/1761200000000/api_conversation_history.json");
    }

    static Path olderTask() {
        return Logs.resource("cline/tasks/1740000000000/api_conversation_history.json");
    }

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.cline(), file);
    }

    @Test
    void eachThingThePersonSaidStartsAnExchange() {
        Logs.Parsed parsed = parse(task());

        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().records()).isEqualTo(14);
        assertThat(parsed.memories()).extracting(Memory::text).containsExactly("""
                User: Add a /health endpoint to the API server.
                Thinking: The routes live in src/server.ts; read it first.
                Assistant: I'll look at the router first.
                [read_file] src/server.ts → ok (4 lines)
                [replace_in_file] src/server.ts → ok
                [execute_command] npm test → ok:
                    Command executed.
                    Output:
                    PASS test/health.test.ts
                    Tests: 4 passed, 4 total
                Assistant: The endpoint works and the tests pass.
                Added GET /health, which answers 200 {"status":"ok"}.""", """
                User: Also return the app version.
                Assistant: Where should the version come from: package.json or an environment variable?""", """
                User: package.json
                [write_to_file] src/version.ts → error: The user denied this operation.
                Assistant: Understood, I will not write the file.""");
    }

    @Test
    void theOneLineFileIsCitedWholeAndTheMessagesByPosition() throws Exception {
        List<Memory> memories = parse(task()).memories();

        assertThat(memories).allSatisfy(m -> {
            assertThat(m.provenance().lineStart()).isEqualTo(1);
            assertThat(m.provenance().lineEnd()).isEqualTo(1);
            assertThat(m.provenance().byteEnd()).isEqualTo(Files.size(task()));
        });
        assertThat(memories).extracting(m -> m.provenance().recordIds()).containsExactly(
                List.of("#0", "#1", "#2", "#3", "#4", "#5", "#6", "#7"), List.of("#8", "#9"),
                List.of("#10", "#11", "#12", "#13"));
    }

    @Test
    void timesComeFromTheUiMessagesAndMetadataFromTheTaskFolder() {
        Memory first = parse(task()).memories().get(0);

        assertThat(first.session()).isEqualTo("1761200000000");
        assertThat(first.project()).isEqualTo("/home/dev/shop-api");
        assertThat(first.startedAt()).isEqualTo(Instant.ofEpochMilli(1761200000100L));
        assertThat(first.endedAt()).isEqualTo(Instant.ofEpochMilli(1761200007000L));
        assertThat(first.metadata()).isEqualTo(Map.of(
                "model", "claude-sonnet-4-5-20250929",
                "agentVersion", "3.35.0",
                "filesEdited", "src/server.ts",
                "gitCommit", "7d1e0c9b8a7f6e5d4c3b2a190817263544536271",
                "gitBranch", "health-endpoint"));
    }

    @Test
    void olderTasksWithToolCallsInXmlAreReadToo() {
        assertThat(parse(olderTask()).memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("""
                    User: What is this repository?
                    Thinking: The README will say.
                    [read_file] README.md → ok (2 lines)
                    Assistant: The README describes it.
                    It is a demo of the payment flow.""");
            assertThat(m.project()).isEqualTo("/home/dev/demo");
            // No ui_messages.json: the task id, a time in milliseconds, dates its start.
            assertThat(m.startedAt()).isEqualTo(Instant.ofEpochMilli(1740000000000L));
        });
    }

    @Test
    void detectsHistoriesButNotTheOtherFilesOfATask() throws Exception {
        LogFormat cline = AgentLogs.cline();

        assertThat(cline.canRead(task(), Files.readAllBytes(task()))).isTrue();
        assertThat(cline.canRead(Path.of("copy.json"), Files.readAllBytes(olderTask()))).isTrue();
        for (String other : List.of("ui_messages.json", "task_metadata.json")) {
            Path file = task().resolveSibling(other);
            assertThat(cline.canRead(file, Files.readAllBytes(file))).as(other).isFalse();
        }
        byte[] messages = "[{\"role\":\"user\",\"content\":\"hello\"}]".getBytes(StandardCharsets.UTF_8);
        assertThat(cline.canRead(Path.of("chat.json"), messages)).isFalse();
        assertThat(cline.canRead(Path.of("api_conversation_history.json"), messages)).isTrue();
        for (LogFormat other : List.of(AgentLogs.claudeCode(), AgentLogs.codex(), AgentLogs.aider(), AgentLogs.gemini())) {
            assertThat(other.canRead(task(), Files.readAllBytes(task()))).as("%s", other).isFalse();
        }
    }

    @Test
    void readingTwiceGivesTheSameIds() {
        assertThat(parse(task()).memories()).extracting(Memory::id)
                .isEqualTo(parse(task()).memories().stream().map(Memory::id).toList());
    }
}
