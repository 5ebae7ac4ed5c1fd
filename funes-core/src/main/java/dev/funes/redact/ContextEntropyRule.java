package dev.funes.redact;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Random-looking strings (see {@link Randomness#looksRandom}) just after a word that says a
 * secret follows: {@code key}, {@code secret}, {@code token}, {@code password}, {@code auth},
 * {@code credential}, {@code bearer}. Catches what has no known shape and no assignment, such as
 * {@code -H "X-Api-Key: 3kF9..."} or {@code the staging token is 3kF9...}. Random strings far from
 * such words (hashes, ids, base64 payloads) are left alone.
 */
final class ContextEntropyRule implements Rule {

    static final String TYPE = "high-entropy";
    /** Characters allowed between the end of the keyword and the start of the secret, on one line. */
    static final int WINDOW = 24;

    private static final String[] KEYWORDS = {"key", "secret", "token", "passw", "pwd", "auth", "credential",
            "bearer"};
    /** A candidate starting at the current position; the position before it is checked by the caller. */
    private static final Pattern CANDIDATE = Pattern.compile(
            "[A-Za-z0-9+/_-]{" + Randomness.MIN_LENGTH + ",}+={0,2}+(?![A-Za-z0-9+/=_.])");

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        String text = input.text;
        Matcher m = CANDIDATE.matcher(text);
        m.useTransparentBounds(true);
        for (String keyword : KEYWORDS) {
            for (int at = lower.indexOf(keyword); at >= 0; at = lower.indexOf(keyword, at + 1)) {
                int end = keywordEnd(lower, at, keyword);
                if (end < 0 || !wordStart(text, at)) {
                    continue;
                }
                int limit = Math.min(text.length(), end + WINDOW + 1);
                for (int i = end; i < limit; i++) {
                    char c = text.charAt(i);
                    if (c == '\n') {
                        break;
                    }
                    if (isCandidateChar(c) && (i == 0 || !isCandidateChar(text.charAt(i - 1)) && text.charAt(i - 1) != '.')) {
                        m.region(i, text.length());
                        // A name followed by ( is a method's (decodePKCS8ECPrivateKey(...)), not a key.
                        if (m.lookingAt() && !(m.end() < text.length() && text.charAt(m.end()) == '(')
                                && Randomness.looksRandom(stripPadding(m.group()))) {
                            sink.found(m.start(), m.end(), TYPE);
                        }
                    }
                }
            }
        }
    }

    /** Where the keyword at {@code at} ends, or -1 when it is only part of a longer word ({@code tokens}, {@code author}). */
    private static int keywordEnd(String lower, int at, String keyword) {
        int end = at + keyword.length();
        if ("passw".equals(keyword)) {
            if (lower.startsWith("ord", end)) {
                end += 3;
            } else if (lower.startsWith("d", end)) {
                end += 1;
            } else {
                return -1;
            }
        } else if ("auth".equals(keyword) && lower.startsWith("orization", end)) {
            end += "orization".length();
        } else if ("credential".equals(keyword) && lower.startsWith("s", end)) {
            end += 1;
        }
        return end < lower.length() && lower.charAt(end) >= 'a' && lower.charAt(end) <= 'z' ? -1 : end;
    }

    /** Whether a word starts at {@code at}: after a non-letter, or a capital after a lower-case letter (apiKey). */
    private static boolean wordStart(String text, int at) {
        if (at == 0 || !Character.isLetter(text.charAt(at - 1))) {
            return true;
        }
        return Character.isUpperCase(text.charAt(at)) && Character.isLowerCase(text.charAt(at - 1));
    }

    private static boolean isCandidateChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '+' || c == '/' || c == '_' || c == '-' || c == '=';
    }

    private static String stripPadding(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == '=') {
            end--;
        }
        return s.substring(0, end);
    }
}
