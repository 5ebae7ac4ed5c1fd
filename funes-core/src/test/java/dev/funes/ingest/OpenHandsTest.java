package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * OpenHands trajectories: a project-written one with every memory expected exactly (a system
 * event, the request, a failing command with its thought, an edit, a failed read, an error
 * with no cause, a condensation, an agent message and finish), the real fixtures, and bad input.
 */
class OpenHandsTest {

    @TempDir
    Path dir;

    static Path sample() {
        return Logs.resource("openhands/leap-day.json");
    }

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.openHands(), file);
    }

    @Test
    void theSampleGivesTheExpectedMemories() {
        Logs.Parsed parsed = parse(sample());

        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.memories()).extracting(m -> m.kind() + " " + m.provenance().lineStart() + "-" + m.provenance().lineEnd())
                .containsExactly("SUMMARY 160-168", "EXCHANGE 19-23", "EXCHANGE 64-89", "EXCHANGE 98-120", "EXCHANGE 128-152",
                        "EXCHANGE 176-192");
        assertThat(parsed.memories()).extracting(Memory::text).containsExactly(
                "The leap-day test failed because utils.leap_day built 30 February; fixed to 29.",
                "User: Fix the failing date test in utils.",
                """
                Request (continued): Fix the failing date test in utils.
                Thinking: Let me run the failing test first.
                [run] pytest -q tests/test_dates.py → error:
                    F
                    FAILED tests/test_dates.py::test_leap_day - ValueError: day is out of range for month
                    1 failed in 0.12s""",
                """
                Request (continued): Fix the failing date test in utils.
                Thinking: February has 29 days in a leap year, not 30.
                [edit] str_replace utils.py → ok""",
                """
                Request (continued): Fix the failing date test in utils.
                [read] README.md → error: File not found: /workspace/dateutils/README.md
                (error: Runtime disconnected; reconnecting.)""",
                """
                Request (continued): Fix the failing date test in utils.
                Assistant: Fixed: February 29 instead of 30 in utils.leap_day.
                Assistant: The leap-day bug is fixed.""");
        Memory run = parsed.memories().get(2);
        assertThat(run.provenance().recordIds()).containsExactly("3", "4");
        assertThat(run.startedAt()).isEqualTo(Instant.parse("2025-03-10T12:00:03Z"));
        assertThat(run.session()).isEqualTo("leap-day");
        assertThat(parsed.memories().get(0).kind()).isEqualTo(MemoryKind.SUMMARY);
        assertThat(parsed.memories().get(0).project()).isEqualTo("/workspace/dateutils");
        Logs.Lines lines = Logs.Lines.of(sample());
        assertThat(parsed.memories()).allSatisfy(m -> Logs.assertCitedLinesExist(m, lines));
    }

    @Test
    void theRealTrajectoriesParseCompletelyWithFocusedRanges() throws Exception {
        for (String name : List.of("basic.json", "basic_gui_mode.json")) {
            Path file = Logs.fixtures("openhands").resolve(name);
            byte[] bytes = Files.readAllBytes(file);
            Logs.Parsed parsed = parse(file);
            Logs.Lines lines = Logs.Lines.of(file);

            assertThat(AgentLogs.openHands().canRead(file, Arrays.copyOf(bytes, Math.min(bytes.length, Indexer.HEAD_BYTES))))
                    .as(name).isTrue();
            assertThat(parsed.result().complete()).isTrue();
            assertThat(parsed.result().problems()).as(name).isEmpty();
            assertThat(parsed.memories()).as(name).isNotEmpty().allSatisfy(m -> Logs.assertCitedLinesExist(m, lines));
        }
        List<Memory> gui = parse(Logs.fixtures("openhands").resolve("basic_gui_mode.json")).memories();
        assertThat(gui.get(0).text()).startsWith("User: I want to create a VueJS app that allows me to:");
        assertThat(gui).anySatisfy(m -> assertThat(m.text()).contains("[run] mkdir -p /workspace/todo-app"));
        assertThat(gui).anySatisfy(m -> assertThat(m.text())
                .contains("Result of [run] cd /workspace/todo-app && python3 -m http.server 8000 → ok: Serving HTTP on 0.0.0.0 port 8000"));
        List<Memory> basic = parse(Logs.fixtures("openhands").resolve("basic.json")).memories();
        assertThat(basic).anySatisfy(m -> assertThat(m.text()).contains("[edit] game_2048.py"));
    }

    @Test
    void aFileTheEditorWroteIsHeldAsTheModelGaveItNotAsPythonLiterals() {
        Path file = Logs.fixtures("openhands").resolve("basic_gui_mode.json");
        Logs.Lines lines = Logs.Lines.of(file);
        List<Memory> passages = new ArrayList<>();
        AgentLogs.openHands().parse(file, (PassageSink) m -> {
            if (m.kind() == MemoryKind.PASSAGE) {
                passages.add(m);
            }
        });

        // The event keeps the call as `print(file_editor(**{... 'file_text': "...\\n..."}))`;
        // its passages hold the file with its line breaks, found by the lines it has.
        String method = "cancelEdit() {\n            this.editingTodo = null\n        }";
        assertThat(passages).filteredOn(p -> p.text().contains(method)).isNotEmpty().allSatisfy(p -> {
            assertThat(p.metadata().get(Passages.HEADER_KEY)).isEqualTo("[edit] todo-app/app.js");
            Logs.assertCitedLinesExist(p, lines);
        });
        assertThat(passages).noneMatch(p -> p.text().contains("\\n"))
                .noneMatch(p -> p.text().contains("translated_ipython_code") || p.text().contains("print(file_editor("));
    }

    @Test
    void badInputIsReportedWithItsLine() {
        Path file = Records.write(dir.resolve("t.json"), """
                [
                  {"id": 0, "timestamp": "2025-03-10T12:00:00", "source": "user", "action": "message", "args": {"content": "go"}},
                  "noise",
                  {"id": 2, "timestamp": "2025-03-10T12:00:01", "source": "agent"},
                  {"id": 3, "timestamp": 5, "source": "agent", "action": "run", "args": {"command": ["ls", "-la"]}},
                  {"id": 4, "source": "agent", "observation": "run", "cause": 3, "content": "total 0", "extras": "x"},
                  {"id": 5, "source": "agent", "action": "message", "args": {"content": "done"
                """);

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().problems()).extracting(p -> p.line() + ": " + p.message()).containsExactly(
                "3: event is a string, expected an object; skipped",
                "4: event has neither \"action\" nor \"observation\"; skipped",
                "7: file ends inside the JSON array (still being written?); the rest was not read: "
                        + "Unexpected end-of-input: expected close marker for Object");
        assertThat(parsed.memories()).singleElement()
                .satisfies(m -> assertThat(m.text()).isEqualTo("User: go\n[run] ls -la → ok: total 0"));
    }

    @Test
    void mangledAndRandomInputNeverThrows() throws Exception {
        Fuzz.mangledNeverThrow(AgentLogs.openHands(), sample(), dir, "trajectory.json", 150);
        Fuzz.randomBytesNeverThrow(AgentLogs.openHands(), dir, "trajectory.json");
        ParseResult missing = AgentLogs.openHands().parse(dir.resolve("gone.json"), m -> { });
        assertThat(missing.complete()).isFalse();
        assertThat(missing.problems()).extracting(IndexProblem::message).containsExactly("file not found");
    }

    @Test
    void detectsTrajectoriesButNotOtherJsonArrays() throws Exception {
        assertThat(AgentLogs.openHands().canRead(sample(), Files.readAllBytes(sample()))).isTrue();
        assertThat(AgentLogs.openHands().canRead(ClineSampleTest.task(), Files.readAllBytes(ClineSampleTest.task()))).isFalse();
        assertThat(AgentLogs.cline().canRead(sample(), Files.readAllBytes(sample()))).isFalse();
        assertThat(AgentLogs.openHands().canRead(Path.of("x.json"), "[{\"id\": 1, \"name\": \"x\"}]".getBytes())).isFalse();
    }
}
