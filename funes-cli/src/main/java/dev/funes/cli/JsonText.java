package dev.funes.cli;

import dev.funes.FunesException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JSON document parsed with the place of every value in its text, so that {@code funes setup}
 * can add or remove one entry by splicing the text: every other byte of the user's file (key
 * order, spacing, comments) stays as it was. A serializer would rewrite the whole file.
 *
 * <p>Accepts {@code //} and {@code /* *&#47;} comments (Gemini CLI's settings allow them);
 * everything else is strict JSON. Errors name the file, line and column.
 */
final class JsonText {

    /** A value and where it is: {@code text.substring(start, end)}. */
    abstract static class Value {
        int start;
        int end;

        /** The value as plain Java: maps (in order), lists, strings, numbers as text, booleans, null. */
        abstract Object plain();
    }

    /** An object and its members, in order. */
    static final class Obj extends Value {
        final List<Member> members = new ArrayList<>();

        Member member(String name) {
            for (Member m : members) {
                if (m.name().equals(name)) {
                    return m;
                }
            }
            return null;
        }

        @Override
        Object plain() {
            Map<String, Object> map = new LinkedHashMap<>();
            members.forEach(m -> map.put(m.name(), m.value().plain()));
            return map;
        }
    }

    /** An array and its elements, in order. */
    static final class Arr extends Value {
        final List<Value> elements = new ArrayList<>();

        @Override
        Object plain() {
            List<Object> list = new ArrayList<>();
            elements.forEach(e -> list.add(e.plain()));
            return list;
        }
    }

    /** A string, number, boolean or null. */
    static final class Scalar extends Value {
        Object value;

        @Override
        Object plain() {
            return value;
        }
    }

    /** A member of an object: its name, where the name's opening quote is, and its value. */
    record Member(String name, int nameStart, Value value) {
    }

    private final String text;
    private final Path file;
    private int pos;

    private JsonText(String text, Path file) {
        this.text = text;
        this.file = file;
    }

    /**
     * Parses a whole document.
     *
     * @throws FunesException {@code FILE:LINE:COLUMN: reason} when it is not JSON
     */
    static Value parse(String text, Path file) {
        JsonText parser = new JsonText(text, file);
        parser.skipBlank();
        Value value = parser.value();
        parser.skipBlank();
        if (parser.pos < text.length()) {
            throw parser.error("unexpected text after the JSON value");
        }
        return value;
    }

    private Value value() {
        if (pos >= text.length()) {
            throw error("the file ends where a value should be");
        }
        char c = text.charAt(pos);
        int start = pos;
        Value value;
        if (c == '{') {
            value = object();
        } else if (c == '[') {
            value = array();
        } else if (c == '"') {
            Scalar s = new Scalar();
            s.value = string();
            value = s;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            Scalar s = new Scalar();
            s.value = number();
            value = s;
        } else if (text.startsWith("true", pos) || text.startsWith("false", pos) || text.startsWith("null", pos)) {
            Scalar s = new Scalar();
            s.value = text.startsWith("true", pos) ? Boolean.TRUE : text.startsWith("false", pos) ? Boolean.FALSE : null;
            pos += s.value == null ? 4 : s.value.equals(Boolean.TRUE) ? 4 : 5;
            value = s;
        } else {
            throw error("unexpected character '" + c + "'");
        }
        value.start = start;
        value.end = pos;
        return value;
    }

    private Obj object() {
        Obj obj = new Obj();
        pos++; // {
        skipBlank();
        if (peek() == '}') {
            pos++;
            return obj;
        }
        while (true) {
            skipBlank();
            if (peek() != '"') {
                throw error("expected a member name in double quotes");
            }
            int nameStart = pos;
            String name = string();
            skipBlank();
            if (peek() != ':') {
                throw error("expected ':' after the member name \"" + name + "\"");
            }
            pos++;
            skipBlank();
            obj.members.add(new Member(name, nameStart, value()));
            skipBlank();
            char c = peek();
            pos++;
            if (c == '}') {
                return obj;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or '}' in an object");
            }
        }
    }

    private Arr array() {
        Arr arr = new Arr();
        pos++; // [
        skipBlank();
        if (peek() == ']') {
            pos++;
            return arr;
        }
        while (true) {
            skipBlank();
            arr.elements.add(value());
            skipBlank();
            char c = peek();
            pos++;
            if (c == ']') {
                return arr;
            }
            if (c != ',') {
                pos--;
                throw error("expected ',' or ']' in an array");
            }
        }
    }

    private String string() {
        StringBuilder sb = new StringBuilder();
        pos++; // opening quote
        while (true) {
            if (pos >= text.length()) {
                throw error("a string is not closed");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c < 0x20) {
                pos--;
                throw error("a control character inside a string");
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = pos < text.length() ? text.charAt(pos++) : '\0';
            switch (e) {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("a \\u escape needs four hex digits");
                    }
                    try {
                        sb.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                    } catch (NumberFormatException ex) {
                        throw error("a \\u escape needs four hex digits");
                    }
                    pos += 4;
                }
                default -> {
                    pos--;
                    throw error("unknown escape \\" + e);
                }
            }
        }
    }

    private String number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        int digits = pos;
        while (pos < text.length() && "0123456789.eE+-".indexOf(text.charAt(pos)) >= 0) {
            pos++;
        }
        String number = text.substring(start, pos);
        if (pos == digits || !number.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
            pos = start;
            throw error("malformed number '" + number + "'");
        }
        return number;
    }

    private char peek() {
        if (pos >= text.length()) {
            throw error("the file ends too early");
        }
        return text.charAt(pos);
    }

    /** Skips white space and comments. */
    private void skipBlank() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\uFEFF') {
                pos++;
            } else if (text.startsWith("//", pos)) {
                int eol = text.indexOf('\n', pos);
                pos = eol < 0 ? text.length() : eol + 1;
            } else if (text.startsWith("/*", pos)) {
                int close = text.indexOf("*/", pos + 2);
                if (close < 0) {
                    throw error("a /* comment is not closed");
                }
                pos = close + 2;
            } else {
                return;
            }
        }
    }

    private FunesException error(String reason) {
        return new FunesException(file + ":" + line(text, pos) + ":" + column(text, pos) + ": not valid JSON: " + reason
                + " (nothing was changed)");
    }

    /** The 1-based line of {@code offset}. */
    static int line(String text, int offset) {
        int line = 1;
        for (int i = 0; i < Math.min(offset, text.length()); i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }

    private static int column(String text, int offset) {
        int lineStart = text.lastIndexOf('\n', Math.min(offset, text.length()) - 1) + 1;
        return offset - lineStart + 1;
    }

    // ---- rendering and splicing ----

    /** The white space at the start of the line holding {@code offset}. */
    static String indentAt(String text, int offset) {
        int lineStart = text.lastIndexOf('\n', offset - 1) + 1;
        int i = lineStart;
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        return text.substring(lineStart, i);
    }

    /** Whether {@code from} and {@code to} are on one line. */
    static boolean oneLine(String text, int from, int to) {
        return text.indexOf('\n', from) < 0 || text.indexOf('\n', from) >= to;
    }

    /**
     * The indentation step of the document: how much deeper the first member of the top object
     * is than the object; two spaces when that cannot be told.
     */
    static String unit(String text, Value root) {
        if (root instanceof Obj obj && !obj.members.isEmpty() && !oneLine(text, obj.start, obj.members.get(0).nameStart())) {
            String member = indentAt(text, obj.members.get(0).nameStart());
            String outer = indentAt(text, obj.start);
            if (member.startsWith(outer) && member.length() > outer.length()) {
                return member.substring(outer.length());
            }
        }
        return "  ";
    }

    /**
     * A value as JSON, laid out as JavaScript's {@code JSON.stringify(value, null, unit)} does
     * (what Claude Code writes), its first line continuing the current one at {@code indent}.
     */
    static String render(Object value, String indent, String unit) {
        StringBuilder sb = new StringBuilder();
        render(value, indent, unit, sb);
        return sb.toString();
    }

    private static void render(Object value, String indent, String unit, StringBuilder sb) {
        if (value instanceof Map<?, ?> map) {
            if (map.isEmpty()) {
                sb.append("{}");
                return;
            }
            sb.append("{");
            String inner = indent + unit;
            boolean first = true;
            for (Map.Entry<?, ?> e : map.entrySet()) {
                sb.append(first ? "\n" : ",\n").append(inner).append(quote((String) e.getKey())).append(": ");
                render(e.getValue(), inner, unit, sb);
                first = false;
            }
            sb.append("\n").append(indent).append("}");
        } else if (value instanceof List<?> list) {
            if (list.isEmpty()) {
                sb.append("[]");
                return;
            }
            sb.append("[");
            String inner = indent + unit;
            boolean first = true;
            for (Object e : list) {
                sb.append(first ? "\n" : ",\n").append(inner);
                render(e, inner, unit, sb);
                first = false;
            }
            sb.append("\n").append(indent).append("]");
        } else if (value instanceof String s) {
            sb.append(quote(s));
        } else {
            sb.append(value);
        }
    }

    /** A value as JSON on one line, for objects written on one line. */
    static String compact(Object value) {
        if (value instanceof Map<?, ?> map) {
            List<String> parts = new ArrayList<>();
            map.forEach((k, v) -> parts.add(quote((String) k) + ": " + compact(v)));
            return "{" + String.join(", ", parts) + "}";
        }
        if (value instanceof List<?> list) {
            List<String> parts = new ArrayList<>();
            list.forEach(v -> parts.add(compact(v)));
            return "[" + String.join(", ", parts) + "]";
        }
        return value instanceof String s ? quote(s) : String.valueOf(value);
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) {
                        sb.append(String.format("\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }

    /** {@code text} with {@code [from, to)} replaced. */
    static String splice(String text, int from, int to, String with) {
        return text.substring(0, from) + with + text.substring(to);
    }

    /** {@code text} with member {@code name} (absent from {@code obj}) added as the last member. */
    static String addMember(String text, Obj obj, String name, Object value, String unit) {
        String entry = quote(name) + ": ";
        return addLast(text, obj, obj.members.isEmpty() ? -1 : obj.members.get(0).nameStart(),
                obj.members.isEmpty() ? null : obj.members.get(obj.members.size() - 1).value(), entry, value, unit, '{', '}');
    }

    /** {@code text} with {@code value} added as the last element of {@code arr}. */
    static String addElement(String text, Arr arr, Object value, String unit) {
        return addLast(text, arr, arr.elements.isEmpty() ? -1 : arr.elements.get(0).start,
                arr.elements.isEmpty() ? null : arr.elements.get(arr.elements.size() - 1), "", value, unit, '[', ']');
    }

    private static String addLast(String text, Value container, int firstStart, Value last, String prefix, Object value,
                                  String unit, char open, char close) {
        if (last == null) {
            // An empty container, `{}` or `[]` (perhaps with space or comments inside): laid out anew.
            String outer = indentAt(text, container.start);
            String inner = outer + unit;
            return splice(text, container.start, container.end,
                    open + "\n" + inner + prefix + render(value, inner, unit) + "\n" + outer + close);
        }
        if (oneLine(text, container.start, firstStart)) {
            return splice(text, last.end, last.end, ", " + prefix + compact(value));
        }
        String indent = indentAt(text, firstStart);
        return splice(text, last.end, last.end, ",\n" + indent + prefix + render(value, indent, unit));
    }

    /** {@code text} with the member's value replaced by {@code value}. */
    static String replaceValue(String text, Member member, Object value, String unit) {
        Value old = member.value();
        return splice(text, old.start, old.end, render(value, indentAt(text, member.nameStart()), unit));
    }

    /**
     * {@code text} without the {@code index}th of {@code items} (members or elements of
     * {@code container}), and without the separator before it (or after it, when it is first):
     * the exact reverse of {@link #addMember} and {@link #addElement} for a last item.
     */
    static String remove(String text, Value container, List<int[]> items, int index, char open, char close) {
        if (items.size() == 1) {
            return splice(text, container.start, container.end, "" + open + close);
        }
        int[] item = items.get(index);
        if (index > 0) {
            return splice(text, items.get(index - 1)[1], item[1], "");
        }
        return splice(text, item[0], items.get(1)[0], "");
    }

    /** The spans {start, end} of an object's members, from name to value end. */
    static List<int[]> spans(Obj obj) {
        List<int[]> spans = new ArrayList<>();
        obj.members.forEach(m -> spans.add(new int[] {m.nameStart(), m.value().end}));
        return spans;
    }

    /** The spans {start, end} of an array's elements. */
    static List<int[]> spans(Arr arr) {
        List<int[]> spans = new ArrayList<>();
        arr.elements.forEach(e -> spans.add(new int[] {e.start, e.end}));
        return spans;
    }
}
