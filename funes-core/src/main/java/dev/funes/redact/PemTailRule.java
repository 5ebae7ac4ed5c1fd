package dev.funes.redact;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The end of a PEM private key whose beginning is not in the text (a cut took it, or a command
 * printed the last lines): the lines of base64 just before {@code -----END ... PRIVATE KEY-----},
 * and that line. Read backwards from each END line, so a long text of base64 lines costs one
 * pass however many there are.
 */
final class PemTailRule implements Rule {

    private static final Pattern LABEL = Pattern.compile("[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----");
    /** Longest body read back from an END line. */
    private static final int MAX_BODY = 20000;
    /** Every line but the last is a full line of a key: shorter ones are not a key's. */
    private static final int MIN_LINE = 16;

    @Override
    public void find(Input input, Sink sink) {
        String text = input.text;
        if (!text.contains("PRIVATE KEY")) {
            return;
        }
        Matcher label = LABEL.matcher(text);
        for (int at = text.indexOf("-----END"); at >= 0; at = text.indexOf("-----END", at + 8)) {
            label.region(at + 8, text.length());
            if (!label.lookingAt()) {
                continue;
            }
            int start = bodyStart(text, at);
            if (start >= 0) {
                sink.found(start, label.end(), "private-key");
            }
        }
    }

    /** Where the base64 lines before the END line at {@code end} begin, or -1 when there are none. */
    private static int bodyStart(String text, int end) {
        int p = end;
        int start = -1;
        int lines = 0;
        while (p > 0 && end - p < MAX_BODY) {
            int q = skipSeparatorsBack(text, p);
            if (q == p && lines > 0) {
                break; // the line before runs into other text
            }
            int r = q;
            while (r > 0 && isBase64(text.charAt(r - 1))) {
                r--;
            }
            if (r >= 1 && text.charAt(r - 1) == '\\' && r < q && "nrt".indexOf(text.charAt(r)) >= 0) {
                r++; // \nMIIE...: the line starts after the escape
            }
            int length = q - r;
            if (length == 0 || lines > 0 && length < MIN_LINE || r > 0 && !separatorBefore(text, r)) {
                break;
            }
            if (lines == 0 && length < MIN_LINE) {
                // A short last line: it counts only with a full line before it.
                int q2 = skipSeparatorsBack(text, r);
                int r2 = q2;
                while (r2 > 0 && isBase64(text.charAt(r2 - 1))) {
                    r2--;
                }
                if (q2 - r2 < MIN_LINE) {
                    break;
                }
            }
            start = r;
            lines++;
            p = r;
        }
        return start;
    }

    /** Whether a line of base64 starting at {@code r} begins a line: after a space, a line end, an escape, or the start. */
    private static boolean separatorBefore(String text, int r) {
        char c = text.charAt(r - 1);
        return Character.isWhitespace(c) || c == 'n' && r >= 2 && text.charAt(r - 2) == '\\'
                || !isBase64(c) && c != '\\';
    }

    private static int skipSeparatorsBack(String text, int p) {
        int q = p;
        while (q > 0) {
            char c = text.charAt(q - 1);
            if (Character.isWhitespace(c)) {
                q--;
            } else if (q >= 2 && text.charAt(q - 2) == '\\' && (c == 'n' || c == 'r' || c == 't')) {
                q -= 2;
            } else {
                break;
            }
        }
        return q;
    }

    private static boolean isBase64(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=';
    }
}
