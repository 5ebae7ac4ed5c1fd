package dev.funes.redact;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Assignments inside URL-encoded text, where {@code =} and {@code :} are escaped: a login form
 * in a redirect ({@code ...%26password%3Dhunter2%26...}), a query encoded twice
 * ({@code password%253D...}), JSON in a query parameter ({@code %22token%22%3A%22...%22}). The
 * name is judged as {@link AssignmentRule} judges names, the decoded value as a literal.
 */
final class EncodedAssignmentRule implements Rule {

    private static final String[] SEPARATORS = {"%3d", "%253d", "%3a"};
    private static final int MAX_NAME = 80;
    private static final int MAX_VALUE = 300;

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        if (!lower.contains("%3d") && !lower.contains("%253d") && !lower.contains("%3a")) {
            return;
        }
        String text = input.text;
        for (String sep : SEPARATORS) {
            for (int at = lower.indexOf(sep); at >= 0; at = lower.indexOf(sep, at + sep.length())) {
                int nameEnd = at;
                if (lower.startsWith("%22", nameEnd - 3)) {
                    nameEnd -= 3;
                } else if (lower.startsWith("%2522", nameEnd - 5)) {
                    nameEnd -= 5;
                }
                int nameStart = nameEnd;
                while (nameStart > 0 && isNameChar(text.charAt(nameStart - 1)) && nameEnd - nameStart < MAX_NAME) {
                    nameStart--;
                }
                // The name began after an escape (%26, %3F, %22...): skip the escape's hex digits.
                int escape = text.lastIndexOf('%', nameEnd - 1);
                if (escape >= nameStart - 1 && escape >= 0 && escape + 3 <= nameEnd) {
                    nameStart = Math.max(nameStart, escape + 3);
                }
                if (nameEnd - nameStart < 2) {
                    continue;
                }
                String type = AssignmentRule.typeOf(text.substring(nameStart, nameEnd));
                if (type == null) {
                    continue;
                }
                int start = at + sep.length();
                while (lower.startsWith("%20", start)) {
                    start += 3;
                }
                if (lower.startsWith("%22", start)) {
                    start += 3;
                } else if (lower.startsWith("%2522", start)) {
                    start += 5;
                }
                int end = start;
                while (end < text.length() && end - start < MAX_VALUE && !endsValue(lower, end)) {
                    end++;
                }
                if (end > start && AssignmentRule.isSecretValue(decode(text.substring(start, end)), type,
                        AssignmentRule.Form.LITERAL)) {
                    sink.found(start, end, type);
                }
            }
        }
    }

    private static boolean endsValue(String lower, int i) {
        char c = lower.charAt(i);
        if (Character.isWhitespace(c) || c == '&' || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`') {
            return true;
        }
        return c == '%' && (lower.startsWith("%26", i) || lower.startsWith("%2526", i) || lower.startsWith("%22", i)
                || lower.startsWith("%2522", i) || lower.startsWith("%2c", i) || lower.startsWith("%7d", i)
                || lower.startsWith("%3b", i) || lower.startsWith("%3d", i) || lower.startsWith("%253d", i));
    }

    private static boolean isNameChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.';
    }

    /** Percent-decoding, repeated for a value encoded twice; bad escapes stay as they are. */
    static String decode(String s) {
        String v = s;
        for (int round = 0; round < 2 && v.indexOf('%') >= 0; round++) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(v.length());
            for (int i = 0; i < v.length(); i++) {
                char c = v.charAt(i);
                if (c == '%' && i + 2 < v.length() && hex(v.charAt(i + 1)) >= 0 && hex(v.charAt(i + 2)) >= 0) {
                    out.write(hex(v.charAt(i + 1)) * 16 + hex(v.charAt(i + 2)));
                    i += 2;
                } else if (c == '+') {
                    out.write(' ');
                } else {
                    byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                    out.write(b, 0, b.length);
                }
            }
            v = out.toString(StandardCharsets.UTF_8);
        }
        return v;
    }

    private static int hex(char c) {
        return Character.digit(c, 16);
    }
}
