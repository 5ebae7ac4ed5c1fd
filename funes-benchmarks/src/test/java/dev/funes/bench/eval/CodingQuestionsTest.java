package dev.funes.bench.eval;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The shipped coding question set, its file format, and what counts as an answer. */
class CodingQuestionsTest {

    static Path fixtures() {
        return Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures");
    }

    @Test
    void theShippedSetHasEnoughQuestionsOfEveryKindMostlyParaphrased() throws Exception {
        List<CodingQuestions.Question> questions = Evaluate.questions(null);
        assertThat(questions).hasSizeGreaterThanOrEqualTo(50);
        assertThat(questions.stream().filter(CodingQuestions.Question::paraphrased).count() * 2)
                .isGreaterThanOrEqualTo(questions.size());
        assertThat(questions.stream().map(CodingQuestions.Question::kind).collect(Collectors.toSet()))
                .isEqualTo(CodingQuestions.KINDS);
        // The format the ingest reads today must carry at least 50 of them on its own.
        assertThat(questions.stream().filter(q -> q.expected().get(0).file().startsWith("claude-code/")).count())
                .isGreaterThanOrEqualTo(50);
    }

    @Test
    void theRecallSetAsksAboutDroppedTextInFourFormatsAtMost12PerFileHalfParaphrased() throws Exception {
        List<CodingQuestions.Question> recall = Evaluate.questions(null).stream()
                .filter(q -> q.set().equals("recall")).collect(Collectors.toList());
        assertThat(recall).hasSizeGreaterThanOrEqualTo(40);
        assertThat(recall).allSatisfy(q -> assertThat(CodingQuestions.WHERES).contains(q.where()));
        assertThat(recall.stream().filter(CodingQuestions.Question::paraphrased).count() * 2)
                .isGreaterThanOrEqualTo(recall.size());
        // The format is the fixture folder of the first expected file.
        assertThat(recall.stream().map(q -> q.expected().get(0).file().split("/")[0]).distinct().count())
                .isGreaterThanOrEqualTo(4);
        Map<String, Long> perFile = recall.stream()
                .collect(Collectors.groupingBy(q -> q.expected().get(0).file(), Collectors.counting()));
        assertThat(perFile.values()).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(12L));
        // The redacted Codex files have no text to ask about.
        assertThat(recall).allSatisfy(q -> assertThat(q.expected())
                .noneMatch(r -> r.file().startsWith("codex/localpush-")));
    }

    @Test
    void everyExpectedRangeLiesInsideAnExistingFixtureAndClaudeCodeQuestionsCount() throws Exception {
        assumeTrue(Files.isDirectory(fixtures()), "skipped: no fixtures at " + fixtures().toAbsolutePath().normalize());
        List<CodingQuestions.Question> questions = Evaluate.questions(null);
        CodingEval.Prepared data = CodingEval.prepare(fixtures(), questions); // throws on a range past its file
        assertThat(data.counted().size() + data.skipped().size()).isEqualTo(questions.size());
        assertThat(data.counted()).allSatisfy(q -> assertThat(q.expected())
                .anyMatch(r -> data.files().getOrDefault(r.file(), 0) > 0));
        assertThat(data.skipped()).allSatisfy(q -> assertThat(q.expected())
                .noneMatch(r -> data.files().getOrDefault(r.file(), 0) > 0));
        assertThat(data.counted()).extracting(CodingQuestions.Question::id).contains("cc-ci-merge-commit");
        // The paraphrased questions share clearly fewer words with their answers than the literal ones.
        assertThat(data.overlap().get("paraphrased")).isLessThan(data.overlap().get("literal"));
    }

    @Test
    void aBadQuestionLineIsReportedWithItsFileAndLine() {
        String good = "{\"id\":\"a\",\"kind\":\"why\",\"paraphrased\":true,\"question\":\"why?\","
                + "\"expected\":[{\"file\":\"claude-code/x.jsonl\",\"lines\":[3,4]}]}";
        String badKind = good.replace("\"why\"", "\"when\"").replace("\"a\"", "\"b\"");
        assertThatThrownBy(() -> read("# comment\n\n" + good + "\n" + badKind))
                .hasMessageContaining("q.jsonl:4:").hasMessageContaining("unknown kind 'when'");
        assertThatThrownBy(() -> read(good + "\n" + good)).hasMessageContaining("q.jsonl:2: duplicate id a");
        assertThatThrownBy(() -> read(good.replace("[3,4]", "[4,3]"))).hasMessageContaining("q.jsonl:1: bad line range");
        assertThatThrownBy(() -> read(good.replace("claude-code/x.jsonl", "/etc/passwd")))
                .hasMessageContaining("relative to the fixtures folder");
        assertThatThrownBy(() -> read(good.replace("true", "\"yes\""))).hasMessageContaining("'paraphrased'");
        assertThatThrownBy(() -> read("{not json")).hasMessageContaining("q.jsonl:1: not a JSON object");
        assertThatThrownBy(() -> read(good.replace("}]}", "}], \"where\": \"stdout\"}")))
                .hasMessageContaining("q.jsonl:1: unknown where 'stdout'");
        assertThatThrownBy(() -> read(good.replace("}]}", "}], \"set\": \"\"}")))
                .hasMessageContaining("q.jsonl:1: 'set' must be a non-empty string");
    }

    @Test
    void whereAndSetAreReadAndAQuestionWithoutThemBelongsToTheOriginalSet() throws Exception {
        String plain = "{\"id\":\"a\",\"kind\":\"why\",\"paraphrased\":true,\"question\":\"why?\","
                + "\"expected\":[{\"file\":\"claude-code/x.jsonl\",\"lines\":[3,4]}]}";
        String recall = plain.replace("\"a\"", "\"b\"").replace("}]}", "}], \"where\": \"thinking\", \"set\": \"recall\"}");
        List<CodingQuestions.Question> questions = read(plain + "\n" + recall);
        assertThat(questions.get(0).set()).isEqualTo("original");
        assertThat(questions.get(0).where()).isEmpty();
        assertThat(questions.get(1).set()).isEqualTo("recall");
        assertThat(questions.get(1).where()).isEqualTo("thinking");
    }

    private static List<CodingQuestions.Question> read(String text) throws Exception {
        return CodingQuestions.read(new BufferedReader(new StringReader(text)), "q.jsonl");
    }

    @Test
    void aHitAnswersOnlyWithTheRightFileAnOverlappingRangeAndAtMost100Lines(@TempDir Path root) throws Exception {
        Path log = Files.createDirectories(root.resolve("claude-code")).resolve("s.jsonl");
        Files.writeString(log, "{}\n".repeat(300));
        Path other = root.resolve("claude-code/other.jsonl");
        Files.writeString(other, "{}\n".repeat(300));
        CodingQuestions.Question q = new CodingQuestions.Question("q", "how", false, "how?", "",
                List.of(new CodingQuestions.Range("claude-code/s.jsonl", 120, 130)), 1);
        HashMap<Path, Path> cache = new HashMap<>();

        assertThat(CodingEval.answers(root, q, memory(log, 125, 126), cache)).isTrue();
        assertThat(CodingEval.answers(root, q, memory(log, 100, 120), cache)).isTrue();   // touches the first line
        assertThat(CodingEval.answers(root, q, memory(log, 130, 229), cache)).isTrue();   // 100 lines
        assertThat(CodingEval.answers(root, q, memory(log, 130, 230), cache)).isFalse();  // 101 lines: too broad
        assertThat(CodingEval.answers(root, q, memory(log, 131, 140), cache)).isFalse();  // next to it
        assertThat(CodingEval.answers(root, q, memory(other, 120, 130), cache)).isFalse(); // another file
        assertThat(CodingEval.answers(root, q, Memory.builder(MemoryKind.NOTE, "me", "a note").build(), cache)).isFalse();
    }

    @Test
    void aHitAnswersThroughAnyPassageItReturns(@TempDir Path root) throws Exception {
        Path log = Files.createDirectories(root.resolve("aider")).resolve("s.md");
        Files.writeString(log, "x\n".repeat(400));
        CodingQuestions.Question q = new CodingQuestions.Question("q", "how", false, "how?", "",
                List.of(new CodingQuestions.Range("aider/s.md", 250, 252)), 1);
        HashMap<Path, Path> cache = new HashMap<>();
        Memory exchange = memory(log, 100, 300); // 201 lines: too broad to answer alone
        dev.funes.ScoreParts parts = dev.funes.ScoreParts.of(1, 0.5, 1, 10, 0.4, 0.6, 0);

        dev.funes.SearchHit bestElsewhere = new dev.funes.SearchHit(exchange, 1, parts, passage(log, 110, exchange));
        assertThat(CodingEval.hitAnswers(root, q, bestElsewhere, cache)).isFalse();
        dev.funes.SearchHit furtherAnswers = new dev.funes.SearchHit(exchange, 1, parts, passage(log, 110, exchange),
                List.of(passage(log, 180, exchange), passage(log, 251, exchange)));
        assertThat(CodingEval.hitAnswers(root, q, furtherAnswers, cache)).isTrue();
        assertThat(CodingEval.hitAnswers(root, q, new dev.funes.SearchHit(exchange, 1, parts), cache)).isFalse();
    }

    private static Memory passage(Path file, int line, Memory of) {
        return Memory.builder(MemoryKind.PASSAGE, "aider", "line " + line)
                .provenance(new Provenance(file, line, line, (line - 1) * 2L, line * 2L, List.of()))
                .metadata(Memory.PASSAGE_OF, of.id()).build();
    }

    private static Memory memory(Path file, int from, int to) {
        return Memory.builder(MemoryKind.EXCHANGE, "claude-code", "lines " + from + "-" + to)
                .provenance(new Provenance(file, from, to, (from - 1) * 3L, to * 3L, List.of()))
                .build();
    }
}
