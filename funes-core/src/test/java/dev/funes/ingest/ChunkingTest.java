package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.Provenance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.funes.ingest.Records.answer;
import static dev.funes.ingest.Records.bash;
import static dev.funes.ingest.Records.request;
import static dev.funes.ingest.Records.result;
import static org.assertj.core.api.Assertions.assertThat;

/** How a long agent run is cut into memories small enough to be answers. */
class ChunkingTest {

    private static final String REQUEST = "Migrate the build from Maven to Gradle, module by module, and keep every test green.";

    @TempDir
    Path dir;

    /** One request followed by 300 tool calls and results, some explanations, and snapshots: 623 lines. */
    private Path longRun() {
        List<String> lines = new ArrayList<>();
        int n = 1;
        lines.add(request(n++, REQUEST));
        for (int step = 0; step < 150; step++) {
            String message = "msg_step" + step;
            if (step % 10 == 0) {
                lines.add(answer(n++, message, "Moving module " + step + " next; its tests run after."));
            }
            // Two parallel calls of one message, then their results: a part may not cut between them.
            lines.add(bash(n++, message, "toolu_" + step, "gradle :module" + step + ":test"));
            lines.add(bash(n++, message, "toolu_check" + step, "gradle :module" + step + ":check"));
            lines.add(result(n++, "toolu_" + step, "output of step " + step + "\nBUILD SUCCESSFUL in 3s", false));
            lines.add(result(n++, "toolu_check" + step, "checked step " + step, false));
            if (step % 25 == 0) {
                lines.add(Records.snapshot());
                n++;
            }
        }
        lines.add(answer(n, "msg_done", "All 150 modules build with Gradle now."));
        return Records.write(dir.resolve("long.jsonl"), lines);
    }

    @Test
    void aLongRunIsSplitIntoFocusedPartsThatEachCarryTheRequest() {
        Path file = longRun();
        Logs.Parsed parsed = Logs.parse(file);
        List<Memory> parts = parsed.memories();
        Logs.Lines lines = Logs.Lines.of(file);

        assertThat(parts.size()).isGreaterThanOrEqualTo(lines.count() / Chunker.MAX_LINES);
        int previousEnd = 0;
        for (int i = 0; i < parts.size(); i++) {
            Memory m = parts.get(i);
            Provenance p = m.provenance();
            assertThat(p.lineCount()).as("%s", p).isLessThanOrEqualTo(Chunker.MAX_LINES);
            assertThat(m.text().length()).as("%s", p).isLessThanOrEqualTo(Chunker.MAX_CHARS);
            assertThat(p.lineStart()).as("parts are disjoint and in order").isGreaterThan(previousEnd);
            previousEnd = p.lineEnd();
            assertThat(m.metadata()).containsEntry("part", (i + 1) + "/" + parts.size());
            if (i == 0) {
                assertThat(m.text()).startsWith("User: " + REQUEST);
            } else {
                assertThat(m.text()).startsWith("Request (continued): " + REQUEST + "\n");
                assertThat(m.metadata()).containsEntry("requestLine", "1");
            }
            Logs.assertExactProvenance(m, lines);
        }
        assertThat(parts.get(0).provenance().lineStart()).isEqualTo(1);
        assertThat(previousEnd).isEqualTo(lines.count());
    }

    @Test
    void everyToolCallAppearsOnceAndWithItsResult() {
        List<Memory> parts = Logs.parse(longRun()).memories();

        for (int step = 0; step < 150; step++) {
            String test = "\n[Bash] gradle :module" + step + ":test → ok:\n    output of step " + step + "\n";
            String check = "\n[Bash] gradle :module" + step + ":check → ok: checked step " + step + "\n";
            assertThat(parts.stream().filter(m -> ("\n" + m.text() + "\n").contains(test)).count())
                    .as("memories holding the test call of step %d with its result", step).isEqualTo(1);
            assertThat(parts.stream().filter(m -> ("\n" + m.text() + "\n").contains(check)).count())
                    .as("memories holding the check call of step %d with its result", step).isEqualTo(1);
        }
    }

    @Test
    void longTextsAreCutKeepingHeadAndTail() {
        String request = "Please read this log. " + "noise ".repeat(3000) + "The real question is at the end.";
        String reply = "Start of a long answer. " + "detail ".repeat(3000) + "Conclusion: the cache was stale.";
        Path file = Records.write(dir.resolve("long-texts.jsonl"), List.of(request(1, request), answer(2, "msg_a", reply)));

        List<Memory> memories = Logs.parse(file).memories();

        assertThat(memories).allSatisfy(m -> assertThat(m.text().length()).isLessThanOrEqualTo(Chunker.MAX_CHARS));
        String all = String.join("\n", memories.stream().map(Memory::text).toList());
        assertThat(all).contains("User: Please read this log.", "The real question is at the end.",
                "Assistant: Start of a long answer.", "Conclusion: the cache was stale.", "chars omitted");
    }
}
