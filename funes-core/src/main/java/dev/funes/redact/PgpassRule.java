package dev.funes.redact;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lines of a PostgreSQL password file ({@code ~/.pgpass}): {@code host:port:database:user:password},
 * a line of its own (after a line number, as file viewers print them) or quoted, as echoed into
 * the file. The host holds a letter, a dot or {@code *}; the port is digits or {@code *}; the
 * password runs to the end of the line or the closing quote.
 */
final class PgpassRule implements Rule {

    private static final Pattern PORT = Pattern.compile(":(?:[0-9]{1,5}|\\*):");
    private static final Pattern REST = Pattern.compile(
            "(?:[^:\\s\\\\\"'{}(),;]|\\\\.){1,100}+:(?:[^:\\s\\\\\"'{}(),;]|\\\\.){1,100}+:"
                    + "(?<secret>(?:[^:\\s\\\\\"']|\\\\.){4,200}+)[ \\t]*+(?:$|[\"'\\r\\n])", Pattern.MULTILINE);
    private static final int MAX_HOST = 253;

    @Override
    public void find(Input input, Sink sink) {
        String text = input.text;
        if (text.indexOf(':') < 0) {
            return;
        }
        Matcher port = PORT.matcher(text);
        Matcher rest = REST.matcher(text);
        int from = 0;
        while (from < text.length() && port.find(from)) {
            from = port.start() + 1;
            int hostEnd = port.start();
            int hostStart = hostEnd;
            boolean named = false;
            while (hostStart > 0 && isHostChar(text.charAt(hostStart - 1)) && hostEnd - hostStart < MAX_HOST) {
                hostStart--;
                char c = text.charAt(hostStart);
                named |= Character.isLetter(c) || c == '.' || c == '*';
            }
            if (hostStart == hostEnd || !named || !startsLine(text, hostStart)) {
                continue;
            }
            rest.region(port.end(), text.length());
            if (rest.lookingAt() && StandardRules.isPassword(rest.group("secret"))) {
                sink.found(rest.start("secret"), rest.end("secret"), "password");
            }
        }
    }

    /** Whether the host starts a line (after indentation or a line number) or a quoted string. */
    private static boolean startsLine(String text, int at) {
        int i = at;
        if (i > 0 && (text.charAt(i - 1) == '"' || text.charAt(i - 1) == '\'' || text.charAt(i - 1) == '>')) {
            return true;
        }
        i = skipBlanks(text, i);
        if (i > 0 && text.charAt(i - 1) == '\u2192') {
            i--;
        }
        int digits = i;
        while (i > 0 && Character.isDigit(text.charAt(i - 1))) {
            i--;
        }
        if (i < digits) {
            i = skipBlanks(text, i);
        }
        return i == 0 || text.charAt(i - 1) == '\n';
    }

    private static int skipBlanks(String text, int i) {
        while (i > 0 && (text.charAt(i - 1) == ' ' || text.charAt(i - 1) == '\t')) {
            i--;
        }
        return i;
    }

    private static boolean isHostChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '*' || c == '_' || c == '.'
                || c == '-';
    }
}
