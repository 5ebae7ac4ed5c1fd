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
 *   <li>A log in which the person tells Funes {@value #IGNORE_MARKER} is not indexed at all (see
 *       {@link Indexer}): a message they typed that starts with the marker, or has it alone on a
 *       line, outside fenced code ({@link #isIgnoreDirective}). Mentioning the marker elsewhere
 *       (in a sentence, in backticks or quotes, in code, in an answer or a tool's output) is not a
 *       request.</li>
 *   <li>A tool call that ran Funes itself ({@code funes search}, {@code funes why}, the MCP tools
 *       {@code search_memory}, {@code why}, {@code recent_sessions}) is remembered as a one-line
 *       mention; its result, which holds memories already stored, is not.</li>
 * </ul>
 */
final class Privacy {

    /** Text that keeps a whole log out of the store. */
    static final String IGNORE_MARKER = "funes:ignore";
    /**
     * Metadata key the chunker sets on the memories of an exchange whose request is an ignore
     * directive; the indexer looks for it and never stores such a memory.
     */
    static final String DIRECTIVE_KEY = "funes:ignore-directive";
    /** The marker as a directive: the token itself, then nothing but spaces or punctuation, or other words. */
    private static final Pattern DIRECTIVE_START = Pattern.compile("funes:ignore(?=$|[\\s.,;:!?)\u2014\u2013])");
    /** The marker alone on a line (trailing punctuation allowed). */
    private static final Pattern DIRECTIVE_LINE = Pattern.compile("\\s*funes:ignore[\\s.!]*");
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

    /**
     * Whether a message the person typed asks Funes to ignore its log: its first non-blank line
     * starts with {@value #IGNORE_MARKER} as a word of its own, or one of its lines is the marker
     * alone; lines inside fenced code ({@code ```} or {@code ~~~}) do not count. The marker in the
     * middle of a sentence, in backticks or quotes, or after a quote sign {@code >} is a mention.
     */
    static boolean isIgnoreDirective(String typed) {
        if (typed == null || !typed.contains(IGNORE_MARKER)) {
            return false;
        }
        boolean inFence = false;
        boolean first = true;
        for (String line : typed.split("\\R", -1)) {
            String t = line.strip();
            if (t.startsWith("```") || t.startsWith("~~~")) {
                inFence = !inFence;
                first = false;
                continue;
            }
            if (inFence || t.isEmpty()) {
                continue;
            }
            if (first && DIRECTIVE_START.matcher(t).lookingAt() || DIRECTIVE_LINE.matcher(line).matches()) {
                return true;
            }
            first = false;
        }
        return false;
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
