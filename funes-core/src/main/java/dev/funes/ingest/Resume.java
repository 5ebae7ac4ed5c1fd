package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * Reading a growing log on from where the last read stopped: the point a read may start at,
 * the record that proves the file is still the one read before, and the text that carries both
 * between runs in {@link dev.funes.SourceState#resume()} (docs/STORE-FORMAT.md).
 *
 * <p>A reader {@linkplain JsonLinesReader#resumeHere marks} a point only where its whole state
 * can be rebuilt from a small context: before the request of an exchange, once every earlier
 * exchange has ended. The next read starts there, so it reads the exchange that was still open
 * again, with what was appended, and nothing before it.
 */
final class Resume {

    /** How far a read goes between two {@link Plan#progress} calls. */
    static final long PROGRESS_STEP = 256 << 10;

    /** Version of the text {@link Token#toText} writes. */
    static final int VERSION = 1;

    private static final ObjectMapper JSON = new ObjectMapper();

    private Resume() {
    }

    /**
     * A point a read may start at.
     *
     * @param offset  byte offset of the record to start at
     * @param line    its 1-based line number
     * @param context the reader's state just before that record
     */
    record Point(long offset, int line, ObjectNode context) {
        Point {
            if (offset < 0 || line < 1) {
                throw new IllegalArgumentException("bad resume point " + offset + "/" + line);
            }
            context = context == null ? JsonNodeFactory.instance.objectNode() : context;
        }
    }

    /**
     * A line that must be found again, unchanged, by a read that resumes: the last complete record
     * the earlier read took. Its newline is not part of it, so a last record that was complete
     * without one still matches once the writer ends it.
     *
     * @param start  offset of its first byte
     * @param length bytes of content, newline excluded
     * @param crc    CRC32C of that content
     */
    record Check(long start, long length, int crc) {
    }

    /** One parse: where it starts (in) and where the next one may (out). Not thread-safe. */
    static final class Plan {
        /** Where to start; null: at the beginning. */
        final Point from;
        /** With {@link #from}: the line that must still be there. */
        final Check check;
        /** Set by the reader once {@link #check} was found (or when there is none). */
        boolean verified;
        /** Out: the last point the next read may start at; null if none. */
        Point next;
        /** Out: the last complete record read. */
        Check last;
        /** Out: bytes read from the file. */
        long bytesRead;
        /** In: told the offset the read reached, about every {@link #PROGRESS_STEP} bytes. */
        LongConsumer progress = offset -> {
        };
        private long told;

        Plan(Point from, Check check) {
            this.from = from;
            this.check = from == null ? null : check;
            this.verified = this.check == null;
        }

        /** A plan that reads the whole file. */
        static Plan full() {
            return new Plan(null, null);
        }

        /** The read reached {@code offset}: tells {@link #progress} once it moved a step since it was last told. */
        void reached(long offset) {
            if (offset - told >= PROGRESS_STEP) {
                told = offset;
                progress.accept(offset);
            }
        }
    }

    /** The file at the resume point is not the one read before: it must be read from the beginning. */
    static final class Mismatch extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Mismatch(String message) {
            super(message, null, false, false);
        }
    }

    /**
     * What a checkpoint keeps to resume.
     *
     * @param point the point to start at
     * @param key   the file's identity (inode) when the platform gives one, else null
     * @param check the last complete record read
     * @param tail  ids of the memories stored from {@code point} on: the next read replaces them
     */
    record Token(Point point, String key, Check check, List<String> tail) {
        Token {
            Objects.requireNonNull(point, "point");
            Objects.requireNonNull(check, "check");
            tail = List.copyOf(tail);
        }

        String toText() {
            ObjectNode o = JSON.createObjectNode();
            o.put("v", VERSION);
            o.put("offset", point.offset());
            o.put("line", point.line());
            if (key != null) {
                o.put("key", key);
            }
            ObjectNode c = o.putObject("check");
            c.put("start", check.start());
            c.put("length", check.length());
            c.put("crc", Integer.toHexString(check.crc()));
            o.set("context", point.context());
            ArrayNode t = o.putArray("tail");
            tail.forEach(t::add);
            return o.toString();
        }

        /**
         * Reads a text {@link #toText} wrote.
         *
         * @throws IllegalArgumentException naming what is wrong: an unknown version, a missing field
         */
        static Token parse(String text) {
            JsonNode o;
            try {
                o = JSON.readTree(text);
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("resume point is not JSON: " + e.getOriginalMessage());
            }
            if (o == null || !o.isObject()) {
                throw new IllegalArgumentException("resume point is not a JSON object");
            }
            if (o.path("v").asInt(-1) != VERSION) {
                throw new IllegalArgumentException("resume point version " + o.path("v") + ", this Funes reads " + VERSION);
            }
            JsonNode c = o.get("check");
            JsonNode ctx = o.get("context");
            JsonNode t = o.get("tail");
            if (!o.path("offset").canConvertToLong() || !o.path("line").canConvertToInt() || c == null || !c.isObject()
                    || ctx == null || !ctx.isObject() || t == null || !t.isArray()) {
                throw new IllegalArgumentException("resume point lacks offset, line, check, context or tail");
            }
            List<String> tail = new ArrayList<>(t.size());
            t.forEach(id -> tail.add(id.asText()));
            int crc;
            try {
                crc = Integer.parseUnsignedInt(c.path("crc").asText(), 16);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("resume point check has a bad crc: " + c.path("crc"));
            }
            return new Token(new Point(o.get("offset").asLong(), o.get("line").asInt(), (ObjectNode) ctx),
                    o.path("key").isTextual() ? o.get("key").asText() : null,
                    new Check(c.path("start").asLong(), c.path("length").asLong(), crc), tail);
        }
    }
}
