package dev.funes.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad Codex input: each case reports file and line and indexes the rest; nothing throws. */
class CodexBadInputTest {

    @TempDir
    Path dir;

    private static final String META = "{\"timestamp\":\"2025-11-03T10:00:00Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"s-1\",\"cwd\":\"/w\"}}";

    private static String user(String text) {
        return "{\"timestamp\":\"2025-11-03T10:00:01Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\""
                + text + "\",\"images\":[]}}";
    }

    private static String answer(String text) {
        return "{\"timestamp\":\"2025-11-03T10:00:02Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\","
                + "\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"" + text + "\"}]}}";
    }

    private Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.codex(), file);
    }

    private static List<String> ranges(Logs.Parsed parsed) {
        return parsed.memories().stream().map(m -> m.provenance().lineStart() + "-" + m.provenance().lineEnd()).toList();
    }

    @Test
    void malformedLineMidFileIsReportedAndTheRestIndexed() {
        Path file = Records.write(dir.resolve("rollout.jsonl"), List.of(META, user("first"), answer("one"),
                "{\"type\":\"response_item\",\"payload\":{\"type\":\"mess", user("second"), answer("two")));

        Logs.Parsed parsed = parse(file);

        assertThat(ranges(parsed)).containsExactly("2-3", "5-6");
        assertThat(parsed.result().problems()).singleElement().satisfies(p -> {
            assertThat(p.toString()).startsWith(file.toAbsolutePath().normalize() + ":4: malformed JSON, line skipped");
        });
    }

    @Test
    void aRecordTruncatedMidLineAtTheEndIsLeftForLater() {
        String complete = META + "\n" + user("first") + "\n" + answer("one") + "\n";
        Path file = Records.write(dir.resolve("rollout.jsonl"), complete + answer("two").substring(0, 50));

        Logs.Parsed parsed = parse(file);

        assertThat(ranges(parsed)).containsExactly("2-3");
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().indexedBytes()).isEqualTo(complete.getBytes(StandardCharsets.UTF_8).length);
    }

    @Test
    void fieldsOfTheWrongTypeAreReportedOrTolerated() {
        Path file = Records.write(dir.resolve("rollout.jsonl"), List.of(
                META,
                user("run it"),
                "{\"type\":\"response_item\",\"payload\":\"not an object\"}",
                "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":42}}",
                // Tolerated: arguments that are not JSON, an output that is an object, a timestamp that is a number.
                "{\"timestamp\":17,\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\","
                        + "\"arguments\":\"ls -la\",\"call_id\":\"c1\"}}",
                "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c1\","
                        + "\"output\":{\"content\":\"total 0\",\"success\":true}}}",
                "{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":7}}",
                "[1,2]",
                answer("done")));

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().problems()).extracting(p -> p.line() + ": " + p.message()).containsExactly(
                "3: response_item record has no \"payload\" object (a string); skipped",
                "4: message content is a number, expected an array; skipped",
                "8: expected a JSON object, found an array; line skipped");
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("User: run it\n[shell] ls -la → ok: total 0\nAssistant: done");
            assertThat(m.provenance().lineStart()).isEqualTo(2);
            assertThat(m.provenance().lineEnd()).isEqualTo(9);
        });
    }

    @Test
    void missingFileIsAProblemNotAnException() {
        Path file = dir.resolve("gone.jsonl");

        ParseResult result = AgentLogs.codex().parse(file, m -> { });

        assertThat(result.complete()).isFalse();
        assertThat(result.problems()).extracting(IndexProblem::toString).containsExactly(file + ": file not found");
    }

    @Test
    void mangledRolloutsNeverThrowAndAlwaysCiteValidRanges() throws Exception {
        Fuzz.mangledNeverThrow(AgentLogs.codex(), CodexSampleTest.sample(), dir, "rollout.jsonl", 200);
    }

    @Test
    void randomBytesNeverThrow() {
        Fuzz.randomBytesNeverThrow(AgentLogs.codex(), dir, "rollout.jsonl");
    }

    @Test
    void exceptionsFromTheSinkPropagateUnchanged() {
        Path file = Records.write(dir.resolve("rollout.jsonl"), List.of(META, user("a"), answer("b"), user("c")));
        IllegalStateException boom = new IllegalStateException("sink is full");

        assertThatThrownBy(() -> AgentLogs.codex().parse(file, m -> {
            throw boom;
        })).isSameAs(boom);
    }
}
