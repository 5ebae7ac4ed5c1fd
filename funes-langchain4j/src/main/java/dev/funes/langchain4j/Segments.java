package dev.funes.langchain4j;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

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

    static final String PROJECT = "project";
    static final String AGENT = "agent";
    static final String SESSION = "session";
    static final String KIND = "kind";
    /** Epoch milliseconds (Integer or Long) of the memory's time. */
    static final String TIMESTAMP = "timestamp";
    static final String STARTED_AT = "startedAt";
    static final String ENDED_AT = "endedAt";
    static final String SOURCE = "source";
    static final String LINE_START = "lineStart";
    static final String LINE_END = "lineEnd";
    static final String BYTE_START = "byteStart";
    static final String BYTE_END = "byteEnd";
    /** The keys a log memory's segment gets from its fields; its own metadata never overrides them. */
    static final Set<String> FIELD_KEYS = Set.of(PROJECT, AGENT, SESSION, KIND, TIMESTAMP, STARTED_AT, ENDED_AT,
            SOURCE, LINE_START, LINE_END, BYTE_START, BYTE_END);

    /** The range the store keeps in time order (fixed-width four-digit years). */
    static final long MIN_TIMESTAMP = Instant.parse("0000-01-01T00:00:00Z").toEpochMilli();
    static final long MAX_TIMESTAMP = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

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
        Memory.Builder b = Memory.builder(kind(meta.get(KIND)), name(meta.get(AGENT), defaultAgent), text).id(id)
                .project(name(meta.get(PROJECT), null))
                .session(name(meta.get(SESSION), null))
                .metadata(MARKER, segment == null ? EMBEDDING : SEGMENT);
        Instant t = time(meta.get(TIMESTAMP), id);
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
        return TextSegment.from(m.text(), new Metadata(fieldsOf(m)));
    }

    /** The metadata of a segment as {@link #toSegment} returns it; what filters are evaluated on. */
    static Metadata metadata(Memory m) {
        TextSegment segment = toSegment(m);
        return segment == null ? new Metadata() : segment.metadata();
    }

    private static Map<String, Object> fieldsOf(Memory m) {
        Map<String, Object> meta = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : m.metadata().entrySet()) {
            if (!FIELD_KEYS.contains(e.getKey())) {
                meta.put(e.getKey(), e.getValue());
            }
        }
        meta.put(KIND, m.kind().label());
        meta.put(AGENT, m.agent());
        putIfPresent(meta, PROJECT, m.project());
        putIfPresent(meta, SESSION, m.session());
        Instant t = m.endedAt() != null ? m.endedAt() : m.startedAt();
        if (t != null) {
            meta.put(TIMESTAMP, t.toEpochMilli());
        }
        putIfPresent(meta, STARTED_AT, m.startedAt() == null ? null : m.startedAt().toString());
        putIfPresent(meta, ENDED_AT, m.endedAt() == null ? null : m.endedAt().toString());
        Provenance p = m.provenance();
        if (p != null) {
            meta.put(SOURCE, p.source().toString());
            meta.put(LINE_START, p.lineStart());
            meta.put(LINE_END, p.lineEnd());
            meta.put(BYTE_START, p.byteStart());
            meta.put(BYTE_END, p.byteEnd());
        }
        return meta;
    }

    private static void putIfPresent(Map<String, Object> meta, String key, String value) {
        if (value != null) {
            meta.put(key, value);
        }
    }

    /** A project, agent or session name from metadata: Strings and UUIDs (as LangChain4j compares them). */
    static String name(Object value, String otherwise) {
        return value instanceof String || value instanceof UUID ? value.toString() : otherwise;
    }

    /** The kind a {@code kind} value names exactly (lower-case label); NOTE otherwise. */
    static MemoryKind kind(Object value) {
        MemoryKind kind = exactKind(value);
        return kind == null ? MemoryKind.NOTE : kind;
    }

    /** The kind whose label is exactly {@code value}, or {@code null}. */
    static MemoryKind exactKind(Object value) {
        if (value instanceof String s) {
            for (MemoryKind kind : MemoryKind.values()) {
                if (kind.label().equals(s)) {
                    return kind;
                }
            }
        }
        return null;
    }

    /**
     * The time a {@code timestamp} value names: epoch milliseconds as an Integer or Long, or a
     * String holding an ISO-8601 instant ({@code 2026-12-04T10:15:30Z}), a date-time with an offset,
     * a date (midnight UTC) or epoch milliseconds in digits. Another String is kept as metadata
     * only ({@code null}: the entry has no time), as LangChain4j itself would.
     */
    static Instant time(Object value, String id) {
        if (value == null) {
            return null;
        }
        if (value instanceof String text) {
            return parseTime(text.strip(), id);
        }
        if (!(value instanceof Integer || value instanceof Long)) {
            throw new IllegalArgumentException("entry " + id + ": metadata '" + TIMESTAMP + "' must be epoch milliseconds"
                    + " as an Integer or Long, or an ISO-8601 String (Funes filters on it by time), not "
                    + value.getClass().getSimpleName() + " " + value);
        }
        return epochMillis(((Number) value).longValue(), id);
    }

    private static Instant parseTime(String text, String id) {
        if (text.matches("-?\\d{1,19}")) {
            try {
                return epochMillis(Long.parseLong(text), id);
            } catch (NumberFormatException tooLong) {
                return null;
            }
        }
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException notInstant) {
            // try the next form
        }
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException notOffset) {
            // try the next form
        }
        try {
            return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
        } catch (DateTimeParseException notDate) {
            return null;
        }
    }

    private static Instant epochMillis(long ms, String id) {
        if (ms < MIN_TIMESTAMP || ms > MAX_TIMESTAMP) {
            throw new IllegalArgumentException("entry " + id + ": metadata '" + TIMESTAMP + "' " + ms
                    + " is outside years 0 to 9999");
        }
        return Instant.ofEpochMilli(ms);
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
