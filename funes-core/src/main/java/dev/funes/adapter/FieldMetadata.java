package dev.funes.adapter;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * How a memory's fields appear as the key/value metadata of an AI framework's documents, and how
 * such metadata names a memory's kind and time. The LangChain4j and Spring AI adapters share these
 * conventions, so a filter on {@code project}, {@code kind} or {@code timestamp} means the same in
 * both and in Funes' own {@link dev.funes.SearchRequest} filters.
 */
public final class FieldMetadata {

    public static final String PROJECT = "project";
    public static final String AGENT = "agent";
    public static final String SESSION = "session";
    public static final String KIND = "kind";
    /** The memory's time: epoch milliseconds (a Long) when read from a memory. */
    public static final String TIMESTAMP = "timestamp";
    public static final String STARTED_AT = "startedAt";
    public static final String ENDED_AT = "endedAt";
    public static final String SOURCE = "source";
    public static final String LINE_START = "lineStart";
    public static final String LINE_END = "lineEnd";
    public static final String BYTE_START = "byteStart";
    public static final String BYTE_END = "byteEnd";
    /** The keys {@link #of} fills from a memory's fields; the memory's own metadata never overrides them. */
    public static final Set<String> FIELD_KEYS = Set.of(PROJECT, AGENT, SESSION, KIND, TIMESTAMP, STARTED_AT,
            ENDED_AT, SOURCE, LINE_START, LINE_END, BYTE_START, BYTE_END);

    /** The earliest time the store keeps in order (fixed-width four-digit years), epoch milliseconds. */
    public static final long MIN_TIMESTAMP = Instant.parse("0000-01-01T00:00:00Z").toEpochMilli();
    /** The latest time the store keeps in order, epoch milliseconds. */
    public static final long MAX_TIMESTAMP = Instant.parse("9999-12-31T23:59:59.999Z").toEpochMilli();

    private FieldMetadata() {
    }

    /**
     * The metadata of a memory Funes read from a log: its own metadata, then its kind (label),
     * agent, project, session, {@code timestamp} (its end, else its start, in epoch milliseconds),
     * start and end (ISO-8601) and provenance (source, lines, bytes). Absent fields have no key.
     */
    public static Map<String, Object> of(Memory m) {
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

    /** The kind a {@code kind} value names exactly (its lower-case label); {@link MemoryKind#NOTE} otherwise. */
    public static MemoryKind kind(Object value) {
        MemoryKind kind = exactKind(value);
        return kind == null ? MemoryKind.NOTE : kind;
    }

    /** The kind whose label is exactly {@code value}, or {@code null}. */
    public static MemoryKind exactKind(Object value) {
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
     * String holding an ISO-8601 instant ({@code 2026-12-04T10:15:30Z}), a date-time with an
     * offset, a date (midnight UTC) or epoch milliseconds in digits. Any other String names no time
     * ({@code null}): it stays metadata only, as the frameworks themselves would keep it.
     *
     * @param owner what the value belongs to, for the error message ({@code "document 42"})
     * @throws IllegalArgumentException if the value is of another type, or epoch milliseconds
     *                                  outside years 0 to 9999
     */
    public static Instant time(Object value, String owner) {
        if (value == null) {
            return null;
        }
        if (value instanceof String text) {
            return parseTime(text.strip(), owner);
        }
        if (!(value instanceof Integer || value instanceof Long)) {
            throw new IllegalArgumentException(owner + ": metadata '" + TIMESTAMP + "' must be epoch milliseconds"
                    + " as an Integer or Long, or an ISO-8601 String (Funes filters on it by time), not "
                    + value.getClass().getSimpleName() + " " + value);
        }
        return epochMillis(((Number) value).longValue(), owner);
    }

    private static Instant parseTime(String text, String owner) {
        if (text.matches("-?\\d{1,19}")) {
            try {
                return epochMillis(Long.parseLong(text), owner);
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

    private static Instant epochMillis(long ms, String owner) {
        if (ms < MIN_TIMESTAMP || ms > MAX_TIMESTAMP) {
            throw new IllegalArgumentException(owner + ": metadata '" + TIMESTAMP + "' " + ms
                    + " is outside years 0 to 9999");
        }
        return Instant.ofEpochMilli(ms);
    }
}
