package dev.funes.cli;

import dev.funes.FunesException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The statements of a TOML document (table headers and {@code key = value} lines) with their
 * places in the text, enough for {@code funes setup} to find, add and remove one table without
 * re-serializing the user's file. Strings (all four kinds), arrays and inline tables spanning
 * lines are read as TOML reads them; values are checked for balance, not fully typed. Errors
 * name the file and line.
 */
final class TomlText {

    /** What a statement is. */
    enum Kind { TABLE, ARRAY_TABLE, KEY_VALUE }

    /**
     * One statement.
     *
     * @param kind       header or assignment
     * @param path       the absolute key path: a header's, or the current table's plus the key
     * @param start      offset of the statement's first character
     * @param valueStart offset of the value (assignments), else of the end of the header
     * @param end        offset just after the statement (its value, or the header's {@code ]})
     * @param lineEnd    offset just after the statement's line, newline included
     * @param line       1-based line number of the statement
     */
    record Statement(Kind kind, List<String> path, int start, int valueStart, int end, int lineEnd, int line) {
    }

    private final String text;
    private final Path file;
    private int pos;
    private int line = 1;

    private TomlText(String text, Path file) {
        this.text = text;
        this.file = file;
    }

    /**
     * The statements of {@code text}, in order.
     *
     * @throws FunesException {@code FILE:LINE: reason} when it is not TOML as far as this reads
     */
    static List<Statement> parse(String text, Path file) {
        return new TomlText(text, file).statements();
    }

    private List<Statement> statements() {
        List<Statement> statements = new ArrayList<>();
        List<String> table = List.of();
        while (true) {
            skipBlankLines();
            if (pos >= text.length()) {
                return statements;
            }
            int start = pos;
            int startLine = line;
            char c = text.charAt(pos);
            if (c == '[') {
                boolean array = text.startsWith("[[", pos);
                pos += array ? 2 : 1;
                skipSpaces();
                List<String> path = key();
                skipSpaces();
                if (!text.startsWith(array ? "]]" : "]", pos)) {
                    throw error("a table header is not closed with " + (array ? "]]" : "]"));
                }
                pos += array ? 2 : 1;
                int end = pos;
                endOfLine();
                statements.add(new Statement(array ? Kind.ARRAY_TABLE : Kind.TABLE, path, start, end, end, pos, startLine));
                table = path;
            } else {
                List<String> key = key();
                skipSpaces();
                if (pos >= text.length() || text.charAt(pos) != '=') {
                    throw error("expected '=' after a key, or a [table] header");
                }
                pos++;
                skipSpaces();
                int valueStart = pos;
                value();
                int end = pos;
                endOfLine();
                List<String> path = new ArrayList<>(table);
                path.addAll(key);
                statements.add(new Statement(Kind.KEY_VALUE, List.copyOf(path), start, valueStart, end, pos, startLine));
            }
        }
    }

    /** A dotted key: bare or quoted parts. */
    private List<String> key() {
        List<String> parts = new ArrayList<>();
        while (true) {
            skipSpaces();
            if (pos >= text.length()) {
                throw error("the file ends where a key should be");
            }
            char c = text.charAt(pos);
            if (c == '"') {
                parts.add(basicString());
            } else if (c == '\'') {
                parts.add(literalString());
            } else {
                int start = pos;
                while (pos < text.length() && isBare(text.charAt(pos))) {
                    pos++;
                }
                if (pos == start) {
                    throw error("expected a key, found '" + c + "'");
                }
                parts.add(text.substring(start, pos));
            }
            skipSpaces();
            if (pos < text.length() && text.charAt(pos) == '.') {
                pos++;
                continue;
            }
            return parts;
        }
    }

    private static boolean isBare(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    }

    /** Skips one value: a string, an array or inline table (balanced, across lines), or a bare word. */
    private void value() {
        if (pos >= text.length() || text.charAt(pos) == '\n' || text.charAt(pos) == '#') {
            throw error("a key has no value");
        }
        char c = text.charAt(pos);
        if (c == '"' || c == '\'') {
            string();
        } else if (c == '[' || c == '{') {
            char close = c == '[' ? ']' : '}';
            pos++;
            while (true) {
                skipInside(c == '[');
                if (pos >= text.length()) {
                    throw error("a value opened with '" + c + "' is not closed");
                }
                char d = text.charAt(pos);
                if (d == close) {
                    pos++;
                    return;
                }
                if (d == ',') {
                    pos++;
                } else if (d == ']' || d == '}') {
                    throw error("'" + d + "' closes a value that '" + c + "' did not open");
                } else if (c == '{' && (isBare(d) || d == '"' || d == '\'') && isKeyAhead()) {
                    key();
                    skipSpaces();
                    pos++; // =
                    skipSpaces();
                    value();
                } else {
                    value();
                }
            }
        } else {
            int start = pos;
            while (pos < text.length() && "\n#,]}".indexOf(text.charAt(pos)) < 0
                    && !(text.charAt(pos) == '\r' && text.startsWith("\r\n", pos))) {
                pos++;
            }
            // Trailing spaces are not part of the value.
            while (pos > start && (text.charAt(pos - 1) == ' ' || text.charAt(pos - 1) == '\t')) {
                pos--;
            }
            if (pos == start) {
                throw error("a key has no value");
            }
        }
    }

    /** Whether a {@code key =} starts here (inside an inline table). */
    private boolean isKeyAhead() {
        int save = pos;
        int saveLine = line;
        try {
            key();
            skipSpaces();
            return pos < text.length() && text.charAt(pos) == '=';
        } catch (FunesException e) {
            return false;
        } finally {
            pos = save;
            line = saveLine;
        }
    }

    private void string() {
        if (text.startsWith("\"\"\"", pos)) {
            multiline("\"\"\"", true);
        } else if (text.startsWith("'''", pos)) {
            multiline("'''", false);
        } else if (text.charAt(pos) == '"') {
            basicString();
        } else {
            literalString();
        }
    }

    private void multiline(String quote, boolean escapes) {
        pos += 3;
        while (true) {
            if (pos >= text.length()) {
                throw error("a multi-line string is not closed");
            }
            char c = text.charAt(pos);
            if (escapes && c == '\\') {
                pos += 2;
                continue;
            }
            if (text.startsWith(quote, pos)) {
                pos += 3;
                // Up to two more quote characters belong to the string.
                while (pos < text.length() && text.charAt(pos) == quote.charAt(0)) {
                    pos++;
                }
                return;
            }
            if (c == '\n') {
                line++;
            }
            pos++;
        }
    }

    /** A basic string's content (escapes kept as written: keys rarely hold any). */
    private String basicString() {
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= text.length() || text.charAt(pos) == '\n') {
                throw error("a string is not closed on its line");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c == '\\' && pos < text.length()) {
                char e = text.charAt(pos++);
                switch (e) {
                    case 'n' -> sb.append('\n');
                    case 't' -> sb.append('\t');
                    case 'r' -> sb.append('\r');
                    case 'b' -> sb.append('\b');
                    case 'f' -> sb.append('\f');
                    case 'u', 'U' -> {
                        int n = e == 'u' ? 4 : 8;
                        if (pos + n > text.length()) {
                            throw error("a \\" + e + " escape needs " + n + " hex digits");
                        }
                        try {
                            sb.appendCodePoint(Integer.parseInt(text.substring(pos, pos + n), 16));
                        } catch (IllegalArgumentException ex) {
                            throw error("a \\" + e + " escape needs " + n + " hex digits");
                        }
                        pos += n;
                    }
                    default -> sb.append(e);
                }
            } else {
                sb.append(c);
            }
        }
    }

    private String literalString() {
        int start = ++pos;
        int close = text.indexOf('\'', pos);
        int eol = text.indexOf('\n', pos);
        if (close < 0 || (eol >= 0 && eol < close)) {
            throw error("a string is not closed on its line");
        }
        pos = close + 1;
        return text.substring(start, close);
    }

    /** Skips spaces, and inside arrays also newlines and comments. */
    private void skipInside(boolean newlines) {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\r') {
                pos++;
            } else if (c == '\n' || c == '#') {
                if (!newlines && c == '\n') {
                    throw error("an inline table must be on one line");
                }
                if (c == '#') {
                    while (pos < text.length() && text.charAt(pos) != '\n') {
                        pos++;
                    }
                } else {
                    line++;
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private void skipSpaces() {
        while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t')) {
            pos++;
        }
    }

    /** After a statement: spaces, perhaps a comment, then the end of the line. */
    private void endOfLine() {
        skipSpaces();
        if (pos < text.length() && text.charAt(pos) == '#') {
            while (pos < text.length() && text.charAt(pos) != '\n') {
                pos++;
            }
        }
        if (text.startsWith("\r\n", pos)) {
            pos++;
        }
        if (pos < text.length()) {
            if (text.charAt(pos) != '\n') {
                throw error("unexpected text after a value: '" + text.charAt(pos) + "'");
            }
            pos++;
            line++;
        }
    }

    private void skipBlankLines() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\r' || c == '\uFEFF') {
                pos++;
            } else if (c == '\n') {
                pos++;
                line++;
            } else if (c == '#') {
                while (pos < text.length() && text.charAt(pos) != '\n') {
                    pos++;
                }
            } else {
                return;
            }
        }
    }

    private FunesException error(String reason) {
        return new FunesException(file + ":" + line + ": not valid TOML: " + reason);
    }

    /** A TOML basic string holding {@code s}. */
    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        sb.append(String.format("\\u%04X", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /** A TOML array of basic strings. */
    static String quote(List<String> strings) {
        List<String> quoted = new ArrayList<>();
        strings.forEach(s -> quoted.add(quote(s)));
        return "[" + String.join(", ", quoted) + "]";
    }
}
