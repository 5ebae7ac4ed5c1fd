package dev.funes.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad Gemini input: problems name file and line, what could be read is indexed, nothing throws. */
class GeminiBadInputTest {

    @TempDir
    Path dir;

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.gemini(), file);
    }

    private static List<String> problems(Logs.Parsed parsed) {
        return parsed.result().problems().stream().map(p -> p.line() + ": " + p.message()).toList();
    }

    @Test
    void aDocumentCutInTheMiddleOfAMessageKeepsTheMessagesBeforeIt() throws Exception {
        String doc = Files.readString(GeminiSampleTest.document());
        int cut = doc.indexOf("\"id\": \"m-user-2\"") + 5;
        Path file = Records.write(dir.resolve("session-cut.json"), doc.substring(0, cut));

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.memories()).extracting(m -> m.provenance().lineStart() + "-" + m.provenance().lineEnd())
                .containsExactly("7-42", "43-73", "89-89");
        assertThat(problems(parsed)).singleElement().asString()
                .startsWith("108: file ends inside the JSON document (still being written?); the rest was not read");
        assertThat(parsed.result().indexedBytes()).isLessThan(Files.size(file));
    }

    @Test
    void malformedJsonStopsTheDocumentAtItsLine() {
        Path file = Records.write(dir.resolve("session-bad.json"), """
                {
                  "sessionId": "s1",
                  "projectHash": "h",
                  "messages": [
                    {"id": "a", "timestamp": "2025-12-02T08:00:00Z", "type": "user", "content": "first"},
                    {"id": "b", "timestamp": "2025-12-02T08:00:01Z", "type": "gemini", "content": "answer"},
                    {"id": "c" "type": "user", "content": "second"}
                  ]
                }
                """);

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("User: first\nAssistant: answer");
            assertThat(m.provenance().lineStart()).isEqualTo(5);
            assertThat(m.provenance().lineEnd()).isEqualTo(6);
        });
        assertThat(problems(parsed)).singleElement().asString().startsWith("7: malformed JSON; the rest of the file was not read");
        assertThat(parsed.result().problems().get(0).toString()).startsWith(file.toAbsolutePath().normalize() + ":7: ");
    }

    @Test
    void fieldsOfTheWrongTypeAreReportedOrTolerated() {
        Path file = Records.write(dir.resolve("session-types.json"), """
                {
                  "sessionId": "s1",
                  "projectHash": "h",
                  "messages": [
                    "not a message",
                    {"id": "a", "timestamp": 17, "type": "user", "content": "go"},
                    {"id": "b", "type": "gemini", "content": 42, "toolCalls": "none", "thoughts": [{"subject": 5}]},
                    {"type": "gemini", "content": "no id"},
                    {"id": "c", "type": "gemini", "content": [{"text": "done"}],
                     "toolCalls": [{"id": "t", "name": "run_shell_command", "args": "ls", "result": {"x": 1}, "status": "success"}]}
                  ]
                }
                """);

        Logs.Parsed parsed = parse(file);

        assertThat(problems(parsed)).containsExactly(
                "5: message is a string, expected an object; skipped",
                "8: message has no \"id\"; skipped");
        assertThat(parsed.result().recordsSkipped()).isEqualTo(2);
        assertThat(parsed.memories()).singleElement().satisfies(m ->
                assertThat(m.text()).isEqualTo("User: go\nAssistant: done\n[run_shell_command] → ok (no output)"));
    }

    @Test
    void messagesThatAreNotAnArrayAndADocumentThatIsNotAnObject() {
        Path notArray = Records.write(dir.resolve("a.json"), "{\"sessionId\": \"s\", \"projectHash\": \"h\", \"messages\": 3}\n");
        Path array = Records.write(dir.resolve("b.json"), "[1, 2]\n");

        assertThat(problems(parse(notArray))).containsExactly("1: \"messages\" is not an array; skipped");
        assertThat(problems(parse(array))).containsExactly("1: expected a JSON object with \"messages\", found '['");
    }

    @Test
    void aByteOrderMarkKeepsByteRangesExact() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        bytes.write(Files.readAllBytes(GeminiSampleTest.document()));
        Path file = Records.write(dir.resolve("session-bom.json"), bytes.toByteArray());
        Logs.Lines lines = Logs.Lines.of(file);

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.memories()).hasSize(7).allSatisfy(m -> Logs.assertCitedLinesExist(m, lines));
        assertThat(parsed.memories().get(0).provenance().lineStart()).isEqualTo(7);
    }

    @Test
    void badJsonLinesAreReportedWithTheirLine() {
        Path file = Records.write(dir.resolve("session-x.jsonl"), List.of(
                "{\"sessionId\":\"s\",\"projectHash\":\"h\"}",
                "{\"id\":\"u1\",\"timestamp\":\"2026-03-05T10:00:01Z\",\"type\":\"user\",\"content\":\"hello\"}",
                "{\"id\":\"g1\",\"type\":\"gemini\",\"content\":\"hi th",
                "{\"$rewindTo\":7}",
                "{\"$set\":\"x\"}",
                "{\"what\":\"else\"}",
                "{\"id\":\"g2\",\"timestamp\":\"2026-03-05T10:00:02Z\",\"type\":\"gemini\",\"content\":\"hi there\"}"));

        Logs.Parsed parsed = parse(file);

        assertThat(problems(parsed)).containsExactly(
                "3: malformed JSON, line skipped: Unexpected end-of-input: was expecting closing quote for a string value",
                "4: \"$rewindTo\" is a number, expected a message id; skipped",
                "5: \"$set\" is a string, expected an object; skipped",
                "6: skipped 1 record of unknown type: '(no id, $set or $rewindTo)' ×1 (first at line 6)");
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("User: hello\nAssistant: hi there");
            assertThat(m.provenance().lineStart()).isEqualTo(2);
            assertThat(m.provenance().lineEnd()).isEqualTo(7);
        });
    }

    @Test
    void missingFileIsAProblemNotAnException() {
        for (String name : List.of("gone.json", "gone.jsonl")) {
            Path file = dir.resolve(name);
            ParseResult result = AgentLogs.gemini().parse(file, m -> { });
            assertThat(result.complete()).isFalse();
            assertThat(result.problems()).extracting(IndexProblem::toString).containsExactly(file + ": file not found");
        }
    }

    @Test
    void mangledRecordingsNeverThrowAndAlwaysCiteValidRanges() throws Exception {
        Fuzz.mangledNeverThrow(AgentLogs.gemini(), GeminiSampleTest.document(), dir, "session.json", 150);
        Fuzz.mangledNeverThrow(AgentLogs.gemini(), GeminiSampleTest.lines(), dir, "session.jsonl", 150);
    }

    @Test
    void randomBytesNeverThrow() {
        Fuzz.randomBytesNeverThrow(AgentLogs.gemini(), dir, "session.json");
        Fuzz.randomBytesNeverThrow(AgentLogs.gemini(), dir, "session.jsonl");
    }

    @Test
    void emptyFilesGiveNothing() {
        Path json = Records.write(dir.resolve("e.json"), new byte[0]);
        Path jsonl = Records.write(dir.resolve("e.jsonl"), "".getBytes(StandardCharsets.UTF_8));

        assertThat(parse(json).memories()).isEmpty();
        assertThat(parse(jsonl).memories()).isEmpty();
        assertThat(parse(jsonl).result().problems()).isEmpty();
    }
}
