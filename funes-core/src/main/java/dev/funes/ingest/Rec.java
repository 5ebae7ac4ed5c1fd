package dev.funes.ingest;

import java.time.Instant;
import java.util.Map;

/**
 * One log record (or one part of a record, such as one tool call of a JSON message) as the
 * chunker sees it: the lines it spans and the session fields that travel with it.
 *
 * @param line      first line, 1-based
 * @param lastLine  last line, inclusive; equal to {@code line} for a JSON Lines record
 * @param start     offset of the first byte of {@code line}
 * @param end       offset just past {@code lastLine}, newline included
 * @param id        the record's id in the log (a Claude Code {@code uuid}, a Gemini message id),
 *                  or null
 * @param time      the record's time, or null
 * @param session   the session the record belongs to, as Funes names it
 * @param cwd       working directory, or null
 * @param sidechain whether the record belongs to a sub-agent conversation
 * @param meta      metadata the exchange that starts with this record carries (git branch, agent
 *                  version, ...); values are never blank
 * @param valueStart offset of the first byte of the value the record was read from, at or after
 *                  {@code start}: a JSON value that begins inside a line (a message of a JSON
 *                  array written as one line), else {@code start}
 * @param valueEnd  offset just past that value, at most {@code end}
 */
record Rec(int line, int lastLine, long start, long end, String id, Instant time, String session, String cwd,
           boolean sidechain, Map<String, String> meta, long valueStart, long valueEnd) {

    Rec {
        meta = meta == null ? Map.of() : meta;
        if (valueStart < start || valueEnd > end || valueEnd < valueStart) {
            valueStart = start;
            valueEnd = end;
        }
    }

    /** A record that is its whole lines (a JSON Lines record, a Markdown block). */
    Rec(int line, int lastLine, long start, long end, String id, Instant time, String session, String cwd,
        boolean sidechain, Map<String, String> meta) {
        this(line, lastLine, start, end, id, time, session, cwd, sidechain, meta, start, end);
    }

    /** A record read from {@code span}: its whole lines, and the bytes of its value. */
    static Rec of(JsonDoc.Span span, String id, Instant time, String session, String cwd, boolean sidechain,
                  Map<String, String> meta) {
        return new Rec(span.firstLine(), span.lastLine(), span.start(), span.end(), id, time, session, cwd, sidechain,
                meta, span.valueStart(), span.valueEnd());
    }
}
