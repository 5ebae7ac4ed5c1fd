package dev.funes.bench.eval;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads LoCoMo's {@code locomo10.json} (snap-research/LoCoMo): a list of conversations, each with
 * its turns grouped in dated sessions and its questions. Every turn keeps the 1-based line range
 * and byte range of its JSON object in the file, so a memory made from it cites the exact text.
 *
 * <p>The file is read with a streaming parser over its bytes; token locations give the byte
 * offsets, and a table of line starts turns them into lines.
 */
final class Locomo {

    private static final Pattern SESSION = Pattern.compile("session_(\\d+)");
    private static final Pattern SESSION_DATE = Pattern.compile("session_(\\d+)_date_time");

    private Locomo() {
    }

    /**
     * One utterance.
     *
     * @param session     the LoCoMo session number (the {@code N} of {@code session_N})
     * @param diaId       its id, {@code D<session>:<turn>}
     * @param blipCaption the caption of the image shared with it, or {@code null}
     * @param lineStart   first line of its JSON object, 1-based
     * @param lineEnd     last line of its JSON object, inclusive
     * @param byteStart   offset of the first byte of {@code lineStart}
     * @param byteEnd     offset just past the newline ending {@code lineEnd}
     */
    record Turn(int session, String diaId, String speaker, String text, String blipCaption,
                int lineStart, int lineEnd, long byteStart, long byteEnd) {
    }

    /**
     * One question.
     *
     * @param evidence the evidence ids as they are in the file, possibly malformed
     * @param line     the line where its JSON object starts
     */
    record Question(String question, int category, List<String> evidence, int line) {
    }

    /**
     * One conversation.
     *
     * @param sampleId     its id, for example {@code conv-26}
     * @param sessionDates each session's date and time as written, for example
     *                     {@code 1:56 pm on 8 May, 2023}
     * @param turns        in file order
     */
    record Conversation(String sampleId, Map<Integer, String> sessionDates, List<Turn> turns,
                        List<Question> questions) {
    }

    /**
     * Reads the whole file.
     *
     * @throws IOException              if it cannot be read
     * @throws IllegalArgumentException if it is not LoCoMo's layout; the message names the file and
     *                                  line
     */
    static List<Conversation> read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        Reader reader = new Reader(file, bytes);
        try (JsonParser p = new JsonFactory(new ObjectMapper()).createParser(bytes)) {
            return reader.conversations(p);
        } catch (JsonParseException e) {
            throw new IllegalArgumentException(file + ":" + e.getLocation().getLineNr() + ": not valid JSON: "
                    + e.getOriginalMessage(), e);
        }
    }

    /** Offsets of line starts, for turning byte offsets into lines and whole-line byte ranges. */
    private static final class Reader {
        private final Path file;
        private final long length;
        private final long[] lineStarts;

        Reader(Path file, byte[] bytes) {
            this.file = file;
            this.length = bytes.length;
            long[] starts = new long[1024];
            int n = 0;
            starts[n++] = 0;
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == '\n' && i + 1 < bytes.length) {
                    if (n == starts.length) {
                        starts = Arrays.copyOf(starts, n * 2);
                    }
                    starts[n++] = i + 1;
                }
            }
            this.lineStarts = Arrays.copyOf(starts, n);
        }

        /** The 1-based line holding byte {@code offset}. */
        int line(long offset) {
            int i = Arrays.binarySearch(lineStarts, offset);
            return (i >= 0 ? i : -i - 2) + 1;
        }

        long lineStart(int line) {
            return lineStarts[line - 1];
        }

        long lineEnd(int line) {
            return line < lineStarts.length ? lineStarts[line] : length;
        }

        IllegalArgumentException bad(JsonParser p, String what) {
            return new IllegalArgumentException(file + ":" + line(p.currentTokenLocation().getByteOffset()) + ": " + what);
        }

        List<Conversation> conversations(JsonParser p) throws IOException {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                throw bad(p, "expected a list of conversations");
            }
            List<Conversation> conversations = new ArrayList<>();
            while (p.nextToken() == JsonToken.START_OBJECT) {
                conversations.add(conversation(p));
            }
            if (p.currentToken() != JsonToken.END_ARRAY) {
                throw bad(p, "expected a conversation object");
            }
            return conversations;
        }

        private Conversation conversation(JsonParser p) throws IOException {
            int line = line(p.currentTokenLocation().getByteOffset());
            String sampleId = null;
            Map<Integer, String> dates = new TreeMap<>();
            List<Turn> turns = new ArrayList<>();
            List<Question> questions = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "sample_id" -> sampleId = p.getValueAsString();
                    case "qa" -> questions(p, questions);
                    case "conversation" -> body(p, dates, turns);
                    default -> p.skipChildren();
                }
                if (value == null) {
                    throw bad(p, "unexpected end of file");
                }
            }
            if (sampleId == null) {
                throw new IllegalArgumentException(file + ":" + line + ": conversation without sample_id");
            }
            return new Conversation(sampleId, dates, turns, questions);
        }

        private void questions(JsonParser p, List<Question> questions) throws IOException {
            if (p.currentToken() != JsonToken.START_ARRAY) {
                throw bad(p, "qa is not a list");
            }
            while (p.nextToken() == JsonToken.START_OBJECT) {
                int line = line(p.currentTokenLocation().getByteOffset());
                JsonNode q = p.readValueAsTree();
                JsonNode text = q.get("question");
                JsonNode category = q.get("category");
                if (text == null || !text.isTextual() || text.asText().isBlank()) {
                    throw new IllegalArgumentException(file + ":" + line + ": question without text");
                }
                if (category == null || !category.canConvertToInt()) {
                    throw new IllegalArgumentException(file + ":" + line + ": question without an integer category");
                }
                List<String> evidence = new ArrayList<>();
                JsonNode ev = q.get("evidence");
                if (ev != null && ev.isArray()) {
                    ev.forEach(e -> evidence.add(e.asText()));
                }
                questions.add(new Question(text.asText(), category.asInt(), List.copyOf(evidence), line));
            }
        }

        private void body(JsonParser p, Map<Integer, String> dates, List<Turn> turns) throws IOException {
            if (p.currentToken() != JsonToken.START_OBJECT) {
                throw bad(p, "conversation is not an object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                Matcher session = SESSION.matcher(field);
                Matcher date = SESSION_DATE.matcher(field);
                if (session.matches() && p.currentToken() == JsonToken.START_ARRAY) {
                    int number = Integer.parseInt(session.group(1));
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        turns.add(turn(p, number));
                    }
                } else if (date.matches()) {
                    dates.put(Integer.parseInt(date.group(1)), p.getValueAsString());
                } else {
                    p.skipChildren();
                }
            }
        }

        private Turn turn(JsonParser p, int session) throws IOException {
            long start = p.currentTokenLocation().getByteOffset();
            JsonNode t = p.readValueAsTree();
            long end = p.currentTokenLocation().getByteOffset(); // the closing brace
            int lineStart = line(start);
            int lineEnd = line(end);
            String diaId = text(t, "dia_id", lineStart);
            String speaker = text(t, "speaker", lineStart);
            String text = text(t, "text", lineStart);
            JsonNode caption = t.get("blip_caption");
            String blip = caption != null && caption.isTextual() && !caption.asText().isBlank() ? caption.asText() : null;
            return new Turn(session, diaId, speaker, text, blip, lineStart, lineEnd, lineStart(lineStart),
                    lineEnd(lineEnd));
        }

        private String text(JsonNode node, String field, int line) {
            JsonNode value = node.get(field);
            if (value == null || !value.isTextual()) {
                throw new IllegalArgumentException(file + ":" + line + ": turn without a text field '" + field + "'");
            }
            return value.asText();
        }
    }
}
