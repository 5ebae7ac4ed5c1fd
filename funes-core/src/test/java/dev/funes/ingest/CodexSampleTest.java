package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Project-written Codex rollouts, with every memory, text and line range expected exactly. The
 * main sample covers: session_meta with git, a developer message, AGENTS.md and environment
 * context injected as user messages, a request logged both as response item and as event,
 * reasoning and agent messages logged twice, shell (argv), exec_command (headed output, exit 1),
 * apply_patch, web search, a request only logged as an event, local_shell_call, an aborted turn,
 * an unknown record type, a compaction and update_plan. The second sample is an older rollout
 * that logs no events.
 */
class CodexSampleTest {

    static final String SESSION = "7f3c2a10-5b6d-4e8f-9a01-23456789abcd";

    static Path sample() {
        return Logs.resource("codex/sessions/2025/11/03/rollout-2025-11-03T10-00-00-" + SESSION + ".jsonl");
    }

    static Path olderSample() {
        return Logs.resource("codex/rollout-2025-08-20T14-00-00-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl");
    }

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.codex(), file);
    }

    private static List<String> ranges(Logs.Parsed parsed) {
        return parsed.memories().stream()
                .map(m -> m.kind() + " " + m.provenance().lineStart() + "-" + m.provenance().lineEnd()).toList();
    }

    @Test
    void sampleGivesTheExpectedMemoriesInOrder() {
        Logs.Parsed parsed = parse(sample());

        assertThat(ranges(parsed)).containsExactly(
                "EXCHANGE 5-22",   // lines 2-4 are a developer message and injected context
                "SUMMARY 29-29",   // the compaction, as soon as it is read
                "EXCHANGE 24-27",  // a request logged only as an event, then an aborted turn
                "EXCHANGE 31-35");
        assertThat(parsed.memories()).allSatisfy(m -> {
            assertThat(m.agent()).isEqualTo("codex");
            assertThat(m.session()).isEqualTo(SESSION);
            assertThat(m.project()).isEqualTo("/home/dev/invoices");
            assertThat(m.provenance().source()).isEqualTo(sample().toAbsolutePath().normalize());
            assertThat(m.provenance().recordIds()).isEmpty();
        });
    }

    @Test
    void anExchangeKeepsWhatWasTypedAndEachDoubledTextOnce() {
        Memory m = parse(sample()).memories().get(0);

        assertThat(m.text()).isEqualTo("""
                User: The invoice export fails for March. Find out why and fix it.
                Thinking: **Looking for the month handling in the exporter**
                [shell] rg -n "month" src/export.py → ok: 12: end = date(year, month + 1, 1)
                Assistant: Line 12 builds the end date as month + 1, which breaks for December, not March. Checking the March test.
                [exec_command] pytest -q tests/test_export.py → error:
                    F.
                    FAILED tests/test_export.py::test_march - ValueError: day is out of range for month
                    1 failed, 1 passed in 0.31s
                [apply_patch] M src/export.py (+1 -1) → ok
                [web_search] python date day is out of range for month
                Assistant: Fixed: the start date used day 31, which March has but February does not; it now starts on day 1.""");
        assertThat(m.startedAt()).isEqualTo(Instant.parse("2025-11-03T10:00:05Z"));
        assertThat(m.endedAt()).isEqualTo(Instant.parse("2025-11-03T10:00:26Z"));
        assertThat(m.metadata()).isEqualTo(Map.of(
                "gitBranch", "fix-march-export",
                "gitCommit", "4be1f0c2d9a8e7b6c5d4e3f2a1b0c9d8e7f6a5b4",
                "agentVersion", "0.58.0",
                "model", "gpt-5-codex",
                "ghostCommit", "9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b"));
        // Both copies of the request (5, 6) and of the last answer (21, 22) are inside the range.
        assertThat(m.provenance().lineStart()).isEqualTo(5);
        assertThat(m.provenance().lineEnd()).isEqualTo(22);
    }

    @Test
    void injectedContextIsNeverARequest() {
        for (Memory m : parse(sample()).memories()) {
            assertThat(m.provenance().lineStart()).as("%s", m.provenance()).isGreaterThan(4);
            assertThat(m.text()).doesNotContain("AGENTS.md", "environment_context", "Run pytest before you finish",
                    "permissions instructions");
        }
    }

    @Test
    void aRequestLoggedOnlyAsAnEventAndAnAbortedTurn() {
        Memory m = parse(sample()).memories().get(2);

        assertThat(m.text()).isEqualTo("""
                User: Also run the whole suite.
                [shell] pytest -q → ok: 42 passed in 8.11s
                (turn aborted: interrupted)""");
        assertThat(m.endedAt()).isEqualTo(Instant.parse("2025-11-03T10:01:11Z"));
    }

    @Test
    void aCompactionIsASummary() {
        Memory summary = parse(sample()).ofKind(MemoryKind.SUMMARY).get(0);

        assertThat(summary.text()).isEqualTo("The March export failed because the start date used day 31; "
                + "it now starts on day 1 and the whole suite passes (42 tests).");
        assertThat(summary.metadata()).isEqualTo(Map.of("compaction", "true", "gitBranch", "fix-march-export"));
        assertThat(summary.startedAt()).isEqualTo(Instant.parse("2025-11-03T10:01:20Z"));
    }

    @Test
    void planUpdatesShowTheStepInProgress() {
        assertThat(parse(sample()).memories().get(3).text()).isEqualTo("""
                User: Show the plan for the follow-up.
                [update_plan] 2 steps, now: Add a test for February → ok
                Assistant: Next: a February test, then release 1.4.1.""");
    }

    @Test
    void anUnknownRecordTypeIsCountedAndWarnedOnce() {
        ParseResult result = parse(sample()).result();

        assertThat(result.records()).isEqualTo(35);
        assertThat(result.recordsSkipped()).isEqualTo(1);
        assertThat(result.complete()).isTrue();
        assertThat(result.indexedLines()).isEqualTo(35);
        assertThat(result.problems()).extracting(IndexProblem::toString).containsExactly(
                sample().toAbsolutePath().normalize() + ":28: skipped 1 record of unknown type: 'telemetry' ×1 (first at line 28)");
    }

    @Test
    void anOlderRolloutWithoutEventsTakesTheTypedUserItemAsTheRequest() {
        Logs.Parsed parsed = parse(olderSample());

        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("""
                    User: Which flag turns on verbose logging?
                    [shell] rg -n verbose src/ → ok: src/flags.rs:8: #[arg(short, long)] verbose: bool,
                    Assistant: Use -v or --verbose (src/flags.rs line 8).""");
            assertThat(m.provenance().lineStart()).isEqualTo(4);
            assertThat(m.provenance().lineEnd()).isEqualTo(8);
            assertThat(m.session()).isEqualTo("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d");
            assertThat(m.metadata()).isEqualTo(Map.of("agentVersion", "0.21.0"));
        });
    }

    @Test
    void everyCitedRangeIsExactAndStartsAndEndsOnRecordsThatContributed() {
        for (Path file : List.of(sample(), olderSample())) {
            Logs.Lines lines = Logs.Lines.of(file);
            for (Memory m : parse(file).memories()) {
                Logs.assertCitedLinesExist(m, lines);
                assertContributes(m, lines.record(m.provenance().lineStart()));
                assertContributes(m, lines.record(m.provenance().lineEnd()));
            }
        }
    }

    /** The record types that can give a memory its first or last line. */
    static void assertContributes(Memory m, JsonNode record) {
        assertThat(record).as("cited line of %s is a record", m.provenance()).isNotNull();
        String type = record.path("type").asText();
        if (m.kind() == MemoryKind.SUMMARY) {
            assertThat(type).isEqualTo("compacted");
            return;
        }
        String payloadType = record.path("payload").path("type").asText();
        assertThat(type).as("cited line of %s", m.provenance()).isIn("response_item", "event_msg");
        assertThat(payloadType).as("cited line of %s", m.provenance()).isNotIn("token_count", "task_started",
                "task_complete", "ghost_snapshot", "context_compacted");
        assertThat(record.path("payload").path("role").asText()).isNotEqualTo("developer");
    }

    @Test
    void readingTwiceGivesTheSameIds() {
        assertThat(parse(sample()).memories()).extracting(Memory::id)
                .isEqualTo(parse(sample()).memories().stream().map(Memory::id).toList());
    }

    @Test
    void detectsRolloutsFromContent() throws Exception {
        LogFormat codex = AgentLogs.codex();
        byte[] head = Files.readAllBytes(sample());

        assertThat(codex.name()).isEqualTo("codex");
        assertThat(codex.canRead(sample(), head)).isTrue();
        assertThat(codex.canRead(olderSample(), Files.readAllBytes(olderSample()))).isTrue();
        assertThat(codex.canRead(Path.of("session.json"), head)).isFalse();
        assertThat(codex.canRead(Path.of("empty.jsonl"), new byte[0])).isFalse();
        // Another agent's log is not a rollout, and a rollout is not another agent's log.
        assertThat(codex.canRead(Logs.mainSample(), Files.readAllBytes(Logs.mainSample()))).isFalse();
        assertThat(AgentLogs.claudeCode().canRead(sample(), head)).isFalse();
        // A session_meta longer than the head (it carries the model's instructions).
        byte[] longFirst = ("{\"timestamp\":\"2025-11-03T10:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"x\","
                + "\"instructions\":\"" + "x".repeat(1000)).getBytes(StandardCharsets.UTF_8);
        assertThat(codex.canRead(Path.of("rollout.jsonl"), longFirst)).isTrue();
        assertThat(codex.canRead(Path.of("rollout.jsonl"), "{\"type\":\"user\",\"x\":\"yyyy".getBytes(StandardCharsets.UTF_8)))
                .isFalse();
    }

    @Test
    void toolOutputsInEveryShapeGiveTextAndStatus() {
        var json = JsonLinesReader.JSON;
        assertThat(CodexReader.output(json.getNodeFactory().textNode(
                "{\"output\":\"boom\\n\",\"metadata\":{\"exit_code\":2}}"))).isEqualTo(new CodexReader.Output("boom\n", true));
        assertThat(CodexReader.output(json.getNodeFactory().textNode("Exit code: 0\nWall time: 1 seconds\nOutput:\nfine")))
                .isEqualTo(new CodexReader.Output("fine", false));
        assertThat(CodexReader.output(json.getNodeFactory().textNode(
                "Chunk ID: a\nWall time: 1.0 seconds\nProcess running with session ID 42\nOriginal token count: 0\nOutput:\n")))
                .isEqualTo(new CodexReader.Output("running in session 42", false, "42"));
        assertThat(CodexReader.output(json.getNodeFactory().textNode("apply_patch verification failed: no such line")).error())
                .isTrue();
        assertThat(CodexReader.output(json.getNodeFactory().textNode("Plan updated"))).isEqualTo(new CodexReader.Output("Plan updated", false));
        var object = json.createObjectNode().put("content", "denied").put("success", false);
        assertThat(CodexReader.output(object)).isEqualTo(new CodexReader.Output("denied", true));
        assertThat(CodexReader.output(null)).isEqualTo(new CodexReader.Output("", false));
        assertThat(CodexReader.injected("<environment_context>\n<cwd>/x</cwd>\n</environment_context>")).isTrue();
        assertThat(CodexReader.injected("# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>")).isTrue();
        assertThat(CodexReader.injected("<b>bold</b> is what I want in the title")).isFalse();
    }
}
