package dev.funes.springai;

import dev.funes.Memory;
import dev.funes.adapter.FieldMetadata;
import org.springframework.ai.document.Document;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

import static dev.funes.adapter.FieldMetadata.AGENT;
import static dev.funes.adapter.FieldMetadata.KIND;
import static dev.funes.adapter.FieldMetadata.PROJECT;
import static dev.funes.adapter.FieldMetadata.SESSION;
import static dev.funes.adapter.FieldMetadata.TIMESTAMP;

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
        Memory.Builder b = Memory.builder(FieldMetadata.kind(meta.get(KIND)), name(meta.get(AGENT), defaultAgent), text).id(id)
                .project(name(meta.get(PROJECT), null))
                .session(name(meta.get(SESSION), null))
                .metadata(MARKER, DOCUMENT);
        Instant t = FieldMetadata.time(meta.get(TIMESTAMP), "document " + id);
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
        return FieldMetadata.of(m);
    }

    /**
     * The document of a memory: its id, the given text (a passage of the memory, or its whole
     * text), its metadata and a score.
     */
    static Document toDocument(Memory m, String text, Map<String, Object> metadata, double score) {
        return Document.builder().id(m.id()).text(text).metadata(metadata).score(score).build();
    }

    /** A project, agent or session name from metadata: a String, else {@code otherwise}. */
    static String name(Object value, String otherwise) {
        return value instanceof String s && !s.isBlank() ? s : otherwise;
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
