package dev.funes.redact;

/**
 * What a cut left of a long secret: shortening keeps the head and the tail of a text and puts
 * {@code … [N chars omitted] …} (or a lone {@code …}) between, so a key longer than the part
 * kept leaves a piece no rule for whole keys recognises, such as the signature at the end of a
 * JWT ({@code …] … fQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c}). A run of key characters
 * touching a cut mark goes when it looks like part of a key: random, or base64url parts joined
 * by dots as in a JWT. Words and paths next to a cut stay.
 */
final class CutRule implements Rule {

    private static final char ELLIPSIS = '\u2026';
    /** Shorter pieces hold too little of a secret to matter, and cannot be told from words. */
    private static final int MIN_PIECE = 12;
    private static final int MAX_PIECE = 2000;
    private static final java.util.regex.Pattern PARTS = java.util.regex.Pattern.compile("[./]");

    @Override
    public void find(Input input, Sink sink) {
        String text = input.text;
        if (text.indexOf(ELLIPSIS) < 0) {
            return;
        }
        int n = text.length();
        for (int at = 0; at < n; at++) {
            char c = text.charAt(at);
            int markEnd;
            if (c == ELLIPSIS) {
                markEnd = at + 1;
            } else {
                continue;
            }
            // The piece before the mark, with at most one space between.
            int e = at > 0 && text.charAt(at - 1) == ' ' ? at - 1 : at;
            int s = e;
            while (s > 0 && isKeyChar(text.charAt(s - 1)) && e - s <= MAX_PIECE) {
                s--;
            }
            judge(text, s, e, sink);
            // The piece after it.
            int s2 = markEnd < n && text.charAt(markEnd) == ' ' ? markEnd + 1 : markEnd;
            int e2 = s2;
            while (e2 < n && isKeyChar(text.charAt(e2)) && e2 - s2 <= MAX_PIECE) {
                e2++;
            }
            judge(text, s2, e2, sink);
            at = markEnd - 1;
        }
    }

    private static void judge(String text, int start, int end, Sink sink) {
        int s = start;
        int e = end;
        while (s < e && (text.charAt(s) == '.' || text.charAt(s) == '=' || text.charAt(s) == '-')) {
            s++;
        }
        while (e > s && (text.charAt(e - 1) == '.' || text.charAt(e - 1) == '-')) {
            e--;
        }
        if (e - s < MIN_PIECE || e - s > MAX_PIECE) {
            return; // longer runs are data, not what a cut left of a key
        }
        String piece = text.substring(s, e);
        if (piece.indexOf('+') >= 0 || piece.indexOf('=') >= 0) {
            return; // standard base64 data (a signature, an image); keys and JWTs are base62 or base64url
        }
        String type = null;
        boolean dotted = piece.indexOf('.') > 0;
        // Judged part by part: a path or a version next to a cut has short or plain parts.
        for (String part : PARTS.split(piece)) {
            if (part.startsWith("eyJ") && part.length() >= MIN_PIECE) {
                type = "jwt";
                break;
            }
            String body = stripPadding(part);
            // A digit, as pieces of keys nearly always have: names and words next to a cut have none.
            if (body.length() >= MIN_PIECE && body.chars().anyMatch(Character::isDigit)
                    && (Randomness.looksRandom(body) || Randomness.isRandomish(body))) {
                type = dotted && isBase64Url(piece) ? "jwt" : "high-entropy";
            }
        }
        if (type != null) {
            sink.found(s, e, type);
        }
    }

    private static String stripPadding(String s) {
        int e = s.length();
        while (e > 0 && s.charAt(e - 1) == '=') {
            e--;
        }
        return s.substring(0, e);
    }

    private static boolean isBase64Url(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) && c < 128 || c == '-' || c == '_' || c == '.')) {
                return false;
            }
        }
        return true;
    }

    private static boolean isKeyChar(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/'
                || c == '=' || c == '_' || c == '-' || c == '.';
    }
}
