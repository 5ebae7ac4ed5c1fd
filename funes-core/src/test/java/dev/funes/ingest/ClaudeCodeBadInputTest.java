package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static dev.funes.ingest.Records.answer;
import static dev.funes.ingest.Records.bash;
import static dev.funes.ingest.Records.request;
import static dev.funes.ingest.Records.result;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input: each case reports file and line and indexes the rest; nothing throws. */
class ClaudeCodeBadInputTest {

    @TempDir
    Path dir;

    private Path log() {
        return dir.resolve("session.jsonl");
    }

    private static List<String> ranges(Logs.Parsed parsed) {
        return parsed.memories().stream().map(m -> m.provenance().lineStart() + "-" + m.provenance().lineEnd()).toList();
    }

    @Test
    void malformedLineMidFileIsReportedAndTheRestIndexed() {
        Path file = Records.write(log(), List.of(
                request(1, "first request"), answer(2, "msg_a", "first answer"),
                "{\"type\":\"user\",\"message\":{\"content\":\"bro",
                request(4, "second request"), answer(5, "msg_b", "second answer")));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(ranges(parsed)).containsExactly("1-2", "4-5");
        assertThat(parsed.result().problems()).singleElement().satisfies(p -> {
            assertThat(p.file()).isEqualTo(file.toAbsolutePath().normalize());
            assertThat(p.line()).isEqualTo(3);
            assertThat(p.toString()).startsWith(file.toAbsolutePath().normalize() + ":3: malformed JSON, line skipped");
        });
        assertThat(parsed.result().recordsSkipped()).isEqualTo(1);
        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.result().indexedLines()).isEqualTo(5);
    }

    @Test
    void jsonNestedDeeperThanTheLimitIsSkippedByLineWithoutRecursion() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        Path file = Records.write(log(), List.of(
                request(1, "first request"), answer(2, "msg_a", "first answer"),
                deep, "{\"type\":\"user\",\"message\":{\"content\":" + deep + "}}",
                request(5, "second request"), answer(6, "msg_b", "second answer")));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(ranges(parsed)).containsExactly("1-2", "5-6");
        assertThat(parsed.result().problems()).extracting(IndexProblem::toString).containsExactly(
                file.toAbsolutePath().normalize() + ":3: JSON nested more than 1000 levels deep; line skipped",
                file.toAbsolutePath().normalize() + ":4: JSON nested more than 1000 levels deep; line skipped");
        assertThat(parsed.result().indexedLines()).isEqualTo(6);
    }

    @Test
    void truncatedLastLineIsLeftForLaterWithoutAProblem() throws Exception {
        String complete = request(1, "first request") + "\n" + answer(2, "msg_a", "first answer") + "\n";
        String second = request(3, "second request");
        Path file = Records.write(log(), complete + second.substring(0, 40));

        Logs.Parsed before = Logs.parse(file);

        assertThat(ranges(before)).containsExactly("1-2");
        assertThat(before.result().problems()).isEmpty();
        assertThat(before.result().complete()).isTrue();
        assertThat(before.result().indexedBytes()).isEqualTo(complete.getBytes(StandardCharsets.UTF_8).length);
        assertThat(before.result().indexedLines()).isEqualTo(2);
        assertThat(before.result().indexedBytes()).isLessThan(Files.size(file));

        // The writer finishes the line: it is read, and what was read before keeps its id.
        Records.append(file, second.substring(40) + "\n");
        Logs.Parsed after = Logs.parse(file);

        assertThat(ranges(after)).containsExactly("1-2", "3-3");
        assertThat(after.memories().get(0).id()).isEqualTo(before.memories().get(0).id());
        assertThat(after.result().indexedBytes()).isEqualTo(Files.size(file));
    }

    @Test
    void completeLastRecordWithoutNewlineIsRead() throws Exception {
        Path file = Records.write(log(), request(1, "only request") + "\n" + answer(2, "msg_a", "only answer"));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(ranges(parsed)).containsExactly("1-2");
        assertThat(parsed.result().indexedBytes()).isEqualTo(Files.size(file));
        assertThat(parsed.memories().get(0).provenance().byteEnd()).isEqualTo(Files.size(file));
    }

    @Test
    void invalidUtf8IsReplacedAndReported() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write((request(1, "caf") + "\n").replace("caf\"", "caf\u0000\"").getBytes(StandardCharsets.UTF_8));
        byte[] line1 = bytes.toByteArray();
        for (int i = 0; i < line1.length; i++) {
            if (line1[i] == 0) {
                line1[i] = (byte) 0xC3; // a lead byte followed by a quote: invalid
            }
        }
        bytes.reset();
        bytes.write(line1);
        bytes.write((answer(2, "msg_a", "fine") + "\n").getBytes(StandardCharsets.UTF_8));
        Path file = Records.write(log(), bytes.toByteArray());

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.result().problems()).singleElement().satisfies(p -> {
            assertThat(p.line()).isEqualTo(1);
            assertThat(p.message()).startsWith("invalid UTF-8 at byte").endsWith("replaced by U+FFFD");
        });
        assertThat(parsed.memories()).singleElement()
                .satisfies(m -> assertThat(m.text()).startsWith("User: caf\uFFFD\nAssistant: fine"));
    }

    @Test
    void aReplacementCharacterWrittenAsSuchIsNotInvalidUtf8() throws Exception {
        // U+FFFD encoded as valid UTF-8 (EF BF BD) on line 1; on line 2 one too, then a bad byte.
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write((request(1, "before \uFFFD after") + "\n").getBytes(StandardCharsets.UTF_8));
        byte[] line2 = (answer(2, "msg_a", "x \uFFFD y#z") + "\n").replace("y#z", "y\u0000z")
                .getBytes(StandardCharsets.UTF_8);
        int bad = -1;
        for (int i = 0; i < line2.length; i++) {
            if (line2[i] == 0) {
                line2[i] = (byte) 0xFF; // never valid in UTF-8
                bad = i;
            }
        }
        bytes.write(line2);
        Path file = Records.write(log(), bytes.toByteArray());

        Logs.Parsed parsed = Logs.parse(file);

        int at = bad + 1;
        assertThat(parsed.result().problems()).singleElement().satisfies(p -> {
            assertThat(p.line()).isEqualTo(2);
            assertThat(p.message()).isEqualTo("invalid UTF-8 at byte " + at + " of the line; replaced by U+FFFD");
        });
        assertThat(parsed.memories()).singleElement()
                .satisfies(m -> assertThat(m.text()).contains("before \uFFFD after").contains("x \uFFFD y\uFFFDz"));
    }

    @Test
    void unknownTypesAreCountedAndWarnedOncePerFile() {
        Path file = Records.write(log(), List.of(
                request(1, "a request"), "{\"type\":\"foo\",\"sessionId\":\"x\"}", "{\"type\":\"bar\"}",
                "{\"type\":\"foo\"}", "{\"type\":5}", "{\"no\":\"type\"}", answer(7, "msg_a", "an answer")));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(ranges(parsed)).containsExactly("1-7");
        Logs.assertExactProvenance(parsed.memories().get(0), Logs.Lines.of(file));
        assertThat(parsed.result().recordsSkipped()).isEqualTo(5);
        assertThat(parsed.result().problems()).singleElement().satisfies(p -> {
            assertThat(p.line()).isEqualTo(2);
            assertThat(p.message()).isEqualTo("skipped 5 records of unknown type: 'foo' ×2 (first at line 2), "
                    + "'bar' ×1 (first at line 3), '(type is a number)' ×1 (first at line 5), '(no type)' ×1 (first at line 6)");
        });
    }

    @Test
    void fieldsOfTheWrongJsonTypeAreReportedOrToleratedAndTheRestIndexed() {
        Path file = Records.write(log(), List.of(
                request(1, "a request"),
                "{\"type\":\"user\",\"uuid\":\"u2\",\"message\":{\"role\":\"user\",\"content\":42}}",
                "{\"type\":\"assistant\",\"uuid\":\"u3\",\"message\":\"not an object\"}",
                "[1,2,3]",
                "\"just a string\"",
                "null",
                // Tolerated: odd types where a default does: time, sidechain flag, tool input and result content.
                "{\"type\":\"assistant\",\"uuid\":\"u7\",\"timestamp\":17,\"isSidechain\":\"yes\",\"message\":{\"id\":\"m7\","
                        + "\"content\":[{\"type\":\"tool_use\",\"id\":\"t7\",\"name\":\"Bash\",\"input\":\"ls\"},{\"type\":\"text\",\"text\":7}]}}",
                "{\"type\":\"user\",\"uuid\":\"u8\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t7\",\"content\":{\"a\":1}}]}}",
                answer(9, "msg_z", "done")));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.result().problems()).extracting(p -> p.line() + ": " + p.message()).containsExactly(
                "2: message.content is a number, expected a string or an array; skipped",
                "3: assistant record has no \"message\" object; skipped",
                "4: expected a JSON object, found an array; line skipped",
                "5: expected a JSON object, found a string; line skipped",
                "6: expected a JSON object, found null; line skipped");
        assertThat(parsed.result().recordsSkipped()).isEqualTo(5);
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("User: a request\n[Bash] → ok (no output)\nAssistant: done");
            assertThat(m.provenance().lineStart()).isEqualTo(1);
            assertThat(m.provenance().lineEnd()).isEqualTo(9);
            // Skipped records inside the range still count among its records.
            assertThat(m.provenance().recordIds()).contains("u2", "u3", "u7", "u8");
            Logs.assertExactProvenance(m, Logs.Lines.of(file));
        });
    }

    @Test
    void emptyFileGivesNothingAndNoProblem() {
        Path file = Records.write(log(), new byte[0]);

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.memories()).isEmpty();
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.result().indexedBytes()).isZero();
    }

    @Test
    void blankLinesAreIgnored() {
        Path file = Records.write(log(), List.of(request(1, "a request"), "", "   ", answer(4, "msg_a", "an answer")));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(ranges(parsed)).containsExactly("1-4");
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().records()).isEqualTo(2);
    }

    @Test
    void aFiveMegabyteLineIsSkippedWithAWarningAndTheRestIndexed() throws Exception {
        String huge = request(2, "x".repeat(5_000_000));
        Path file = Records.write(log(), List.of(request(1, "before"), huge, request(3, "after"), answer(4, "msg_a", "answered")));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.result().problems()).singleElement().satisfies(p -> {
            assertThat(p.line()).isEqualTo(2);
            assertThat(p.message()).isEqualTo("line is 5.0 MB, over the 4 MB limit for one record; skipped");
        });
        assertThat(ranges(parsed)).containsExactly("1-1", "3-4");
        assertThat(parsed.result().recordsSkipped()).isEqualTo(1);
        assertThat(parsed.result().indexedBytes()).isEqualTo(Files.size(file));
    }

    @Test
    void aHugeUnfinishedLastLineIsLeftForLater() {
        Path file = Records.write(log(), request(1, "before") + "\n" + "{\"type\":\"user\",\"x\":\"" + "y".repeat(5_000_000));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.result().problems()).isEmpty();
        assertThat(ranges(parsed)).containsExactly("1-1");
        assertThat(parsed.result().indexedLines()).isEqualTo(1);
    }

    @Test
    void missingFileIsAProblemNotAnException() {
        Path file = dir.resolve("gone.jsonl");

        ParseResult result = AgentLogs.claudeCode().parse(file, m -> { });

        assertThat(result.complete()).isFalse();
        assertThat(result.problems()).extracting(IndexProblem::toString).containsExactly(file + ": file not found");
    }

    @Test
    void aFolderInsteadOfAFileIsAProblemNotAnException() {
        ParseResult result = AgentLogs.claudeCode().parse(dir, m -> { });

        assertThat(result.complete()).isFalse();
        assertThat(result.problems()).singleElement().satisfies(p -> assertThat(p.file()).isEqualTo(dir));
    }

    @Test
    void byteOrderMarkAndCrlfLineEndsAreRead() throws Exception {
        String body = request(1, "windows request") + "\r\n" + answer(2, "msg_a", "windows answer") + "\r\n";
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        bytes.write(body.getBytes(StandardCharsets.UTF_8));
        Path file = Records.write(log(), bytes.toByteArray());

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("User: windows request\nAssistant: windows answer");
            assertThat(m.provenance().byteStart()).isZero();
            assertThat(m.provenance().byteEnd()).isEqualTo(Files.size(file));
        });
        assertThat(AgentLogs.claudeCode().canRead(file, Files.readAllBytes(file))).isTrue();
    }

    @Test
    void exceptionsFromTheSinkPropagateUnchanged() {
        Path file = Records.write(log(), List.of(request(1, "a"), answer(2, "msg_a", "b"), request(3, "c")));
        IllegalStateException boom = new IllegalStateException("sink is full");

        assertThatThrownBy(() -> AgentLogs.claudeCode().parse(file, m -> {
            throw boom;
        })).isSameAs(boom);
    }

    @Test
    void mangledLogsNeverThrowAndAlwaysCiteValidRanges() throws Exception {
        byte[] sample = Files.readAllBytes(Logs.mainSample());
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int round = 0; round < 200; round++) {
            byte[] bytes = sample.clone();
            int edits = 1 + random.nextInt(20);
            for (int i = 0; i < edits; i++) {
                int at = random.nextInt(bytes.length);
                bytes[at] = switch (random.nextInt(4)) {
                    case 0 -> (byte) '\n';
                    case 1 -> (byte) random.nextInt(256);
                    case 2 -> (byte) '"';
                    default -> (byte) '{';
                };
            }
            int cut = random.nextInt(4) == 0 ? random.nextInt(bytes.length) : bytes.length;
            Path file = Records.write(dir.resolve("mangled-" + round + ".jsonl"), java.util.Arrays.copyOf(bytes, cut));
            List<Memory> memories = new ArrayList<>();
            ParseResult result = AgentLogs.claudeCode().parse(file, memories::add);
            Logs.Lines lines = Logs.Lines.of(file);
            assertThat(result.complete()).as("seed %d round %d", seed, round).isTrue();
            assertThat(result.indexedBytes()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(cut);
            for (Memory m : memories) {
                assertThat(m.provenance().lineEnd()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(lines.count());
                assertThat(m.provenance().byteEnd()).as("seed %d round %d", seed, round).isEqualTo(lines.offsets()[m.provenance().lineEnd()]);
                assertThat(m.provenance().lineCount()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(Chunker.MAX_LINES);
                assertThat(m.text().length()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(Chunker.MAX_CHARS);
            }
        }
    }

    @Test
    void randomBytesNeverThrow() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int round = 0; round < 50; round++) {
            byte[] bytes = new byte[random.nextInt(20_000)];
            random.nextBytes(bytes);
            Path file = Records.write(dir.resolve("noise-" + round + ".jsonl"), bytes);
            ParseResult result = AgentLogs.claudeCode().parse(file, m -> { });
            assertThat(result.complete()).as("seed %d round %d", seed, round).isTrue();
            // The listed ones, the unknown-type summary (a noise line can parse as {}), the count of the rest.
            assertThat(result.problems().size()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(Problems.MAX + 2);
        }
    }

    @Test
    void theOutputOfAFailedToolIsHeadedAsItsError() {
        String output = "npm ERR! missing script: lint -- the package has no lint script to run here";
        Path file = Records.write(log(), List.of(Records.toolUse(1, "msg_a", "toolu_1", "Bash", "command", "npm run lint"),
                result(2, "toolu_1", output, true), result(3, "toolu_unknown", output + " again", true)));
        List<Memory> passages = new ArrayList<>();
        AgentLogs.claudeCode().parse(file, (PassageSink) m -> {
            if (m.kind() == MemoryKind.PASSAGE) {
                passages.add(m);
            }
        });

        assertThat(passages).extracting(m -> m.metadata().get(Passages.HEADER_KEY))
                .containsExactly("Error of [Bash] npm run lint", "Tool error");
    }

    @Test
    void aToolResultWithoutItsCallStillShowsUp() {
        Path file = Records.write(log(), List.of(result(1, "toolu_unknown", "orphan output", true), answer(2, "msg_a", "after")));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.ofKind(MemoryKind.EXCHANGE)).singleElement()
                .satisfies(m -> assertThat(m.text()).isEqualTo("Tool result → error: orphan output\nAssistant: after"));
    }

    @Test
    void aRepeatedBlockOfOneMessageIsKeptOnce() {
        Path file = Records.write(log(), List.of(request(1, "run it"), bash(2, "msg_a", "toolu_1", "make"),
                bash(3, "msg_a", "toolu_1", "make"), result(4, "toolu_1", "built", false)));

        Logs.Parsed parsed = Logs.parse(file);

        assertThat(parsed.memories()).singleElement()
                .satisfies(m -> assertThat(m.text()).isEqualTo("User: run it\n[Bash] make → ok: built"));
    }
}
