package dev.funes.bench.eval;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The coding-session question set: questions a user asks about past agent sessions, each with
 * the fixture lines that answer it. One JSON object per line:
 *
 * <pre>{@code
 * {"id": "cc-ci-branch", "kind": "why", "paraphrased": true,
 *  "question": "why did the pipeline look at the wrong branch?",
 *  "answer": "CI checks the PR's merge commit with main, and main had lint errors",
 *  "expected": [{"file": "claude-code/episodic-memory-large.jsonl", "lines": [126, 135]}]}
 * }</pre>
 *
 * <p>{@code file} is relative to the fixtures folder, {@code lines} a 1-based inclusive range;
 * several expected ranges mean any of them answers. {@code answer} is for the people who check
 * the set, not used in scoring. Two optional fields: {@code set} names the batch a question
 * belongs to ({@code "original"} when absent; {@code "recall"} for questions whose answer the
 * compact rendering drops), {@code where} says what kind of text holds the answer (one of
 * {@link #WHERES}). Blank lines and lines starting with {@code #} are ignored.
 */
final class CodingQuestions {

    /** The kinds of question, as users ask them later. */
    static final Set<String> KINDS = Set.of(
            "why",        // why a decision was taken
            "failed",     // what was tried and did not work
            "how",        // how something was done
            "where",      // where something lives
            "docs",       // what documentation or a lookup said
            "convention"  // which convention the user asked for
    );

    /** Where a question's answer lies, for questions about text the compact rendering drops. */
    static final Set<String> WHERES = Set.of(
            "tool-result",   // deep inside a command's output or a file read
            "written-code",  // the content of a file the agent wrote or edited
            "thinking",      // past the first part of a reasoning block
            "long-text",     // inside a long request or answer
            "fetched-doc"    // a page or document the agent fetched
    );

    /** The set of a question written without a {@code set} field. */
    static final String ORIGINAL = "original";

    private static final ObjectMapper JSON = new ObjectMapper();

    private CodingQuestions() {
    }

    /**
     * A range of a fixture file that answers a question.
     *
     * @param file  relative to the fixtures folder, with {@code /} separators
     * @param start first line, 1-based
     * @param end   last line, inclusive
     */
    record Range(String file, int start, int end) {

        /** Whether {@code [from, to]} shares at least one line with this range. */
        boolean overlaps(int from, int to) {
            return from <= end && to >= start;
        }
    }

    /**
     * One question.
     *
     * @param line  where it is in the question file
     * @param where one of {@link #WHERES}, or "" when the question does not say
     * @param set   the batch it belongs to, {@link #ORIGINAL} by default
     */
    record Question(String id, String kind, boolean paraphrased, String question, String answer,
                    List<Range> expected, int line, String where, String set) {

        /** A question of the original set that does not say where its answer lies. */
        Question(String id, String kind, boolean paraphrased, String question, String answer,
                 List<Range> expected, int line) {
            this(id, kind, paraphrased, question, answer, expected, line, "", ORIGINAL);
        }
    }

    /**
     * Reads a question file.
     *
     * @param name the file's name, for error messages
     * @throws IllegalArgumentException naming the file and line of the first bad question
     */
    static List<Question> read(BufferedReader in, String name) throws IOException {
        List<Question> questions = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        String line;
        int number = 0;
        while ((line = in.readLine()) != null) {
            number++;
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            String where = name + ":" + number + ": ";
            JsonNode q;
            try {
                q = JSON.readTree(line);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException(where + "not a JSON object: " + e.getOriginalMessage(), e);
            }
            String id = text(q, "id", where);
            if (!ids.add(id)) {
                throw new IllegalArgumentException(where + "duplicate id " + id);
            }
            String kind = text(q, "kind", where);
            if (!KINDS.contains(kind)) {
                throw new IllegalArgumentException(where + "unknown kind '" + kind + "'; kinds: " + KINDS);
            }
            JsonNode paraphrased = q.get("paraphrased");
            if (paraphrased == null || !paraphrased.isBoolean()) {
                throw new IllegalArgumentException(where + "'paraphrased' must be true or false");
            }
            JsonNode expected = q.get("expected");
            if (expected == null || !expected.isArray() || expected.isEmpty()) {
                throw new IllegalArgumentException(where + "'expected' must be a non-empty list of {file, lines}");
            }
            List<Range> ranges = new ArrayList<>();
            for (JsonNode r : expected) {
                String file = text(r, "file", where);
                JsonNode lines = r.get("lines");
                if (file.startsWith("/") || file.contains("..") || file.contains("\\")) {
                    throw new IllegalArgumentException(where + "file must be relative to the fixtures folder: " + file);
                }
                if (lines == null || !lines.isArray() || lines.size() != 2 || !lines.get(0).canConvertToInt()
                        || !lines.get(1).canConvertToInt()) {
                    throw new IllegalArgumentException(where + "'lines' must be [first, last]");
                }
                int start = lines.get(0).asInt();
                int end = lines.get(1).asInt();
                if (start < 1 || end < start) {
                    throw new IllegalArgumentException(where + "bad line range [" + start + ", " + end + "]");
                }
                ranges.add(new Range(file, start, end));
            }
            JsonNode answer = q.get("answer");
            String lies = q.has("where") ? text(q, "where", where) : "";
            if (!lies.isEmpty() && !WHERES.contains(lies)) {
                throw new IllegalArgumentException(where + "unknown where '" + lies + "'; where: " + WHERES);
            }
            String set = q.has("set") ? text(q, "set", where) : ORIGINAL;
            questions.add(new Question(id, kind, paraphrased.asBoolean(), text(q, "question", where),
                    answer == null ? "" : answer.asText(), List.copyOf(ranges), number, lies, set));
        }
        return List.copyOf(questions);
    }

    private static String text(JsonNode node, String field, String where) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual() || value.asText().isBlank()) {
            throw new IllegalArgumentException(where + "'" + field + "' must be a non-empty string");
        }
        return value.asText();
    }
}
