package dev.funes.ingest;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** Shortening and cleaning of log text, so a memory stays small enough to be an answer. */
final class Text {

    private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-?]*[ -/]*[@-~]|\u001B\\][^\u0007\u001B]*(\u0007|\u001B\\\\)");
    private static final Pattern MANY_BLANK_LINES = Pattern.compile("\n[ \t]*\n(?:[ \t]*\n)+");
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");
    /** Lines made only of box-drawing characters: frames of hook and CLI output, noise for search. */
    private static final Pattern FRAME_LINE = Pattern.compile("[\\s\u2500-\u257F]*");
    static final String ELLIPSIS = "\u2026";

    private Text() {
    }

    /** Whether {@code s} is null or has only whitespace. */
    static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /** The marker {@link #headTail} puts where it cut. */
    private static final Pattern HEAD_TAIL_CUT = Pattern.compile(ELLIPSIS + " \\[\\d+ chars omitted] " + ELLIPSIS);

    /** Whether {@code s} holds a cut {@link #headTail} made: it is not whole. */
    static boolean isHeadTailCut(String s) {
        return s.indexOf(ELLIPSIS) >= 0 && HEAD_TAIL_CUT.matcher(s).find();
    }

    /**
     * At most {@code max} characters: the head and the tail of a longer text, joined by a marker
     * that says how much was left out. The tail is kept because agents and tools put conclusions
     * and errors last. Cuts fall between words when they can (see {@link #cutBefore}).
     */
    static String headTail(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        String marker = " " + ELLIPSIS + " [" + (s.length() - max) + " chars omitted] " + ELLIPSIS + " ";
        int room = Math.max(0, max - marker.length());
        int head = room * 3 / 4;
        int tail = room - head;
        return s.substring(0, safeEnd(s, cutBefore(s, head))).stripTrailing() + marker
                + s.substring(safeStart(s, cutAfter(s, s.length() - tail))).stripLeading();
    }

    /** The first {@code max} characters, with an ellipsis when cut (between words when it can). */
    static String head(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        return s.substring(0, safeEnd(s, cutBefore(s, Math.max(0, max - 1)))).stripTrailing() + ELLIPSIS;
    }

    /**
     * Where to end a head that should end at {@code end}: moved back to a space, else to a
     * character that cannot be part of a token (quote, colon, bracket...), if one lies in the
     * last half of the head; else {@code end}. A cut inside a word leaves a fragment no one can
     * read, and a fragment of a secret that redaction cannot recognise any more.
     */
    static int cutBefore(String s, int end) {
        if (end <= 0 || end >= s.length() || !inToken(s, end)) {
            return end;
        }
        int floor = end / 2;
        for (int i = end; i > floor; i--) {
            if (Character.isWhitespace(s.charAt(i - 1))) {
                return i;
            }
        }
        for (int i = end; i > floor; i--) {
            if (!isTokenChar(s.charAt(i - 1))) {
                return i;
            }
        }
        return end;
    }

    /** Where to start a tail that should start at {@code start}: the mirror of {@link #cutBefore}. */
    static int cutAfter(String s, int start) {
        if (start <= 0 || start >= s.length() || !inToken(s, start)) {
            return start;
        }
        int ceiling = start + (s.length() - start) / 2;
        for (int i = start; i < ceiling; i++) {
            if (Character.isWhitespace(s.charAt(i))) {
                return i;
            }
        }
        for (int i = start; i < ceiling; i++) {
            if (!isTokenChar(s.charAt(i))) {
                return i;
            }
        }
        return start;
    }

    /** Whether the position lies inside a run of non-space characters. */
    private static boolean inToken(String s, int at) {
        return !Character.isWhitespace(s.charAt(at - 1)) && !Character.isWhitespace(s.charAt(at));
    }

    /** Characters keys and tokens are made of (base64, base64url, hex, JWT dots). */
    private static boolean isTokenChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '+' || c == '/' || c == '=' || c == '.';
    }

    /** Whitespace runs (newlines included) collapsed to one space, then cut to {@code max}. */
    static String oneLine(String s, int max) {
        return head(WHITESPACE.matcher(s).replaceAll(" ").strip(), max);
    }

    /** Without terminal escape sequences, carriage returns and runs of blank lines. */
    static String clean(String s) {
        String t = s.indexOf('\u001B') >= 0 ? ANSI.matcher(s).replaceAll("") : s;
        t = t.replace("\r\n", "\n").replace('\r', '\n').replace('\u00A0', ' ');
        return MANY_BLANK_LINES.matcher(t).replaceAll("\n\n").strip();
    }

    /** The non-blank lines of {@code s} that are not only a frame drawn with box characters. */
    static List<String> meaningfulLines(String s) {
        List<String> lines = new ArrayList<>();
        for (String line : clean(s).split("\n", -1)) {
            if (!line.isBlank() && !FRAME_LINE.matcher(line).matches()) {
                lines.add(line.stripTrailing());
            }
        }
        return lines;
    }

    private static int safeEnd(String s, int end) {
        return end > 0 && end < s.length() && Character.isHighSurrogate(s.charAt(end - 1)) ? end - 1 : end;
    }

    private static int safeStart(String s, int start) {
        return start > 0 && start < s.length() && Character.isLowSurrogate(s.charAt(start)) ? start + 1 : start;
    }
}
