package dev.funes.ingest;

import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Lenient reading of JSON fields: a field of the wrong type reads as absent, never throws. */
final class Json {

    /** Deepest nesting of one JSON Lines record; deeper records are refused, not recursed into. */
    static final int MAX_NESTING = 1000;

    private static final Pattern LIMIT = Pattern.compile("maximum allowed \\((\\d+)");

    private Json() {
    }

    /**
     * The JSON object {@code text} encodes (a tool call's arguments, sent as a string), or null when
     * it is not one.
     */
    static JsonNode object(String text) {
        String s = text == null ? "" : text.strip();
        if (s.startsWith("{")) {
            try {
                JsonNode parsed = JsonLinesReader.JSON.readTree(s);
                if (parsed != null && parsed.isObject()) {
                    return parsed;
                }
            } catch (Exception e) {
                // not JSON after all
            }
        }
        return null;
    }

    /**
     * What a reading limit of Jackson's refused, for a person, with the limit:
     * {@code JSON nested more than 1000 levels deep}, {@code a value is too large to read (a string
     * of more than 20000000 characters)}.
     */
    static String limitExceeded(StreamConstraintsException e) {
        String m = String.valueOf(e.getOriginalMessage());
        Matcher limit = LIMIT.matcher(m);
        String n = limit.find() ? limit.group(1) : "?";
        if (m.contains("nesting depth")) {
            return "JSON nested more than " + n + " levels deep";
        }
        if (m.startsWith("String value length")) {
            return "a value is too large to read (a string of more than " + n + " characters)";
        }
        if (m.startsWith("Number value length")) {
            return "a number is too long to read (more than " + n + " digits)";
        }
        if (m.startsWith("Name length")) {
            return "a field name is too long to read (more than " + n + " characters)";
        }
        return "the JSON exceeds a reading limit (" + Text.oneLine(m, 160) + ")";
    }

    /** The field's text, or null when it is missing or not a string. */
    static String text(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isTextual() ? v.asText() : null;
    }

    /** The field's text, or null when missing, not a string or blank. */
    static String nonBlank(JsonNode node, String field) {
        String s = text(node, field);
        return s == null || s.isBlank() ? null : s;
    }

    /** True only for a JSON {@code true}. */
    static boolean bool(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isBoolean() && v.booleanValue();
    }

    /** The field if it is an array, else null. */
    static JsonNode array(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isArray() ? v : null;
    }

    /** The field if it is an object, else null. */
    static JsonNode object(JsonNode node, String field) {
        JsonNode v = node == null ? null : node.get(field);
        return v != null && v.isObject() ? v : null;
    }

    /**
     * An instant from ISO-8601 text ({@code 2025-10-14T09:00:00Z}, with an offset, or without
     * a zone, read as UTC as Python's {@code isoformat()} writes it) or from epoch milliseconds or seconds;
     * null when it is neither.
     */
    static Instant instant(JsonNode v) {
        if (v == null) {
            return null;
        }
        if (v.isNumber()) {
            long n = v.asLong();
            // Plausible epoch milliseconds, or seconds, only: 2001-09-09 .. 2286-11-20.
            if (n >= 1_000_000_000_000L && n < 10_000_000_000_000L) {
                return Instant.ofEpochMilli(n);
            }
            return n >= 1_000_000_000L && n < 10_000_000_000L ? Instant.ofEpochMilli(Math.round(v.asDouble() * 1000)) : null;
        }
        return v.isTextual() ? instant(v.asText()) : null;
    }

    /** See {@link #instant(JsonNode)}; for text. */
    static Instant instant(String s) {
        if (s == null || s.length() < 10) {
            return null;
        }
        try {
            return Instant.parse(s);
        } catch (DateTimeParseException e) {
            // fall through
        }
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeParseException e) {
            // fall through
        }
        try {
            return Instant.parse(s + "Z");
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /** "an array", "a number"...: the JSON type of a node, for messages. */
    static String kind(JsonNode node) {
        if (node == null) {
            return "missing";
        }
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case STRING -> "a string";
            default -> node.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

    /**
     * The text as a JSON writer (JavaScript's {@code JSON.stringify}, serde, Jackson) puts it inside
     * a string: quotes, backslashes and control characters escaped, everything else as it is.
     */
    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.toString();
    }
}
