package dev.funes.springai;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;
import org.springframework.ai.document.Document;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Converts between Spring AI {@link Document documents} (an id, a text, metadata of simple types)
 * and Funes {@link Memory memories}; docs/SPRING-AI.md describes the mapping.
 *
 * <p>A document added through Spring AI keeps its metadata exactly: each value is stored in the
 * memory's metadata under {@value #TYPED_PREFIX}{@code <key>} as {@code <type>:<value>}, and
 * {@value #MARKER} tells it from a memory Funes read from a log. A few keys are also copied onto
 * the memory's own fields, so Funes filters (and the CLI, the MCP server) see them:
 * {@code project}, {@code agent}, {@code session}, {@code kind}, {@code timestamp}.
 */
final class Documents {

    /** Marks a memory stored through Spring AI; its value is {@link #DOCUMENT}. */
    static final String MARKER = "spring-ai";
    static final String DOCUMENT = "document";
    static final String TYPED_PREFIX = "spring-ai:";
    /** Spring AI's metadata key for {@code 1 - score} on search results (its {@code DocumentMetadata.DISTANCE}). */
    static final String DISTANCE = "distance";

    static final String PROJECT = "project";
    static final String AGENT = "agent";
    static final String SESSION = "session";
    static final String KIND = "kind";
    /** Epoch milliseconds (Integer or Long) or an ISO-8601 String: the memory's time. */
    static final String TIMESTAMP = "timestamp";
    static final String STARTED_AT = "startedAt";
    static final String ENDED_AT = "endedAt";
    static final String SOURCE = "source";
    static final String LINE_START = "lineStart";
    static final String LINE_END = "lineEnd";
    static final String BYTE_START = "byteStart";
    static final String BYTE_END = "byteEnd";
    /** The keys a log memory's document gets from its fields; its own metadata never overrides them. */
    static final Set<String> FIELD_KEYS = Set.of(PROJECT, AGENT, SESSION, KIND, TIMESTAMP, STARTED_AT, ENDED_AT,
            SOURCE, LINE_START, LINE_END, BYTE_START, BYTE_END);

    /** The range the store keeps in time order (fixed-width four-digit years). */
    static final long MIN_TIMESTAMP = Instant.parse("0000-01-01T00:00:00Z").toEpochMilli();
    static final long MAX_TIMESTAMP = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    private Documents() {
    }

    /**
     * The memory for a document.
     *
     * @param defaultAgent the agent when the metadata names none
     * @throws IllegalArgumentException if the document has no text (a media document), its id is
     *                                  blank, a metadata value has a type Funes does not store, or
     *                                  {@code timestamp} is not a time Funes can keep
     */
    static Memory toMemory(Document document, String defaultAgent) {
        String id = document.getId();
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("a document's id cannot be null or blank");
        }
        String text = document.getText();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("document " + id + " has no text: Funes stores text documents only"
                    + (document.getMedia() != null ? ", not media" : ""));
        }
        Map<String, Object> meta = document.getMetadata();
        Memory.Builder b = Memory.builder(kind(meta.get(KIND)), name(meta.get(AGENT), defaultAgent), text).id(id)
                .project(name(meta.get(PROJECT), null))
                .session(name(meta.get(SESSION), null))
                .metadata(MARKER, DOCUMENT);
        Instant t = time(meta.get(TIMESTAMP), id);
        if (t != null) {
            b.time(t, t);
        }
        for (Map.Entry<String, Object> e : meta.entrySet()) {
            b.metadata(TYPED_PREFIX + e.getKey(), encode(id, e.getKey(), e.getValue()));
        }
        return b.build();
    }

    /** Whether the memory was stored through Spring AI. */
    static boolean isDocument(Memory m) {
        return m.metadata().containsKey(MARKER);
    }

    /**
     * The metadata of a memory as a document has it: for one stored through Spring AI the metadata
     * as it was given; for any other memory metadata from its fields, its provenance and its own
     * metadata. What filter expressions are evaluated on.
     */
    static Map<String, Object> metadata(Memory m) {
        if (isDocument(m)) {
            Map<String, Object> meta = new LinkedHashMap<>();
            for (Map.Entry<String, String> e : m.metadata().entrySet()) {
                if (e.getKey().startsWith(TYPED_PREFIX)) {
                    meta.put(e.getKey().substring(TYPED_PREFIX.length()), decode(e.getValue(), m.id()));
                }
            }
            return meta;
        }
        return fieldsOf(m);
    }

    /**
     * The document of a memory: its id, the given text (a passage of the memory, or its whole
     * text), its metadata and a score.
     */
    static Document toDocument(Memory m, String text, Map<String, Object> metadata, double score) {
        return Document.builder().id(m.id()).text(text).metadata(metadata).score(score).build();
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

    /** A project, agent or session name from metadata: a String, else {@code otherwise}. */
    static String name(Object value, String otherwise) {
        return value instanceof String s && !s.isBlank() ? s : otherwise;
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
     * String holding an ISO-8601 instant, a date-time with an offset, a date (midnight UTC) or
     * epoch milliseconds in digits. Another String is kept as metadata only ({@code null}).
     */
    static Instant time(Object value, String id) {
        if (value == null) {
            return null;
        }
        if (value instanceof String text) {
            return parseTime(text.strip(), id);
        }
        if (!(value instanceof Integer || value instanceof Long)) {
            throw new IllegalArgumentException("document " + id + ": metadata '" + TIMESTAMP + "' must be epoch"
                    + " milliseconds as an Integer or Long, or an ISO-8601 String (Funes filters on it by time), not "
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
            throw new IllegalArgumentException("document " + id + ": metadata '" + TIMESTAMP + "' " + ms
                    + " is outside years 0 to 9999");
        }
        return Instant.ofEpochMilli(ms);
    }

    static String encode(String id, String key, Object value) {
        if (value instanceof String s) {
            return "string:" + s;
        } else if (value instanceof Boolean bool) {
            return "boolean:" + bool;
        } else if (value instanceof Integer i) {
            return "int:" + i;
        } else if (value instanceof Long l) {
            return "long:" + l;
        } else if (value instanceof Float f) {
            return "float:" + f; // Float.toString reads back to the same float
        } else if (value instanceof Double d) {
            return "double:" + d;
        }
        throw new IllegalArgumentException("document " + id + ": metadata '" + key + "' is a "
                + (value == null ? "null" : value.getClass().getName())
                + "; Funes stores String, Boolean, Integer, Long, Float and Double values");
    }

    static Object decode(String encoded, String id) {
        int colon = encoded.indexOf(':');
        String type = colon < 0 ? "" : encoded.substring(0, colon);
        String v = encoded.substring(colon + 1);
        try {
            return switch (type) {
                case "string" -> v;
                case "boolean" -> switch (v) {
                    case "true" -> Boolean.TRUE;
                    case "false" -> Boolean.FALSE;
                    default -> throw new IllegalArgumentException("not a boolean");
                };
                case "int" -> Integer.parseInt(v);
                case "long" -> Long.parseLong(v);
                case "float" -> Float.parseFloat(v);
                case "double" -> Double.parseDouble(v);
                default -> throw new IllegalArgumentException("unknown type '" + type + "'");
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("memory " + id + " has a damaged Spring AI metadata value '" + encoded
                    + "': " + e.getMessage(), e);
        }
    }
}
