package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.Provenance;
import dev.funes.SearchHit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Narrows the range of a record's passages to the bytes that hold each one: where one log line
 * holds a long record (a JSON Lines line of a whole tool output, say), and where a record spans
 * several lines (a message of a pretty-printed JSON log, whose tool output is one string on one
 * of them; a file an Aider reply wrote), whose passages then also cite only the lines that hold
 * them. The passage's first and last words are looked for in the record, in order: written as
 * JSON strings in a record of JSON (or else as they are), as they are in one of Markdown. A
 * passage whose ends are not found as they are (redacted, or its text was tidied) keeps the
 * record's range, which still holds it.
 */
final class PassageBytes {

    /** One-line records shorter than this are cited whole: narrowing would save a reader little. */
    static final int MIN_RECORD_BYTES = 2048;
    /** Longest record read again to narrow its passages (the indexer's own record cap). */
    static final int MAX_RECORD_BYTES = 4 << 20;
    /** Characters of each end of a passage that are looked for. */
    private static final int END_CHARS = 32;
    /** Places where a passage's first words begin that are tried, in order. */
    private static final int MAX_STARTS = 16;
    /** How far past the first place its first words begin a later place is looked for. */
    private static final int MAX_SHIFT = 64 << 10;

    private PassageBytes() {
    }

    /**
     * The passages with narrowed byte (and, in a record of several lines, line) ranges, in the
     * same order; the same list when the record is one short line or cannot be read.
     */
    static List<Memory> narrow(List<Memory> passages) {
        if (passages.isEmpty()) {
            return passages;
        }
        Provenance record = passages.get(0).provenance();
        long length = record == null ? 0 : record.byteEnd() - record.byteStart();
        boolean oneLine = record != null && record.lineStart() == record.lineEnd();
        if (record == null || oneLine && length < MIN_RECORD_BYTES || length <= 0 || length > MAX_RECORD_BYTES) {
            return passages;
        }
        String raw;
        try (RandomAccessFile f = new RandomAccessFile(record.source().toFile(), "r")) {
            byte[] bytes = new byte[(int) length];
            f.seek(record.byteStart());
            f.readFully(bytes);
            raw = new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return passages; // the file changed or went away since it was read: cite the record
        }
        List<Memory> out = new ArrayList<>(passages.size());
        int from = 0;          // where the previous passage ended in raw: passages follow each other
        long bytesBefore = 0;  // UTF-8 bytes of raw[0, from)
        int linesBefore = 0;   // line ends in raw[0, from)
        // A record of JSON holds a passage as a JSON string (or, failing that, as written); one of
        // Markdown (Aider's) as written, where a JSON string's length would mislead.
        int lead = 0;
        while (lead < raw.length() && Character.isWhitespace(raw.charAt(lead))) {
            lead++;
        }
        boolean json = lead < raw.length() && "{[\"".indexOf(raw.charAt(lead)) >= 0;
        for (Memory p : passages) {
            String body = SearchHit.body(p);
            int[] found = json ? find(raw, body, from, true, true) : null;
            if (found == null) {
                found = find(raw, body, from, false, oneLine || !json);
            }
            if (found == null) {
                out.add(p);
                continue;
            }
            int start = found[0];
            int end = found[1];
            long startByte = bytesBefore + utf8(raw, from, start);
            long endByte = startByte + utf8(raw, start, end);
            int firstLine = linesBefore + lineEnds(raw, from, start);
            int lastLine = firstLine + lineEnds(raw, start, end);
            bytesBefore = endByte;
            linesBefore = lastLine;
            from = end;
            Provenance narrowed = new Provenance(record.source(), record.lineStart() + firstLine,
                    Math.min(record.lineEnd(), record.lineStart() + lastLine),
                    record.byteStart() + startByte, record.byteStart() + endByte, record.recordIds());
            out.add(new Memory(p.id(), p.kind(), p.text(), p.startedAt(), p.endedAt(), p.agent(), p.project(),
                    p.session(), narrowed, p.metadata()));
        }
        return out;
    }

    /**
     * Where {@code raw} holds the passage {@code body} from {@code from} on: {@code [start, end)},
     * or null when its first or last words are not there, escaped as a JSON string or as written.
     * With {@code check}, the place its first words begin is checked by its longest line: the
     * record's other fields may say them first (in a JSON Lines record, the working folder that
     * begins a written file's path), a Markdown log may quote them before (an edit's search block
     * before its replacement).
     */
    private static int[] find(String raw, String body, int from, boolean json, boolean check) {
        String head = head(body);
        String tail = tail(body);
        if (json) {
            head = Json.escape(head);
            tail = Json.escape(tail);
        }
        // The record holds the passage at least as long as written (tidying and cuts only drop
        // characters), so from a place its first words begin, its last words lie no earlier than
        // its length on: an earlier repeat of them inside the passage is not its end.
        int length = json ? Json.escape(body).length() : body.length();
        // A line of its own, and where it lies in the passage as the record would hold it.
        int line = probe(body);
        String probe = line < 0 ? null : body.substring(line, Math.min(body.length(), line + END_CHARS)).lines()
                .findFirst().orElse("");
        int probeOffset = line < 0 ? 0 : json ? Json.escape(body.substring(0, line)).length() : line;
        if (json && probe != null) {
            probe = Json.escape(probe);
        }
        int[] first = null;
        int start = raw.indexOf(head, from);
        for (int tries = 0; start >= 0 && tries < MAX_STARTS; tries++) {
            int end = raw.indexOf(tail, Math.max(start, start + length - tail.length()));
            if (end < 0) {
                break; // nor from any later start
            }
            int[] found = {start, end + tail.length()};
            if (probe == null || !check) {
                return found;
            }
            // Its first words may be said earlier in the record (a written file's path, which a
            // passage of its content begins with, in the working folder before it). From where
            // the passage begins, its longest line lies as far on as in the passage, or a little
            // more (a JSON field's name between a path and the content): from an earlier mention
            // it lies further, and the next place its first words begin is tried.
            int at = indexOf(raw, probe, start + probeOffset, found[1]);
            if (at >= 0 && at - start - probeOffset <= Math.max(END_CHARS, probeOffset / 10)) {
                return found;
            }
            if (first == null) {
                first = found; // none holds it so (the passage was tidied): the first place, as before
            }
            // A record's other fields lie close before its value: later places are looked for
            // near the first, so a tidied passage of a long output costs no scan of the rest.
            start = indexOf(raw, head, start + 1, first[0] + MAX_SHIFT);
        }
        return first;
    }

    /** Where {@code s} holds {@code part} beginning in {@code [from, to - part.length()]}, or -1. */
    private static int indexOf(String s, String part, int from, int to) {
        int last = Math.min(to, s.length()) - part.length();
        for (int i = Math.max(0, from); i <= last; i++) {
            if (s.startsWith(part, i)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Where the passage's longest line after its first begins, past its indentation: the line
     * least likely to be said elsewhere in the record. -1 when there is none of 8 characters.
     */
    private static int probe(String body) {
        int best = -1;
        int bestLength = 7;
        int from = body.indexOf('\n') + 1;
        while (from > 0 && from < body.length()) {
            int to = body.indexOf('\n', from);
            to = to < 0 ? body.length() : to;
            int start = from;
            while (start < to && Character.isWhitespace(body.charAt(start))) {
                start++;
            }
            if (to - start > bestLength) {
                best = start;
                bestLength = to - start;
            }
            from = to + 1;
        }
        return best;
    }

    private static String head(String body) {
        String first = body.lines().findFirst().orElse("").strip();
        return first.substring(0, Math.min(END_CHARS, first.length()));
    }

    private static String tail(String body) {
        String last = body.strip();
        last = last.substring(last.lastIndexOf('\n') + 1).strip();
        return last.substring(Math.max(0, last.length() - END_CHARS));
    }

    /** Line ends in {@code s[from, to)}. */
    private static int lineEnds(String s, int from, int to) {
        int n = 0;
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == '\n') {
                n++;
            }
        }
        return n;
    }

    /** UTF-8 bytes of {@code s[from, to)}. */
    private static long utf8(String s, int from, int to) {
        long n = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }
}
