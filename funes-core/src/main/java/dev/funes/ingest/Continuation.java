package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a read from the beginning leaves in a checkpoint ({@link dev.funes.SourceState#resume()})
 * when it leaves no {@link Resume.Token}, so that the next such read can tell a log that grew
 * from a new generation of it: a whole document rewritten by its agent (Gemini, Cline, ...), or
 * a log whose only exchange was still open.
 *
 * <p>The last exchange of the read (the one starting last; all its parts, when it was cut in
 * parts) may still be being written: its memories (and those derived from it) are the {@link #tail}, which the
 * next read may replace. It may only if it continues this one: it gives again exactly the
 * memories this read gave before the tail's first byte ({@link #before}, a digest of their ids),
 * and an exchange starts at that byte with the same session, start time and line ({@link #anchor}).
 * Otherwise the file is another one, and the tail stays with the rest. A read that gave no
 * exchange leaves all its memories as the tail, from byte 0 ({@link #of}). docs/STORE-FORMAT.md
 * describes the text.
 *
 * @param bound  the first byte of the last exchange (0 when there is none)
 * @param before digest of the sorted ids of the memories starting before {@code bound}
 * @param anchor digest of the last exchange's session, start time and first line ({@code "none"}
 *               when there is none)
 * @param tail   ids of the memories starting at or after {@code bound}
 */
record Continuation(long bound, String before, String anchor, List<String> tail) {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The {@link #anchor} of a read that gave no exchange: no digest has this form. */
    private static final String NO_EXCHANGE = "none";
    /** How {@link #toText} begins (a token's text has {@code offset} where this has {@code bound}). */
    private static final java.util.regex.Pattern ONE = java.util.regex.Pattern.compile("\\{\"v\":\\d+,\"bound\":");

    Continuation {
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(anchor, "anchor");
        tail = List.copyOf(tail);
    }

    /**
     * The continuation of a read whose memories start where {@code starts} says (by id) and whose
     * last exchange is {@code last}; null when the read gave nothing. A read that gave memories
     * but no exchange (a Claude Code log holding only the summary it opens with, which names no
     * session or folder until a message follows) leaves them all as the tail, from byte 0, with
     * no anchor: the next read from the start of the same grown log gives them again as the
     * records after them tell, and replaces them ({@link #continuedBy}).
     */
    static Continuation of(Map<String, Long> starts, Memory last) {
        if (last == null || last.provenance() == null) {
            if (starts.isEmpty()) {
                return null;
            }
            List<String> all = new ArrayList<>(starts.keySet());
            all.sort(null);
            return new Continuation(0, before(starts, 0), NO_EXCHANGE, all);
        }
        long bound = last.provenance().byteStart();
        List<String> tail = new ArrayList<>();
        starts.forEach((id, start) -> {
            if (start >= bound) {
                tail.add(id);
            }
        });
        tail.sort(null);
        return new Continuation(bound, before(starts, bound), anchor(last), tail);
    }

    /**
     * Whether a read whose memories start where {@code starts} says, and that gave {@code anchored},
     * continues the read this describes. That of a read that gave no exchange is continued by any
     * read from the start of the same log: {@link Checkpoints#fromStart} hands it on only for an
     * append-only log whose first bytes are those read before.
     */
    boolean continuedBy(Map<String, Long> starts, boolean anchored) {
        return hasNoExchange() || anchored && before.equals(before(starts, bound));
    }

    /** Whether the read this describes gave no exchange: its every memory is the tail. */
    boolean hasNoExchange() {
        return NO_EXCHANGE.equals(anchor);
    }

    /** Whether {@code exchange}, starting at {@link #bound}, is the exchange the tail began with. */
    boolean anchors(Memory exchange) {
        return exchange.provenance() != null && exchange.provenance().byteStart() == bound
                && anchor.equals(anchor(exchange));
    }

    /** Digest of the sorted ids starting before {@code bound}. */
    static String before(Map<String, Long> starts, long bound) {
        List<String> ids = new ArrayList<>();
        starts.forEach((id, start) -> {
            if (start < bound) {
                ids.add(id);
            }
        });
        ids.sort(null);
        return digest(String.join(",", ids));
    }

    private static String anchor(Memory exchange) {
        // Hashed: the checkpoint keeps no text of the log.
        return digest(exchange.session() + "\u0000" + exchange.startedAt() + "\u0000" + exchange.provenance().lineStart());
    }

    private static String digest(String s) {
        return Sha256.hex(s, 32);
    }

    String toText() {
        ObjectNode o = JSON.createObjectNode();
        o.put("v", Resume.VERSION);
        o.put("bound", bound);
        o.put("before", before);
        o.put("anchor", anchor);
        ArrayNode t = o.putArray("tail");
        tail.forEach(t::add);
        return o.toString();
    }

    /** Whether {@code text} is one {@link #toText} wrote (rather than a {@link Resume.Token}'s). */
    static boolean isOne(String text) {
        return ONE.matcher(text).lookingAt();
    }

    /** Reads a text {@link #toText} wrote; null when it is not one, or not in a version this code reads. */
    static Continuation parse(String text) {
        if (text == null || !isOne(text)) {
            return null;
        }
        try {
            JsonNode o = JSON.readTree(text);
            JsonNode t = o.get("tail");
            if (o.path("v").asInt(-1) != Resume.VERSION || !o.path("bound").canConvertToLong()
                    || !o.path("before").isTextual() || !o.path("anchor").isTextual() || t == null || !t.isArray()) {
                return null;
            }
            List<String> tail = new ArrayList<>(t.size());
            t.forEach(id -> tail.add(id.asText()));
            return new Continuation(o.get("bound").asLong(), o.get("before").asText(), o.get("anchor").asText(), tail);
        } catch (JsonProcessingException e) {
            return null;
        }
    }
}
