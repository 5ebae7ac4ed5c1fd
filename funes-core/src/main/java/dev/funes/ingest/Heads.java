package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Looking at a file's first bytes to tell which agent wrote it ({@link LogFormat#canRead}).
 * Never throws.
 */
final class Heads {

    /**
     * Jackson's streaming parser alone: an {@code ObjectMapper} costs hundreds of classes at start,
     * a third of an {@code index} that finds every log unchanged (docs/BENCHMARKS.md, "Cold start").
     */
    private static final JsonFactory JSON = new JsonFactory();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Complete lines of a JSON Lines head looked at; a log shows what it is within a few. */
    static final int DETECT_LINES = 20;

    private Heads() {
    }

    /** What the first complete lines of a JSON Lines head say. */
    enum Verdict {
        /** One of the first complete lines passed the test. */
        YES,
        /** Complete lines were read and none passed. */
        NO,
        /** Not even one complete line: the first line is longer than the head. */
        UNKNOWN
    }

    /** Whether the file name ends with {@code suffix} (case-insensitive). */
    static boolean named(Path file, String suffix) {
        Path name = file.getFileName();
        return name != null && name.toString().toLowerCase(java.util.Locale.ROOT).endsWith(suffix);
    }

    /** Offset of the content after a UTF-8 byte-order mark, if any. */
    static int skipBom(byte[] head) {
        return head.length >= 3 && (head[0] & 0xFF) == 0xEF && (head[1] & 0xFF) == 0xBB && (head[2] & 0xFF) == 0xBF ? 3 : 0;
    }

    /**
     * Runs {@code test} on the first {@link #DETECT_LINES} complete non-blank lines of the head
     * that parse as JSON objects.
     */
    static Verdict jsonLines(byte[] head, Predicate<JsonNode> test) {
        int from = skipBom(head);
        int lines = 0;
        boolean sawComplete = false;
        for (int i = from; i < head.length && lines < DETECT_LINES; i++) {
            if (head[i] != '\n') {
                continue;
            }
            String line = new String(head, from, i - from, StandardCharsets.UTF_8).strip();
            from = i + 1;
            if (line.isEmpty()) {
                continue;
            }
            lines++;
            sawComplete = true;
            JsonNode node = parse(line);
            if (node != null && node.isObject()) {
                try {
                    if (test.test(node)) {
                        return Verdict.YES;
                    }
                } catch (RuntimeException e) {
                    // a shape the test did not expect: not this format
                }
            }
        }
        return sawComplete ? Verdict.NO : Verdict.UNKNOWN;
    }

    /**
     * The usual test of a JSON Lines log: a non-empty {@code .jsonl} head among whose first
     * complete lines one passes {@code isRecord}; when not even one line is complete (a first
     * record longer than the head), {@code longFirstLine} decides on the head's text. Never throws.
     */
    static boolean records(Path file, byte[] head, Predicate<JsonNode> isRecord, Predicate<String> longFirstLine) {
        return safely(() -> head.length > 0 && named(file, ".jsonl") && switch (jsonLines(head, isRecord)) {
            case YES -> true;
            case NO -> false;
            case UNKNOWN -> longFirstLine.test(text(head));
        });
    }

    /**
     * The usual test of a whole-document log: a non-empty head of a file named with one of the
     * suffixes whose text passes {@code test}. Never throws.
     */
    static boolean document(Path file, byte[] head, Predicate<String> test, String... suffixes) {
        return safely(() -> {
            if (head.length == 0) {
                return false;
            }
            for (String suffix : suffixes) {
                if (named(file, suffix)) {
                    return test.test(text(head));
                }
            }
            return false;
        });
    }

    /** The answer of a head test, or false where the head was a shape it did not expect. */
    static boolean safely(BooleanSupplier test) {
        try {
            return test.getAsBoolean();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The head as text, after any byte-order mark and leading whitespace. */
    static String text(byte[] head) {
        int from = skipBom(head);
        return new String(head, from, head.length - from, StandardCharsets.UTF_8).stripLeading();
    }

    /**
     * The JSON object {@code line} begins with, as {@code ObjectMapper.readTree} reads it (the same
     * node types; a later duplicate key wins; what follows the object is not read); null when the
     * line does not begin with a well-formed object.
     */
    static ObjectNode parse(String line) {
        try (JsonParser p = JSON.createParser(line)) {
            return p.nextToken() == JsonToken.START_OBJECT ? object(p) : null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The object whose start is the parser's current token, read to its end. */
    private static ObjectNode object(JsonParser p) throws IOException {
        ObjectNode node = NODES.objectNode();
        JsonToken t;
        while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            node.set(name, value(p, p.nextToken()));
        }
        if (t != JsonToken.END_OBJECT) {
            throw new IOException("unexpected " + t);
        }
        return node;
    }

    private static JsonNode value(JsonParser p, JsonToken t) throws IOException {
        if (t == null) {
            throw new IOException("unexpected end of the line");
        }
        switch (t) {
            case START_OBJECT:
                return object(p);
            case START_ARRAY: {
                ArrayNode array = NODES.arrayNode();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    array.add(value(p, e));
                }
                return array;
            }
            case VALUE_STRING:
                return NODES.textNode(p.getText());
            case VALUE_NUMBER_INT:
                return switch (p.getNumberType()) {
                    case INT -> NODES.numberNode(p.getIntValue());
                    case LONG -> NODES.numberNode(p.getLongValue());
                    default -> NODES.numberNode(p.getBigIntegerValue());
                };
            case VALUE_NUMBER_FLOAT:
                return NODES.numberNode(p.getDoubleValue());
            case VALUE_TRUE:
                return NODES.booleanNode(true);
            case VALUE_FALSE:
                return NODES.booleanNode(false);
            case VALUE_NULL:
                return NODES.nullNode();
            default:
                throw new IOException("unexpected " + t);
        }
    }
}
