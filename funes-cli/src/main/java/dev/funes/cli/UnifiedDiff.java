package dev.funes.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff ({@code diff -u} form) between two texts that differ in one region, as every
 * change {@code funes setup} makes does: the lines the texts share at the start and at the end
 * are context, the rest is one hunk. Config files such as {@code ~/.claude.json} can hold many
 * thousand lines, which a general diff would compare pairwise.
 */
final class UnifiedDiff {

    private static final int CONTEXT = 3;

    private UnifiedDiff() {
    }

    /**
     * The diff, or an empty string when the texts are equal.
     *
     * @param before the old text, {@code null} when the file does not exist
     * @param after  the new text, {@code null} when the file goes
     * @param name   the file's name for the headers
     */
    static String of(String before, String after, String name) {
        if (before != null && before.equals(after)) {
            return "";
        }
        List<String> a = lines(before);
        List<String> b = lines(after);
        int prefix = 0;
        while (prefix < a.size() && prefix < b.size() && a.get(prefix).equals(b.get(prefix))) {
            prefix++;
        }
        int suffix = 0;
        while (suffix < a.size() - prefix && suffix < b.size() - prefix
                && a.get(a.size() - 1 - suffix).equals(b.get(b.size() - 1 - suffix))) {
            suffix++;
        }
        int from = Math.max(0, prefix - CONTEXT);
        int aEnd = Math.min(a.size(), a.size() - suffix + CONTEXT);
        int bEnd = Math.min(b.size(), b.size() - suffix + CONTEXT);
        StringBuilder sb = new StringBuilder();
        sb.append("--- ").append(before == null ? "/dev/null" : name).append('\n');
        sb.append("+++ ").append(after == null ? "/dev/null" : name).append('\n');
        sb.append("@@ -").append(range(from, aEnd - from)).append(" +").append(range(from, bEnd - from)).append(" @@\n");
        for (int i = from; i < prefix; i++) {
            line(sb, ' ', a.get(i));
        }
        for (int i = prefix; i < a.size() - suffix; i++) {
            line(sb, '-', a.get(i));
        }
        for (int i = prefix; i < b.size() - suffix; i++) {
            line(sb, '+', b.get(i));
        }
        for (int i = a.size() - suffix; i < aEnd; i++) {
            line(sb, ' ', a.get(i));
        }
        return sb.toString();
    }

    private static String range(int start, int count) {
        // diff -u: an empty range names the line before it.
        return count == 0 ? start + ",0" : (start + 1) + "," + count;
    }

    private static void line(StringBuilder sb, char mark, String line) {
        sb.append(mark);
        if (line.endsWith("\n")) {
            sb.append(line);
        } else {
            sb.append(line).append("\n\\ No newline at end of file\n");
        }
    }

    /** The lines of {@code text}, each with its newline (the last may lack one). */
    private static List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        if (text == null) {
            return lines;
        }
        int start = 0;
        while (start < text.length()) {
            int eol = text.indexOf('\n', start);
            int end = eol < 0 ? text.length() : eol + 1;
            lines.add(text.substring(start, end));
            start = end;
        }
        return lines;
    }
}
