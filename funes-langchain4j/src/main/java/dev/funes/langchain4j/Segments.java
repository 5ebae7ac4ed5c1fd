package dev.funes.langchain4j;

import dev.funes.Memory;
import dev.funes.adapter.FieldMetadata;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import static dev.funes.adapter.FieldMetadata.AGENT;
import static dev.funes.adapter.FieldMetadata.KIND;
import static dev.funes.adapter.FieldMetadata.PROJECT;
import static dev.funes.adapter.FieldMetadata.SESSION;
import static dev.funes.adapter.FieldMetadata.TIMESTAMP;

/**
 * Converts between LangChain4j's entries (an id, a vector, an optional {@link TextSegment} with
 * typed metadata) and Funes {@link Memory memories}; docs/LANGCHAIN4J.md describes the mapping.
 *
 * <p>An entry added through LangChain4j keeps its segment exactly: its typed metadata is stored in
 * the memory's metadata under {@value #TYPED_PREFIX}{@code <key>} as {@code <type>:<value>}, and
 * {@value #MARKER} tells it from a memory Funes read from a log. A few keys are also copied onto
 * the memory's own fields, so Funes filters (and the CLI, the MCP server) see them:
 * {@code project}, {@code agent}, {@code session}, {@code kind}, {@code timestamp}.
 */
final class Segments {

    /** Marks a memory stored through LangChain4j; its value is {@link #SEGMENT} or {@link #EMBEDDING}. */
    static final String MARKER = "langchain4j";
    static final String SEGMENT = "segment";
    static final String EMBEDDING = "embedding";
    static final String TYPED_PREFIX = "langchain4j:";
    /** The searchable text of an embedding stored without a segment (a memory's text is never blank). */
    static final String PLACEHOLDER = "(an embedding stored through LangChain4j, without text)";

    private Segments() {
    }

    /**
     * The memory for an entry.
     *
     * @param segment      {@code null} for an embedding without a segment
     * @param defaultAgent the agent when the metadata names none
     * @throws IllegalArgumentException if {@code timestamp} is a number of epoch milliseconds
     *                                  outside years 0 to 9999, or of a type other than Integer,
     *                                  Long or String
     */
    static Memory toMemory(String id, TextSegment segment, String defaultAgent) {
        Map<String, Object> meta = segment == null ? Map.of() : segment.metadata().toMap();
        String text = segment == null ? PLACEHOLDER : segment.text(); // a TextSegment's text is never blank
        Memory.Builder b = Memory.builder(FieldMetadata.kind(meta.get(KIND)), name(meta.get(AGENT), defaultAgent), text).id(id)
                .project(name(meta.get(PROJECT), null))
                .session(name(meta.get(SESSION), null))
                .metadata(MARKER, segment == null ? EMBEDDING : SEGMENT);
        Instant t = FieldMetadata.time(meta.get(TIMESTAMP), "entry " + id);
        if (t != null) {
            b.time(t, t);
        }
        for (Map.Entry<String, Object> e : meta.entrySet()) {
            b.metadata(TYPED_PREFIX + e.getKey(), encode(e.getValue()));
        }
        return b.build();
    }

    /** Whether the memory was stored through LangChain4j. */
    static boolean isEntry(Memory m) {
        return m.metadata().containsKey(MARKER);
    }

    /** Whether the memory has text to show: it is not an embedding stored without a segment. */
    static boolean hasText(Memory m) {
        return !EMBEDDING.equals(m.metadata().get(MARKER));
    }

    /**
     * The segment of a memory: for an entry stored through LangChain4j the segment as it was
     * given ({@code null} for an embedding stored without one); for any other memory its text
     * with metadata from its fields, its provenance and its own metadata.
     */
    static TextSegment toSegment(Memory m) {
        if (isEntry(m)) {
            if (EMBEDDING.equals(m.metadata().get(MARKER))) {
                return null;
            }
            Map<String, Object> meta = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : m.metadata().entrySet()) {
                if (e.getKey().startsWith(TYPED_PREFIX)) {
                    meta.put(e.getKey().substring(TYPED_PREFIX.length()), decode(e.getValue(), m.id()));
                }
            }
            return TextSegment.from(m.text(), new Metadata(meta));
        }
        return TextSegment.from(m.text(), new Metadata(FieldMetadata.of(m)));
    }

    /** The metadata of a segment as {@link #toSegment} returns it; what filters are evaluated on. */
    static Metadata metadata(Memory m) {
        TextSegment segment = toSegment(m);
        return segment == null ? new Metadata() : segment.metadata();
    }

    /** A project, agent or session name from metadata: Strings and UUIDs (as LangChain4j compares them). */
    static String name(Object value, String otherwise) {
        return value instanceof String || value instanceof UUID ? value.toString() : otherwise;
    }

    static String encode(Object value) {
        if (value instanceof String s) {
            return "string:" + s;
        } else if (value instanceof UUID u) {
            return "uuid:" + u;
        } else if (value instanceof Integer i) {
            return "int:" + i;
        } else if (value instanceof Long l) {
            return "long:" + l;
        } else if (value instanceof Float f) {
            return "float:" + f; // Float.toString reads back to the same float
        } else if (value instanceof Double d) {
            return "double:" + d;
        }
        throw new IllegalArgumentException("unsupported metadata value type " + value.getClass().getName());
    }

    static Object decode(String encoded, String id) {
        int colon = encoded.indexOf(':');
        String type = colon < 0 ? "" : encoded.substring(0, colon);
        String v = encoded.substring(colon + 1);
        try {
            return switch (type) {
                case "string" -> v;
                case "uuid" -> UUID.fromString(v);
                case "int" -> Integer.parseInt(v);
                case "long" -> Long.parseLong(v);
                case "float" -> Float.parseFloat(v);
                case "double" -> Double.parseDouble(v);
                default -> throw new IllegalArgumentException("unknown type '" + type + "'");
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("memory " + id + " has a damaged LangChain4j metadata value '" + encoded
                    + "': " + e.getMessage(), e);
        }
    }
}
