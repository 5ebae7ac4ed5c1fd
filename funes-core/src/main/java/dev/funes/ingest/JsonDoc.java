package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * A whole-file JSON document (a Gemini CLI session, a Cline history, an OpenHands or SWE-agent
 * trajectory) read as a stream of tokens, with the lines each value spans, so memories built
 * from one element can cite exactly its lines.
 *
 * <p>Opening the file reads it once to note where its lines start (8 bytes per line); the
 * document is then parsed as a stream, and {@link #readLocated()} turns one value (one
 * message, one event) into a tree that knows the lines of each of its objects, arrays and
 * fields. Only that value is held, never the whole document. Not thread-safe.
 */
final class JsonDoc implements Closeable {

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(200).build())
            .build();

    /**
     * Where a value lies: its lines and the bytes of those whole lines ({@code start},
     * {@code end}), and its own bytes ({@code valueStart} to just past {@code valueEnd}) when it
     * lies within one line, else those lines again: a message of a JSON array written as one
     * line is all of that line, and only its own bytes.
     */
    record Span(int firstLine, int lastLine, long start, long end, long valueStart, long valueEnd) {

        /** A span that is its whole lines. */
        Span(int firstLine, int lastLine, long start, long end) {
            this(firstLine, lastLine, start, end, start, end);
        }

        int lines() {
            return lastLine - firstLine + 1;
        }
    }

    /** A value read with the spans of its containers and fields. */
    static final class Located {
        final JsonNode node;
        final Span span;
        private final IdentityHashMap<JsonNode, Span> spans;
        private final IdentityHashMap<JsonNode, Map<String, Span>> fields;

        private Located(JsonNode node, Span span, IdentityHashMap<JsonNode, Span> spans,
                        IdentityHashMap<JsonNode, Map<String, Span>> fields) {
            this.node = node;
            this.span = span;
            this.spans = spans;
            this.fields = fields;
        }

        /** The span of an object or array inside this value, or of the value itself; null if unknown. */
        Span span(JsonNode container) {
            return spans.get(container);
        }

        /** The span of a field of an object inside this value, from its name to the end of its value; null if absent. */
        Span field(JsonNode object, String name) {
            Map<String, Span> f = fields.get(object);
            return f == null ? null : f.get(name);
        }
    }

    private final long[] lineStarts;
    private final int lineCount;
    private final long size;
    private final JsonParser parser;

    private JsonDoc(long[] lineStarts, int lineCount, long size, JsonParser parser) {
        this.lineStarts = lineStarts;
        this.lineCount = lineCount;
        this.size = size;
        this.parser = parser;
    }

    /** Indexes the lines of {@code file} and opens a parser on it. */
    static JsonDoc open(Path file) throws IOException {
        long[] starts = new long[1024];
        int count = 0;
        long size = 0;
        starts[count++] = 0;
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        if (count == starts.length) {
                            starts = Arrays.copyOf(starts, starts.length * 2);
                        }
                        starts[count++] = size + i + 1;
                    }
                }
                size += n;
            }
        }
        // A file ending with a newline has no line after it.
        int lines = count > 1 && starts[count - 1] == size ? count - 1 : count;
        JsonParser parser = FACTORY.createParser(Files.newInputStream(file));
        return new JsonDoc(starts, Math.max(lines, 1), size, parser);
    }

    JsonParser parser() {
        return parser;
    }

    /** Size of the file in bytes. */
    long size() {
        return size;
    }

    /** Number of lines of the file. */
    int lineCount() {
        return lineCount;
    }

    /** The 1-based line holding byte {@code offset}. */
    int lineOf(long offset) {
        int i = Arrays.binarySearch(lineStarts, 0, lineCount, offset);
        return i >= 0 ? i + 1 : -i - 1;
    }

    /** Offset of the first byte of {@code line}. */
    long lineStart(int line) {
        return lineStarts[line - 1];
    }

    /** Offset just past {@code line}, its newline included. */
    long lineEnd(int line) {
        return line < lineCount ? lineStarts[line] : size;
    }

    /**
     * The span of whole lines from the line of byte {@code from} to the line of byte {@code to},
     * the value's last byte. A value within one line has its own bytes, {@code from} to just past
     * {@code to}; one of several lines is its whole lines, as it is cited.
     */
    Span span(long from, long to) {
        long start = Math.max(0, from);
        int first = lineOf(start);
        int last = Math.max(first, lineOf(Math.max(0, to)));
        long end = lineEnd(last);
        if (first != last) {
            return new Span(first, last, lineStart(first), end);
        }
        return new Span(first, last, lineStart(first), end, Math.min(start, end), Math.min(end, Math.max(start, to) + 1));
    }

    /** {@code span} cut to its first {@code lines} lines. */
    Span firstLines(Span span, int lines) {
        if (span.lines() <= lines) {
            return span;
        }
        int last = span.firstLine() + lines - 1;
        return new Span(span.firstLine(), last, span.start(), lineEnd(last));
    }

    /** Byte offset of the current token's first byte. */
    long tokenStart() {
        return parser.currentTokenLocation().getByteOffset();
    }

    /** The line of the current token (for problems). */
    int tokenLine() {
        return lineOf(Math.max(0, tokenStart()));
    }

    /**
     * Reads the value at the current token (an object, an array or a scalar) with the spans of
     * everything in it; the parser is left on the value's last token.
     */
    Located readLocated() throws IOException {
        IdentityHashMap<JsonNode, Span> spans = new IdentityHashMap<>();
        IdentityHashMap<JsonNode, Map<String, Span>> fields = new IdentityHashMap<>();
        long start = tokenStart();
        long[] end = new long[1];
        JsonNode node = read(spans, fields, end);
        Span span = span(start, end[0]);
        if (node.isContainerNode()) {
            spans.put(node, span);
        }
        return new Located(node, span, spans, fields);
    }

    private JsonNode read(IdentityHashMap<JsonNode, Span> spans, IdentityHashMap<JsonNode, Map<String, Span>> fields,
                          long[] end) throws IOException {
        JsonToken token = parser.currentToken();
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        if (token == JsonToken.START_OBJECT) {
            long start = tokenStart();
            ObjectNode object = nodes.objectNode();
            Map<String, Span> own = new HashMap<>();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                long fieldStart = tokenStart();
                parser.nextToken();
                long valueStart = tokenStart();
                JsonNode value = read(spans, fields, end);
                if (value.isContainerNode()) {
                    spans.put(value, span(valueStart, end[0]));
                }
                own.put(name, span(fieldStart, end[0]));
                object.set(name, value);
            }
            end[0] = tokenStart();
            fields.put(object, own);
            spans.put(object, span(start, end[0]));
            return object;
        }
        if (token == JsonToken.START_ARRAY) {
            long start = tokenStart();
            ArrayNode array = nodes.arrayNode();
            while (parser.nextToken() != JsonToken.END_ARRAY) {
                if (parser.currentToken() == null) {
                    throw new java.io.EOFException("end of file inside an array");
                }
                long valueStart = tokenStart();
                JsonNode value = read(spans, fields, end);
                if (value.isContainerNode()) {
                    spans.put(value, span(valueStart, end[0]));
                }
                array.add(value);
            }
            end[0] = tokenStart();
            spans.put(array, span(start, end[0]));
            return array;
        }
        JsonNode value = switch (token) {
            case VALUE_STRING -> nodes.textNode(parser.getText());
            case VALUE_NUMBER_INT -> nodes.numberNode(parser.getLongValue());
            case VALUE_NUMBER_FLOAT -> nodes.numberNode(parser.getDoubleValue());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            default -> throw new IOException("unexpected " + token);
        };
        // The token is complete once its value was read: the location is just past it.
        end[0] = Math.max(tokenStart(), parser.currentLocation().getByteOffset() - 1);
        return value;
    }

    @Override
    public void close() throws IOException {
        parser.close();
    }
}
