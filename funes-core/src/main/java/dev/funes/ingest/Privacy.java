package dev.funes.ingest;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a person asked Funes not to remember, and Funes' own outputs, which it must not remember
 * again.
 *
 * <ul>
 *   <li>{@code <private>...</private>} spans (tags in any case) are dropped from each message
 *       before anything is rendered, shortened or stored. An opening tag with no closing tag in
 *       the same message drops the rest of that message: a forgotten closing tag must not leak
 *       the secret. A closing tag with no opening tag is left as it is.</li>
 *   <li>A log whose text holds {@value #IGNORE_MARKER} anywhere is not indexed at all (see
 *       {@link Indexer}).</li>
 *   <li>A tool call that ran Funes itself ({@code funes search}, {@code funes why}, the MCP tools
 *       {@code search_memory}, {@code why}, {@code recent_sessions}) is remembered as a one-line
 *       mention; its result, which holds memories already stored, is not.</li>
 * </ul>
 */
final class Privacy {

    /** Text that keeps a whole log out of the store. */
    static final String IGNORE_MARKER = "funes:ignore";
    /** What replaces the result of a call to Funes itself. */
    static final String SELF_RESULT = "(output of Funes itself, not indexed)";

    private static final String OPEN = "<private>";
    private static final String CLOSE = "</private>";
    /** A shell command that runs the Funes CLI's search or why, possibly through a path or a launcher. */
    private static final Pattern FUNES_CLI = Pattern.compile("(^|[\\s/;&|(`'\"])funes(\\.jar)?\\s+(search|why)\\b");
    /** MCP tool names as agents log them: {@code mcp__funes__why}, {@code funes.search_memory}, {@code search_memory}. */
    private static final Pattern FUNES_MCP = Pattern.compile(
            "(?i)(search_memory|recent_sessions)|(.*funes.*[_.:/-](search_memory|why|recent_sessions))");
    /** Cline's generic MCP call, whose label names the server and the tool. */
    private static final Pattern FUNES_MCP_LABEL = Pattern.compile("(?i)\\bfunes\\S*\\s+(search_memory|why|recent_sessions)\\b");

    private Privacy() {
    }

    /** {@code text} without its private spans; the same string when it has none. Null stays null. */
    static String strip(String text) {
        if (text == null) {
            return null;
        }
        String lower = text.toLowerCase(Locale.ROOT);
        // toLowerCase may change the length of some characters; then positions would not match.
        if (lower.length() != text.length()) {
            lower = asciiLower(text);
        }
        int open = lower.indexOf(OPEN);
        if (open < 0) {
            return text;
        }
        StringBuilder s = new StringBuilder(text.length());
        int from = 0;
        while (open >= 0) {
            s.append(text, from, open);
            int close = lower.indexOf(CLOSE, open + OPEN.length());
            if (close < 0) {
                from = text.length();
                break;
            }
            from = close + CLOSE.length();
            open = lower.indexOf(OPEN, from);
        }
        s.append(text, from, text.length());
        return s.toString();
    }

    /** Whether a tool call ran Funes itself, judged from the tool's name and its rendered label. */
    static boolean isSelfCall(String toolName, String label) {
        if (toolName != null && FUNES_MCP.matcher(toolName).matches()) {
            return true;
        }
        if (label == null) {
            return false;
        }
        if ("use_mcp_tool".equals(toolName)) {
            return FUNES_MCP_LABEL.matcher(label).find();
        }
        return FUNES_CLI.matcher(label).find();
    }

    private static String asciiLower(String text) {
        char[] c = text.toCharArray();
        for (int i = 0; i < c.length; i++) {
            if (c[i] >= 'A' && c[i] <= 'Z') {
                c[i] = (char) (c[i] + ('a' - 'A'));
            }
        }
        return new String(c);
    }
}
