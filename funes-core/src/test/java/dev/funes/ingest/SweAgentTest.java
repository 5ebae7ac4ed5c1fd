package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SWE-agent trajectories: project-written ones in the old layout (string actions, a
 * demonstration, observations as user messages, a submitted patch) and the function-calling
 * layout (tool_calls, tool_call_ids, content blocks), the real fixtures, and bad input.
 */
class SweAgentTest {

    @TempDir
    Path dir;

    static Path oldLayout() {
        return Logs.resource("swe-agent/acme__dates-42.traj");
    }

    static Path functionCalling() {
        return Logs.resource("swe-agent/acme__dates-43.traj");
    }

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.sweAgent(), file);
    }

    @Test
    void theOldLayoutIsOneExchangeFromIssueToPatch() {
        Logs.Parsed parsed = parse(oldLayout());

        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("""
                    User: leap_day() raises ValueError for 2024
                    Assistant: Reproduce first.
                    [bash] python reproduce.py → error:
                        Traceback (most recent call last):
                        ValueError: day is out of range for month
                    Assistant: Fix the day.
                    [edit] 10:10 (+2 lines) → ok
                    Assistant: Submit.
                    [submit]
                    Submitted a patch to dates/utils.py (submitted)""");
            assertThat(m.provenance().lineStart()).isEqualTo(24);
            assertThat(m.provenance().lineEnd()).isEqualTo(63);
            assertThat(m.provenance().recordIds()).containsExactly("#2", "#3", "#4", "#5", "#6", "#7");
            assertThat(m.session()).isEqualTo("acme__dates-42");
            assertThat(m.project()).isEqualTo("/acme__dates");
            assertThat(m.metadata()).containsEntry("exitStatus", "submitted").containsEntry("environment", "swe_main");
            assertThat(m.startedAt()).isNull();
        });
    }

    @Test
    void theFunctionCallingLayoutJoinsResultsByCallId() {
        List<Memory> memories = parse(functionCalling()).memories();

        assertThat(memories).extracting(Memory::text).containsExactly(
                "User: leap_day() should return Feb 29 in leap years",
                """
                Request (continued): leap_day() should return Feb 29 in leap years
                Assistant: Let me look at the function.
                [str_replace_editor] view dates/utils.py → ok:
                    Here's the result of running `cat -n` on /testbed/dates/utils.py:
                    10 return date(y, 2, 30)""",
                """
                Request (continued): leap_day() should return Feb 29 in leap years
                Assistant: Run the tests.
                [bash] cd /testbed && pytest -q → ok: 1 failed, 9 passed""");
        assertThat(memories).allSatisfy(m -> assertThat(m.metadata()).containsEntry("exitStatus", "exit_cost"));
    }

    @Test
    void theRealTrajectoriesParseCompletelyWithFocusedRanges() throws Exception {
        for (String name : List.of("pydicom__pydicom-1458.traj", "marshmallow-code__marshmallow-1867.function_calling_replace.traj")) {
            Path file = Logs.fixtures("swe-agent").resolve(name);
            byte[] bytes = Files.readAllBytes(file);
            Logs.Parsed parsed = parse(file);
            Logs.Lines lines = Logs.Lines.of(file);

            assertThat(AgentLogs.sweAgent().canRead(file, Arrays.copyOf(bytes, Math.min(bytes.length, Indexer.HEAD_BYTES))))
                    .as(name).isTrue();
            assertThat(parsed.result().complete()).isTrue();
            assertThat(parsed.result().problems()).as(name).isEmpty();
            assertThat(parsed.memories()).as(name).isNotEmpty().allSatisfy(m -> Logs.assertCitedLinesExist(m, lines));
            assertThat(parsed.memories().get(0).text()).as(name).doesNotContain("demonstration", "SETTING: You are");
            assertThat(parsed.memories().get(parsed.memories().size() - 1).text()).as(name).contains("Submitted a patch to");
        }
        List<Memory> pydicom = parse(Logs.fixtures("swe-agent").resolve("pydicom__pydicom-1458.traj")).memories();
        assertThat(pydicom.get(0).text()).startsWith("User: Pixel Representation attribute should be optional for pixel data handler");
        List<Memory> marshmallow = parse(Logs.fixtures("swe-agent")
                .resolve("marshmallow-code__marshmallow-1867.function_calling_replace.traj")).memories();
        assertThat(marshmallow.get(0).text()).startsWith("User: TimeDelta serialization precision");
        assertThat(marshmallow).anySatisfy(m -> assertThat(m.text()).contains("[bash] python reproduce.py → ok: 344"));
    }

    @Test
    void badInputIsReportedWithItsLine() {
        Path file = Records.write(dir.resolve("x.traj"), """
                {
                  "environment": "swe_main",
                  "history": [
                    {"role": "user", "content": "ISSUE:\\nIt breaks\\nINSTRUCTIONS:\\nfix it"},
                    7,
                    {"content": "no role"},
                    {"role": "assistant", "thought": "Look.", "action": "ls"},
                    {"role": "user", "content": "a.py"}
                  ],
                  "info": 3
                }
                """);

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().problems()).extracting(p -> p.line() + ": " + p.message()).containsExactly(
                "5: message #1 is a number, expected an object; skipped",
                "6: message #2 has no \"role\"; skipped");
        assertThat(parsed.memories()).singleElement()
                .satisfies(m -> assertThat(m.text()).isEqualTo("User: It breaks\nAssistant: Look.\n[bash] ls → ok: a.py"));
        Path cut = Records.write(dir.resolve("cut.traj"), "{\"history\": [{\"role\": \"user\", \"content\": \"x\"}, {\"ro");
        assertThat(parse(cut).result().problems()).singleElement()
                .satisfies(p -> assertThat(p.message()).startsWith("file ends inside the JSON document"));
    }

    @Test
    void mangledAndRandomInputNeverThrows() throws Exception {
        Fuzz.mangledNeverThrow(AgentLogs.sweAgent(), oldLayout(), dir, "run.traj", 150);
        Fuzz.randomBytesNeverThrow(AgentLogs.sweAgent(), dir, "run.traj");
    }

    @Test
    void actionsAreLabelledByTheirCommand() {
        assertThat(SweAgentReader.label("create reproduce.py\n")).isEqualTo("[create] reproduce.py");
        assertThat(SweAgentReader.label("edit 5:7\n    x = 1\n    y = 2\nend_of_edit\n")).isEqualTo("[edit] 5:7 (+3 lines)");
        assertThat(SweAgentReader.label("python -m pytest -x")).isEqualTo("[bash] python -m pytest -x");
    }
}
