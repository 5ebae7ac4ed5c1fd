package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.funes.ingest.Logs.SESSION;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The project-written sample session, read through the {@link LogFormat} API, with every
 * memory, text and line range expected exactly. The sample covers: a summary, file-history
 * snapshots, an assistant message split over several lines sharing {@code message.id}, thinking,
 * tool_use/tool_result pairs (with an error), a system record inside an exchange, isMeta, a local
 * slash command that the agent never answered, an inline sidechain (a Task sub-agent), an unknown
 * record type, a compaction summary, and a sub-agent transcript in {@code <session>/subagents/}.
 */
class ClaudeCodeSampleTest {

    private static final String CWD = "/home/dev/acme";

    @Test
    void mainSessionGivesTheExpectedMemoriesInOrder() {
        Logs.Parsed parsed = Logs.parse(Logs.mainSample());

        assertThat(parsed.memories()).extracting(m -> m.kind() + " " + m.provenance().lineStart() + "-" + m.provenance().lineEnd())
                .containsExactly(
                        "SUMMARY 1-1",
                        "EXCHANGE 3-19",
                        "EXCHANGE 26-29",   // the inline sub-agent run ends when the main chain resumes
                        "EXCHANGE 24-25",   // part 1 of the request that started it...
                        "EXCHANGE 30-31",   // ...part 2, after the sub-agent's lines
                        "SUMMARY 36-36",    // compaction summary; the exchange around it goes on
                        "EXCHANGE 33-34");
        assertThat(parsed.memories()).allSatisfy(m -> {
            assertThat(m.agent()).isEqualTo("claude-code");
            assertThat(m.session()).isEqualTo(SESSION);
            assertThat(m.project()).isEqualTo(CWD);
            assertThat(m.provenance().source()).isEqualTo(Logs.mainSample().toAbsolutePath().normalize());
        });
    }

    @Test
    void exchangeMergesSplitMessagesAndJoinsToolResultsToTheirCalls() {
        Memory m = memoryAt(Logs.parse(Logs.mainSample()).memories(), 3);

        assertThat(m.kind()).isEqualTo(MemoryKind.EXCHANGE);
        assertThat(m.text()).isEqualTo("""
                User: The payment client retries forever when the gateway returns 503. Make it give up after 3 attempts with exponential backoff.
                Thinking: The loop in PaymentClient has no bound. Find it, bound it, and run its test.
                Assistant: I'll look at the retry loop first.
                [Grep] "while (true)" in src/main/java → ok: src/main/java/acme/pay/PaymentClient.java:42: while (true) {
                [Read] src/main/java/acme/pay/PaymentClient.java → ok (3 lines)
                [Edit] src/main/java/acme/pay/PaymentClient.java → ok
                [Bash] mvn -q test -Dtest=PaymentClientTest → error:
                    [ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0
                    [ERROR] PaymentClientTest.givesUpAfterThreeAttempts:57
                    [ERROR] expected: 3
                    … (4 more lines) …
                    [ERROR] PaymentClientTest.givesUpAfterThreeAttempts:57 expected: 3 but was: 4
                    [ERROR] Tests run: 3, Failures: 1
                Assistant: The test expects 3 attempts but the loop counts from 0, so it makes 4. Fixing the off-by-one.
                [Bash] mvn -q test -Dtest=PaymentClientTest → ok: Tests run: 3, Failures: 0, Errors: 0, Skipped: 0
                Assistant: Done: PaymentClient now gives up after 3 attempts.
                Backoff doubles from 200 ms (200, 400, 800 ms), and PaymentClientTest covers the limit.""");
        assertThat(m.startedAt()).isEqualTo(Instant.parse("2025-10-14T09:00:05Z"));
        assertThat(m.endedAt()).isEqualTo(Instant.parse("2025-10-14T09:01:25Z"));
        assertThat(m.metadata()).isEqualTo(Map.of("gitBranch", "fix-retry", "agentVersion", "2.0.31"));
        Provenance p = m.provenance();
        assertThat(p.lineStart()).isEqualTo(3);
        assertThat(p.lineEnd()).isEqualTo(19);
        // Every record of lines 3..19 has a uuid, the system record of line 10 included.
        assertThat(p.recordIds()).hasSize(17).first().isEqualTo("00000000-0000-4000-8000-000000000001");
        assertThat(m.id()).isEqualTo(Memory.idOf(MemoryKind.EXCHANGE, "claude-code", SESSION, p, m.text()));
    }

    @Test
    void summariesAreTheirOwnMemories() {
        List<Memory> summaries = Logs.parse(Logs.mainSample()).ofKind(MemoryKind.SUMMARY);

        assertThat(summaries).hasSize(2);
        Memory title = summaries.get(0);
        assertThat(title.text()).isEqualTo("Bounded retries for the payment client");
        assertThat(title.startedAt()).isNull();
        assertThat(title.metadata()).isEqualTo(Map.of("leafUuid", "9d0a3f7e-1111-4c2b-8e55-0f6a1b2c3d4e"));
        assertThat(title.provenance().recordIds()).isEmpty();

        Memory compaction = summaries.get(1);
        assertThat(compaction.text()).isEqualTo("""
                This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
                Bounded retries (3 attempts, exponential backoff from 200 ms) were added to PaymentClient and ShippingClient; PaymentClientTest covers the limit.""");
        assertThat(compaction.metadata()).containsEntry("compaction", "true");
        assertThat(compaction.startedAt()).isEqualTo(Instant.parse("2025-10-14T09:04:01Z"));
    }

    @Test
    void aRequestInterruptedBySidechainRecordsIsSplitAndTheSecondPartCarriesTheRequest() {
        List<Memory> memories = Logs.parse(Logs.mainSample()).memories();
        Memory part1 = memoryAt(memories, 24);
        Memory part2 = memoryAt(memories, 30);

        assertThat(part1.text()).isEqualTo("""
                User: Use a sub-agent to check whether any other client has the same unbounded retry.
                [Task] Explore: Find unbounded retries — Search src/ for retry loops without a bound and report file and line.""");
        assertThat(part1.metadata()).containsEntry("part", "1/2").doesNotContainKey("requestLine");
        assertThat(part2.text()).isEqualTo("""
                Request (continued): Use a sub-agent to check whether any other client has the same unbounded retry.
                Result of [Task] Explore: Find unbounded retries — Search src/ for retry loops without a bound and report file and line. → ok: One more unbounded loop: ShippingClient.java line 88.
                Assistant: The sub-agent found one more: ShippingClient line 88 has the same unbounded loop. Shall I apply the same fix there?""");
        assertThat(part2.metadata()).containsEntry("part", "2/2").containsEntry("requestLine", "24");
    }

    @Test
    void inlineSidechainIsItsOwnExchange() {
        Memory side = memoryAt(Logs.parse(Logs.mainSample()).memories(), 26);

        assertThat(side.text()).isEqualTo("""
                Task from the parent agent: Search src/ for retry loops without a bound and report file and line.
                [Grep] "while \\(true\\)" in src → ok: src/main/java/acme/ship/ShippingClient.java:88: while (true) {
                Assistant: One more unbounded loop: ShippingClient.java line 88.""");
        assertThat(side.metadata()).containsEntry("sidechain", "true");
        assertThat(side.session()).isEqualTo(SESSION);
    }

    @Test
    void injectedRecordsAndUnansweredLocalCommandsAreNotRequests() {
        List<Memory> memories = Logs.parse(Logs.mainSample()).memories();

        // Lines 20-23: isMeta caveat, "/cost", its output, a snapshot: no memory cites them.
        for (Memory m : memories) {
            Provenance p = m.provenance();
            assertThat(p.lineEnd() < 20 || p.lineStart() > 23).as("%s", p).isTrue();
            assertThat(m.text()).doesNotContain("/cost", "Caveat", "Total cost");
        }
    }

    @Test
    void unknownRecordTypeIsSkippedCountedAndWarnedOnce() {
        ParseResult result = Logs.parse(Logs.mainSample()).result();

        assertThat(result.records()).isEqualTo(36);
        assertThat(result.recordsSkipped()).isEqualTo(1);
        assertThat(result.complete()).isTrue();
        assertThat(result.indexedLines()).isEqualTo(36);
        assertThat(result.indexedBytes()).isEqualTo(Logs.Lines.of(Logs.mainSample()).bytes().length);
        assertThat(result.problems()).extracting(IndexProblem::toString).containsExactly(
                Logs.mainSample().toAbsolutePath().normalize()
                        + ":32: skipped 1 record of unknown type: 'telemetry-ping' ×1 (first at line 32)");
    }

    @Test
    void subagentTranscriptLinksToItsParentSession() {
        Logs.Parsed parsed = Logs.parse(Logs.subagentSample());

        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("""
                    Task from the parent agent: Check whether ShippingClient has a test for the retry limit.
                    [Glob] **/ShippingClient*Test.java → ok: No files found
                    Assistant: There is no test for ShippingClient's retry limit yet.""");
            assertThat(m.session()).isEqualTo(SESSION + "/agent-a1b2c3d");
            assertThat(m.metadata()).containsEntry("parentSession", SESSION)
                    .containsEntry("agentId", "a1b2c3d")
                    .containsEntry("sidechain", "true");
            assertThat(m.provenance().lineStart()).isEqualTo(1);
            assertThat(m.provenance().lineEnd()).isEqualTo(4);
        });
    }

    @Test
    void everyCitedRangeIsExactlyTheRecordsTheMemoryCameFrom() {
        for (var file : List.of(Logs.mainSample(), Logs.subagentSample())) {
            Logs.Lines lines = Logs.Lines.of(file);
            for (Memory m : Logs.parse(file).memories()) {
                Logs.assertExactProvenance(m, lines);
            }
        }
    }

    @Test
    void readingTwiceGivesTheSameIds() {
        assertThat(Logs.parse(Logs.mainSample()).memories()).extracting(Memory::id)
                .isEqualTo(Logs.parse(Logs.mainSample()).memories().stream().map(Memory::id).toList());
    }

    @Test
    void detectsClaudeCodeFromContent() throws Exception {
        LogFormat format = AgentLogs.claudeCode();
        byte[] head = java.nio.file.Files.readAllBytes(Logs.mainSample());

        assertThat(format.name()).isEqualTo("claude-code");
        assertThat(format.canRead(Logs.mainSample(), head)).isTrue();
        assertThat(format.canRead(Logs.subagentSample(), java.nio.file.Files.readAllBytes(Logs.subagentSample()))).isTrue();
        // Same content under another extension, and another agent's JSONL, are not Claude Code.
        assertThat(format.canRead(java.nio.file.Path.of("notes.txt"), head)).isFalse();
        byte[] codex = """
                {"timestamp":"2025-10-14T09:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/tmp"}}
                {"timestamp":"2025-10-14T09:00:01Z","type":"response_item","payload":{"type":"message","role":"user"}}
                """.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(format.canRead(java.nio.file.Path.of("rollout.jsonl"), codex)).isFalse();
        assertThat(format.canRead(java.nio.file.Path.of("empty.jsonl"), new byte[0])).isFalse();
        // A first line longer than the head: judged from its beginning.
        byte[] cut = java.util.Arrays.copyOf(head, 200);
        byte[] longFirst = ("{\"parentUuid\":null,\"sessionId\":\"" + SESSION + "\",\"type\":\"user\",\"message\":{\"content\":\"xxxx")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(format.canRead(java.nio.file.Path.of("s.jsonl"), longFirst)).isTrue();
        assertThat(format.canRead(java.nio.file.Path.of("s.jsonl"), cut)).isTrue();
    }

    private static Memory memoryAt(List<Memory> memories, int lineStart) {
        return memories.stream().filter(m -> m.provenance().lineStart() == lineStart).findFirst()
                .orElseThrow(() -> new AssertionError("no memory starts at line " + lineStart));
    }
}
