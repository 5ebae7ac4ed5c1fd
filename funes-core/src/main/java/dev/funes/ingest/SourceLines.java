package dev.funes.ingest;

import dev.funes.Provenance;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The lines of a memory's cited range, read back from its log, to find which line holds a given
 * piece of its text. Only used to narrow a citation: nothing read here goes into a memory's text
 * (the log is not redacted, the memory's text is).
 */
final class SourceLines {

    /** Fragments shorter than this may occur by chance in another line. */
    static final int MIN_FRAGMENT = 12;
    static final int MAX_FRAGMENT = 48;
    /** Shortest fragment of a tool call's input (a path such as {@code README.md}). */
    static final int CALL_FRAGMENT = 6;
    /** How far a repeated logging of one message may lie from the first. */
    static final int REPEAT_LINES = 3;
    /** Cited ranges longer than this are not read back (a JSON document format with huge lines). */
    static final long MAX_BYTES = 8L << 20;

    private static final Pattern MARKERS = Pattern.compile("\\[REDACTED[^\\]]*\\]|\\[\\d+ chars omitted\\]|\u2026|\\*\\*|`");

    private final Provenance provenance;
    private final List<String> lines;
    private final long[] starts;
    private final long[] ends;

    private SourceLines(Provenance provenance, List<String> lines, long[] starts, long[] ends) {
        this.provenance = provenance;
        this.lines = lines;
        this.starts = starts;
        this.ends = ends;
    }

    /**
     * The lines of {@code p}'s range, or null when they cannot be read as cited (the file is
     * gone, shorter, or changed so that the range no longer holds {@link Provenance#lineCount()} lines).
     */
    static SourceLines read(Provenance p) {
        long length = p.byteEnd() - p.byteStart();
        if (length <= 0 || length > MAX_BYTES) {
            return null;
        }
        byte[] bytes = new byte[(int) length];
        try (RandomAccessFile f = new RandomAccessFile(p.source().toFile(), "r")) {
            if (f.length() < p.byteEnd()) {
                return null;
            }
            f.seek(p.byteStart());
            f.readFully(bytes);
        } catch (IOException e) {
            return null;
        }
        List<String> lines = new ArrayList<>();
        long[] starts = new long[p.lineCount()];
        long[] ends = new long[p.lineCount()];
        int from = 0;
        for (int i = 0; i <= bytes.length && lines.size() < p.lineCount(); i++) {
            if (i == bytes.length || bytes[i] == '\n') {
                if (i == bytes.length && i == from) {
                    break;
                }
                starts[lines.size()] = p.byteStart() + from;
                ends[lines.size()] = p.byteStart() + Math.min(i + 1, bytes.length);
                lines.add(new String(bytes, from, i - from, StandardCharsets.UTF_8));
                from = i + 1;
            }
        }
        if (lines.size() != p.lineCount() || from < bytes.length) {
            return null;
        }
        return new SourceLines(p, lines, starts, ends);
    }

    /**
     * The first line at or after {@code fromLine} (1-based, absolute) holding a fragment of
     * {@code text} of at least {@code minLength} characters, as written or JSON-escaped; 0 when
     * none does or no fragment is long enough.
     * Several fragments are tried, longest first: one may straddle a line break the memory's
     * text turned into a space.
     */
    int find(String text, int fromLine, int minLength) {
        for (String fragment : fragments(text, minLength)) {
            String escaped = Json.escape(fragment);
            String unicode = jsonEscapeUnicode(escaped);
            for (int i = Math.max(0, fromLine - provenance.lineStart()); i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.contains(fragment) || line.contains(escaped) || line.contains(unicode)) {
                    return provenance.lineStart() + i;
                }
            }
        }
        return 0;
    }

    /**
     * The line of a tool call: the first at or after {@code fromLine} holding its input and its
     * tool's name as a JSON string (a tool result may repeat the input: a listing naming the file
     * later read); else the first holding the input only. Inputs are short, so shorter fragments
     * than for prose are accepted.
     */
    int findCall(String tool, String input, int fromLine) {
        String name = "\"" + tool + "\"";
        for (String fragment : fragments(input, CALL_FRAGMENT)) {
            String escaped = Json.escape(fragment);
            for (int i = Math.max(0, fromLine - provenance.lineStart()); i < lines.size(); i++) {
                String line = lines.get(i);
                if ((line.contains(fragment) || line.contains(escaped)) && line.contains(name)) {
                    return provenance.lineStart() + i;
                }
            }
        }
        return find(input, fromLine, CALL_FRAGMENT);
    }

    /**
     * The last line of the run starting at {@code line} whose lines each repeat {@code text}
     * (formats that log one message twice, as an event and as a response item); at most
     * {@value #REPEAT_LINES} lines on.
     */
    int repeatedThrough(String text, int line) {
        List<String> fragments = fragments(text, MIN_FRAGMENT);
        if (fragments.isEmpty()) {
            return line;
        }
        String fragment = fragments.get(0);
        String escaped = Json.escape(fragment);
        int last = line;
        for (int i = line + 1 - provenance.lineStart(); i < lines.size() && i <= line + REPEAT_LINES - provenance.lineStart(); i++) {
            String l = lines.get(i);
            if (l.contains(fragment) || l.contains(escaped) || l.contains(jsonEscapeUnicode(escaped))) {
                last = provenance.lineStart() + i;
            }
        }
        return last;
    }

    /** Provenance of lines {@code first..last} (absolute, within the range), with the ids found in them. */
    Provenance narrow(int first, int last, List<String> recordIds) {
        int a = first - provenance.lineStart();
        int b = last - provenance.lineStart();
        List<String> ids = new ArrayList<>();
        for (String id : recordIds) {
            Pattern own = null;
            for (int i = a; i <= b; i++) {
                // An exchange cites hundreds of records and its lines can be long: the plain search
                // rules out nearly every line before the pattern (compiled once per id) is tried.
                String line = lines.get(i);
                if (!line.contains(id)) {
                    continue;
                }
                if (own == null) {
                    own = Pattern.compile("\"(?:uuid|id)\"\\s*:\\s*\"" + Pattern.quote(id) + "\"");
                }
                if (own.matcher(line).find()) {
                    ids.add(id);
                    break;
                }
            }
        }
        return new Provenance(provenance.source(), first, last, starts[a], ends[b], ids);
    }

    /**
     * Pieces of {@code text} that are plain log text, longest first: no redaction marker, no
     * ellipsis of a shortened text, no markdown the agent may have added, within one line; cut
     * into runs of whole words of at most {@value #MAX_FRAGMENT} characters; at most four.
     */
    static List<String> fragments(String text, int minLength) {
        List<String> pieces = new ArrayList<>();
        for (String line : text.split("\n")) {
            for (String piece : MARKERS.split(line)) {
                String p = piece.strip();
                while (p.length() >= minLength) {
                    if (p.length() <= MAX_FRAGMENT) {
                        pieces.add(p);
                        break;
                    }
                    int cut = p.lastIndexOf(' ', MAX_FRAGMENT);
                    cut = cut >= minLength ? cut : MAX_FRAGMENT;
                    pieces.add(p.substring(0, cut).strip());
                    p = p.substring(cut).strip();
                }
            }
        }
        pieces.sort((x, y) -> Integer.compare(y.length(), x.length()));
        return pieces.size() > 4 ? pieces.subList(0, 4) : pieces;
    }

    /** As Python's json.dumps writes it: every non-ASCII character as a backslash-u escape. */
    private static String jsonEscapeUnicode(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 128) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.toString();
    }
}
