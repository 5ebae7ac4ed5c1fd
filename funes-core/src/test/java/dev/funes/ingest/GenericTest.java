package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The generic JSONL of chat messages: a project-written log, detection that takes nothing from other formats, bad input. */
class GenericTest {

    @TempDir
    Path dir;

    static Path sample() {
        return Logs.resource("generic/acme-bot-chat.jsonl");
    }

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.generic(), file);
    }

    @Test
    void theSampleGivesTwoExchangesNamedAfterItsAgent() {
        Logs.Parsed parsed = parse(sample());

        assertThat(parsed.memories()).extracting(Memory::text).containsExactly("""
                User: Why do notes disappear after sync?
                Thinking: Probably the merge drops local edits.
                [run_shell_command] grep -n merge src/sync.ts → ok: 42: return remote; // local edits dropped
                Assistant: Line 42 of src/sync.ts returns the remote copy and drops local edits.""", """
                User: Keep the newer one.
                [image]
                Assistant: Done: the newer of the two copies wins.""");
        Memory first = parsed.memories().get(0);
        assertThat(first.agent()).isEqualTo("acme-bot");
        assertThat(first.session()).isEqualTo("chat-7");
        assertThat(first.project()).isEqualTo("/home/dev/notes-app");
        assertThat(first.startedAt()).isEqualTo(Instant.parse("2025-09-01T08:00:05Z"));
        // The last answer's time is in epoch seconds.
        assertThat(first.endedAt()).isEqualTo(Instant.parse("2025-09-01T08:00:10Z"));
        assertThat(first.provenance().lineStart()).isEqualTo(3);
        assertThat(first.provenance().lineEnd()).isEqualTo(6);
        assertThat(first.provenance().recordIds()).containsExactly("m1", "m2", "m3", "m4");
        assertThat(parsed.result().problems()).extracting(p -> p.line() + ": " + p.message())
                .containsExactly("8: skipped 1 record of unknown type: 'role narrator' ×1 (first at line 8)");
        Logs.Lines lines = Logs.Lines.of(sample());
        assertThat(parsed.memories()).allSatisfy(m -> Logs.assertCitedLinesExist(m, lines));
    }

    @Test
    void withoutAnAgentFieldTheAgentIsGeneric() {
        Path file = Records.write(dir.resolve("chat.jsonl"), List.of(
                "{\"role\":\"user\",\"content\":\"hi\"}", "{\"role\":\"assistant\",\"content\":\"hello\"}"));

        assertThat(parse(file).memories()).singleElement().satisfies(m -> {
            assertThat(m.agent()).isEqualTo("generic");
            assertThat(m.session()).isEqualTo("chat");
            assertThat(m.text()).isEqualTo("User: hi\nAssistant: hello");
        });
    }

    @Test
    void detectionTakesNoFileAnotherFormatReads() throws Exception {
        LogFormat generic = AgentLogs.generic();

        assertThat(generic.canRead(sample(), Files.readAllBytes(sample()))).isTrue();
        for (Path other : List.of(Logs.mainSample(), CodexSampleTest.sample(), CodexSampleTest.olderSample(),
                GeminiSampleTest.lines())) {
            assertThat(generic.canRead(other, Files.readAllBytes(other))).as("%s", other).isFalse();
        }
        for (LogFormat specific : AgentLogs.formats()) {
            if (specific != generic) {
                assertThat(specific.canRead(sample(), Files.readAllBytes(sample()))).as("%s", specific).isFalse();
            }
        }
        assertThat(generic.canRead(Path.of("chat.json"), Files.readAllBytes(sample()))).isFalse();
        assertThat(generic.canRead(Path.of("x.jsonl"), "{\"event\":\"click\"}\n".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(AgentLogs.formats().get(AgentLogs.formats().size() - 1)).isSameAs(generic);
    }

    @Test
    void badInputIsReportedWithItsLine() {
        Path file = Records.write(dir.resolve("chat.jsonl"), List.of(
                "{\"role\":\"user\",\"content\":\"first\"}",
                "{\"role\":\"assistant\",\"content\":{\"odd\":true},\"tool_calls\":\"none\"}",
                "{\"role\":\"assistant\",\"content\":\"answer\"}",
                "{\"role\":\"user\",\"con"));

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.memories()).singleElement().satisfies(m -> assertThat(m.text()).isEqualTo("User: first\nAssistant: answer"));
        assertThat(parsed.result().problems()).extracting(IndexProblem::toString).containsExactly(
                file.toAbsolutePath().normalize() + ":4: malformed JSON, line skipped: Unexpected end-of-input in field name");

        // The same record still being written (no newline yet) is left for later, without a problem.
        Path live = Records.write(dir.resolve("live.jsonl"), "{\"role\":\"user\",\"content\":\"first\"}\n{\"role\":\"assis");
        Logs.Parsed later = parse(live);
        assertThat(later.result().problems()).isEmpty();
        assertThat(later.result().indexedLines()).isEqualTo(1);
        assertThat(later.memories()).singleElement().satisfies(m -> assertThat(m.text()).isEqualTo("User: first"));
    }

    @Test
    void mangledAndRandomInputNeverThrows() throws Exception {
        Fuzz.mangledNeverThrow(AgentLogs.generic(), sample(), dir, "chat.jsonl", 150);
        Fuzz.randomBytesNeverThrow(AgentLogs.generic(), dir, "chat.jsonl");
    }
}
