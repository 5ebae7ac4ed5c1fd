package dev.funes.ingest;

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
 * Project-written Gemini CLI recordings in both layouts, with every memory, text and line range
 * expected exactly. The document covers: a request with an {@code @file} expansion, a message
 * whose tool calls (one failing) come before its thought, a text answer, an info note, parts
 * content, a tool call longer than 40 lines, an error message and the session summary. The
 * JSON Lines log covers: metadata with directories, a message written three times (the last
 * wins), a rewind that undoes a request and its answer, and a summary set at the end.
 */
class GeminiSampleTest {

    private static final String CHATS = "gemini/tmp/5f1e2d3c4b5a69788796a5b4c3d2e1f0/chats/";

    static Path document() {
        return Logs.resource(CHATS + "session-2025-12-02T08-00-2c4e6a80.json");
    }

    static Path lines() {
        return Logs.resource(CHATS + "session-2026-03-05T10-00-9a8b7c6d.jsonl");
    }

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.gemini(), file);
    }

    private static List<String> ranges(Logs.Parsed parsed) {
        return parsed.memories().stream()
                .map(m -> m.kind() + " " + m.provenance().lineStart() + "-" + m.provenance().lineEnd()).toList();
    }

    @Test
    void theDocumentGivesTheExpectedMemories() {
        Logs.Parsed parsed = parse(document());

        assertThat(ranges(parsed)).containsExactly("EXCHANGE 7-42", "EXCHANGE 43-73", "EXCHANGE 89-89", "SUMMARY 178-178",
                "EXCHANGE 107-116", "EXCHANGE 123-160", "EXCHANGE 171-176");
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().records()).isEqualTo(7);
        assertThat(parsed.result().indexedLines()).isEqualTo(179);
        assertThat(parsed.memories()).allSatisfy(m -> {
            assertThat(m.agent()).isEqualTo("gemini");
            assertThat(m.session()).isEqualTo("2c4e6a80-1b3d-4f5a-8c7e-9d0f1a2b3c4d");
            assertThat(m.metadata()).containsEntry("projectHash", "5f1e2d3c4b5a69788796a5b4c3d2e1f0");
        });
    }

    @Test
    void aRequestKeepsWhatWasTypedAndToolCallsCiteTheirOwnLines() {
        List<Memory> memories = parse(document()).memories();

        assertThat(memories.get(0).text()).isEqualTo("""
                User: Why is the nightly backup job slow? Look at @scripts/backup.sh
                [read_file] scripts/backup.sh → ok (2 lines)""");
        assertThat(memories.get(0).provenance().recordIds()).containsExactly("m-user-1", "m-gem-1");
        assertThat(memories.get(0).startedAt()).isEqualTo(Instant.parse("2025-12-02T08:00:00Z"));
        assertThat(memories.get(0).endedAt()).isEqualTo(Instant.parse("2025-12-02T08:00:06Z"));
        assertThat(memories.get(1).text()).isEqualTo("""
                Request (continued): Why is the nightly backup job slow? Look at @scripts/backup.sh
                [run_shell_command] du -sh /data → error: du: /data: Permission denied
                Thinking: Checking the script: The job copies everything every night; rsync without --delete is fine but it never skips unchanged files across mounts.""");
        assertThat(memories.get(1).metadata()).containsEntry("model", "gemini-2.5-pro").containsEntry("part", "2/3");
        assertThat(memories.get(2).text()).endsWith(
                "Assistant: The script copies /data in full with rsync -a every night. Add --link-dest to reuse yesterday's backup.");
    }

    @Test
    void aToolCallLongerThanAPieceIsCitedInParts() {
        Memory todos = parse(document()).memories().get(5);

        assertThat(todos.text()).isEqualTo("""
                Request (continued): Plan the change as todos.
                [write_todos] 5 steps, now: Add --link-dest to backup.sh → ok""");
        assertThat(todos.provenance().lineCount()).isLessThanOrEqualTo(Chunker.MAX_LINES);
    }

    @Test
    void theSummaryAndErrorsAreKept() {
        List<Memory> memories = parse(document()).memories();

        assertThat(memories.get(3).kind()).isEqualTo(MemoryKind.SUMMARY);
        assertThat(memories.get(3).text()).isEqualTo("Speed up the nightly backup with rsync --link-dest");
        assertThat(memories.get(6).text()).endsWith("(error: API Error: quota exceeded)");
        assertThat(memories).noneSatisfy(m -> assertThat(m.text()).contains("Request cancelled", "rsync -a /data /backup\n--- End"));
    }

    @Test
    void theJsonLinesLogKeepsTheLastVersionOfEachMessageAndForgetsWhatWasRewound() {
        Logs.Parsed parsed = parse(lines());

        assertThat(ranges(parsed)).containsExactly("SUMMARY 13-13", "EXCHANGE 2-7", "EXCHANGE 11-12");
        assertThat(parsed.result().problems()).isEmpty();
        Memory first = parsed.memories().get(1);
        assertThat(first.text()).isEqualTo("""
                User: List the cron jobs in deploy/cron.
                Thinking: Listing: A glob will do.
                [glob] deploy/cron/* → ok:
                    deploy/cron/backup
                    deploy/cron/rotate-logs
                Assistant: Two jobs: backup and rotate-logs.""");
        assertThat(first.provenance().recordIds()).containsExactly("u1", "g1", "g2");
        assertThat(first.project()).isEqualTo("/home/dev/backup-tools");
        assertThat(first.session()).isEqualTo("9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d");
        assertThat(first.metadata()).isEqualTo(Map.of("model", "gemini-2.5-flash",
                "projectHash", "5f1e2d3c4b5a69788796a5b4c3d2e1f0"));
        assertThat(parsed.memories()).allSatisfy(m -> assertThat(m.text()).doesNotContain("Delete rotate-logs", "Deleting"));
        assertThat(parsed.memories().get(0).text()).isEqualTo("Cron jobs of the backup tools");
    }

    @Test
    void everyCitedRangeIsExactAndNamesMessagesOfTheFile() throws Exception {
        for (Path file : List.of(document(), lines())) {
            Logs.Lines lines = Logs.Lines.of(file);
            String content = Files.readString(file);
            for (Memory m : parse(file).memories()) {
                Logs.assertCitedLinesExist(m, lines);
                for (String id : m.provenance().recordIds()) {
                    assertThat(content).contains("\"" + id + "\"");
                }
            }
        }
    }

    @Test
    void readingTwiceGivesTheSameIds() {
        for (Path file : List.of(document(), lines())) {
            assertThat(parse(file).memories()).extracting(Memory::id)
                    .isEqualTo(parse(file).memories().stream().map(Memory::id).toList());
        }
    }

    @Test
    void detectsBothLayoutsFromContent() throws Exception {
        LogFormat gemini = AgentLogs.gemini();

        assertThat(gemini.canRead(document(), Files.readAllBytes(document()))).isTrue();
        assertThat(gemini.canRead(lines(), Files.readAllBytes(lines()))).isTrue();
        assertThat(gemini.canRead(Path.of("session.txt"), Files.readAllBytes(document()))).isFalse();
        // The CLI's logs.json (prompts only) and checkpoints are arrays, not recordings.
        assertThat(gemini.canRead(Path.of("logs.json"),
                "[{\"sessionId\":\"s\",\"messageId\":0,\"type\":\"user\",\"message\":\"hi\"}]".getBytes(StandardCharsets.UTF_8)))
                .isFalse();
        for (Path other : List.of(Logs.mainSample(), CodexSampleTest.sample())) {
            assertThat(gemini.canRead(other, Files.readAllBytes(other))).as("%s", other).isFalse();
        }
        for (LogFormat other : List.of(AgentLogs.claudeCode(), AgentLogs.codex(), AgentLogs.aider())) {
            assertThat(other.canRead(lines(), Files.readAllBytes(lines()))).as("%s", other).isFalse();
            assertThat(other.canRead(document(), Files.readAllBytes(document()))).as("%s", other).isFalse();
        }
        assertThat(gemini.canRead(Path.of("x.json"), new byte[0])).isFalse();
    }
}
