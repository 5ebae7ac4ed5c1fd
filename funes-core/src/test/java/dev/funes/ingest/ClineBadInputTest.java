package dev.funes.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad Cline input: problems name file and line, what could be read is indexed, nothing throws. */
class ClineBadInputTest {

    @TempDir
    Path dir;

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.cline(), file);
    }

    private static List<String> problems(Logs.Parsed parsed) {
        return parsed.result().problems().stream().map(p -> p.line() + ": " + p.message()).toList();
    }

    @Test
    void aHistoryCutShortKeepsTheMessagesBeforeTheCut() throws Exception {
        String history = Files.readString(ClineSampleTest.task());
        int cut = history.indexOf("Also return the app version");
        Path file = Records.write(dir.resolve("1761200000000").resolve("api_conversation_history.json"), history.substring(0, cut));

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.memories()).singleElement().satisfies(m -> assertThat(m.text()).startsWith("User: Add a /health endpoint"));
        assertThat(problems(parsed)).singleElement().asString()
                .startsWith("1: file ends inside the JSON array (still being written?); the rest was not read");
        assertThat(parsed.result().indexedBytes()).isZero();
    }

    @Test
    void aMessageNestedTooDeepOrTooLargeStopsTheReadThereWithItsLine() throws Exception {
        String history = Files.readString(ClineSampleTest.task());
        // Before the third message: the task and the first answer are read. The history is one line.
        int third = history.indexOf("{\"role\"", history.indexOf("{\"role\"", 1) + 1);
        for (String bad : List.of("{\"role\":\"user\",\"content\":" + "[".repeat(100_000) + "]".repeat(100_000) + "},",
                "{\"role\":\"user\",\"content\":\"" + "x".repeat(20_000_001) + "\"},")) {
            Path file = Records.write(dir.resolve("t" + bad.length()).resolve("api_conversation_history.json"),
                    history.substring(0, third) + "\n" + bad + "\n" + history.substring(third));

            Logs.Parsed parsed = parse(file);

            int line = 2;
            assertThat(parsed.memories()).singleElement().satisfies(m -> assertThat(m.text()).startsWith("User: Add a /health endpoint"));
            assertThat(problems(parsed)).singleElement().isEqualTo(line + ": " + (bad.length() < 1_000_000
                    ? "JSON nested more than 200 levels deep" : "a value is too large to read (a string of more than 20000000 characters)")
                    + "; the rest of the file was not read");
        }
    }

    @Test
    void messagesOfTheWrongShapeAreReportedAndTheRestRead() {
        Path file = Records.write(dir.resolve("t").resolve("api_conversation_history.json"), """
                [
                {"role":"user","content":[{"type":"text","text":"<task>\\nList the files.\\n</task>"}]},
                "not a message",
                {"role":"assistant","content":42},
                {"content":[]},
                {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"list_files","input":"."},{"type":"mystery"}]},
                {"role":"user","content":[{"type":"text","text":"[list_files for '.'] Result:\\nREADME.md"}]},
                {"role":"assistant","content":"All listed."}
                ]
                """);

        Logs.Parsed parsed = parse(file);

        assertThat(problems(parsed)).containsExactly(
                "3: message #1 is a string, expected an object; skipped",
                "4: message #2 has content that is a number; skipped",
                "5: message #3 has no \"role\"; skipped");
        assertThat(parsed.result().recordsSkipped()).isEqualTo(3);
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("User: List the files.\n[list_files] → ok: README.md\nAssistant: All listed.");
            assertThat(m.provenance().lineStart()).isEqualTo(2);
            assertThat(m.provenance().lineEnd()).isEqualTo(8);
            assertThat(m.provenance().recordIds()).containsExactly("#0", "#1", "#2", "#3", "#4", "#5", "#6");
        });
    }

    @Test
    void brokenSideFilesAreReportedAndTheHistoryStillRead() throws Exception {
        Path task = Files.createDirectories(dir.resolve("1761200000000"));
        Path file = Files.copy(ClineSampleTest.task(), task.resolve("api_conversation_history.json"));
        Files.writeString(task.resolve("task_metadata.json"), "{\"model_usage\": [");
        Files.writeString(task.resolve("ui_messages.json"), "[{\"ts\": 1, \"conversationHistoryIndex\": ");

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.memories()).hasSize(3);
        assertThat(problems(parsed)).hasSize(2).allSatisfy(p -> assertThat(p).startsWith("0: "))
                .anySatisfy(p -> assertThat(p).contains("task_metadata.json next to it could not be read"))
                .anySatisfy(p -> assertThat(p).contains("ui_messages.json next to it could not be read"));
    }

    @Test
    void aDocumentThatIsNotAnArrayIsAProblem() {
        Path file = Records.write(dir.resolve("api_conversation_history.json"), "{\"role\":\"user\"}");

        assertThat(problems(parse(file))).containsExactly("1: expected a JSON array of messages, found '{'");
    }

    @Test
    void missingFileIsAProblemNotAnException() {
        Path file = dir.resolve("api_conversation_history.json");

        ParseResult result = AgentLogs.cline().parse(file, m -> { });

        assertThat(result.complete()).isFalse();
        assertThat(result.problems()).extracting(IndexProblem::toString).containsExactly(file + ": file not found");
    }

    @Test
    void mangledHistoriesNeverThrowAndAlwaysCiteValidRanges() throws Exception {
        Fuzz.mangledNeverThrow(AgentLogs.cline(), ClineSampleTest.task(), dir, "api_conversation_history.json", 200);
    }

    @Test
    void randomBytesNeverThrow() {
        Fuzz.randomBytesNeverThrow(AgentLogs.cline(), dir, "api_conversation_history.json");
    }
}
