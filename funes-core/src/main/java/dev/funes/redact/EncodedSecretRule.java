package dev.funes.redact;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Secrets encoded in base64, which anyone can decode: a Basic authorization
 * ({@code dXNlcjpodW50ZXIy}, {@code user:hunter2}) echoed by {@code base64} or sent in a
 * header, a Kubernetes secret's {@code data}, a Docker {@code config.json}, an encoded
 * {@code .env}. A run of base64 that decodes to text goes whole when the other rules find a
 * secret in that text, or when the text is {@code user:password} and the words around say
 * it is one ({@code basic}, {@code base64}, {@code auth}, {@code credential}).
 */
final class EncodedSecretRule implements Rule {

    static final String TYPE = "encoded-secret";
    private static final int MIN = 12;
    /** Longer runs are data (images, archives), too costly to decode on every string for what they seldom hold. */
    private static final int MAX = 8192;
    /** How far before the run the words that say it is a credential may stand. */
    private static final int CONTEXT = 200;
    private static final String[] PAIR_CONTEXT = {"basic", "base64", "auth", "b64", "credential", "encode"};
    private static final Pattern PAIR = Pattern.compile("[^:\\s]{1,64}+:[^\\s]{3,}+");

    private final List<Rule> inner;

    /** {@code inner}: the rules the decoded text is redacted with. */
    EncodedSecretRule(List<Rule> inner) {
        this.inner = List.copyOf(inner);
    }

    @Override
    public void find(Input input, Sink sink) {
        String text = input.text;
        int n = text.length();
        int i = 0;
        while (i < n) {
            if (!isBase64(text.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            boolean url = false;
            boolean std = false;
            while (i < n && isBase64(text.charAt(i))) {
                char c = text.charAt(i);
                url |= c == '-' || c == '_';
                std |= c == '+' || c == '/';
                i++;
            }
            int end = i;
            while (end < n && text.charAt(end) == '=' && end - i < 2) {
                end++;
            }
            int s = start;
            if (s >= 1 && text.charAt(s - 1) == '\\' && "nrt".indexOf(text.charAt(s)) >= 0) {
                s++; // after a JSON-escaped newline
            }
            int length = end - s;
            if (length < MIN || length > MAX || length % 4 != 0 || url && std
                    || end < n && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '=')) {
                i = Math.max(i, end);
                continue;
            }
            // Most runs are words or data: the first four characters already decode to something unprintable.
            if (!printablePrefix(text, s, url)) {
                i = end;
                continue;
            }
            String decoded = decode(text.substring(s, end), url);
            if (decoded != null && holdsSecret(decoded, input.lower(), s)) {
                sink.found(s, end, TYPE);
            }
            i = end;
        }
    }

    private boolean holdsSecret(String decoded, String lower, int at) {
        if (PAIR.matcher(decoded).matches() && !decoded.contains("://") && near(lower, at)) {
            return true;
        }
        Input in = new Input(decoded);
        boolean[] found = {false};
        for (Rule r : inner) {
            r.find(in, (s, e, type) -> found[0] = true);
            if (found[0]) {
                return true;
            }
        }
        return false;
    }

    private static boolean near(String lower, int at) {
        String before = lower.substring(Math.max(0, at - CONTEXT), at);
        for (String w : PAIR_CONTEXT) {
            if (before.contains(w)) {
                return true;
            }
        }
        return false;
    }

    /** The text the run encodes, or null when it is not base64 of printable text. */
    static String decode(String run, boolean url) {
        byte[] bytes;
        try {
            bytes = (url ? Base64.getUrlDecoder() : Base64.getDecoder()).decode(run);
        } catch (IllegalArgumentException e) {
            return null;
        }
        for (byte b : bytes) {
            if (b >= 0 && b < 0x20 && b != '\n' && b != '\r' && b != '\t' || b == 0x7F) {
                return null;
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    private static boolean printablePrefix(String text, int s, boolean url) {
        int bits = 0;
        for (int k = 0; k < 4; k++) {
            int v = value(text.charAt(s + k), url);
            if (v < 0) {
                return false;
            }
            bits = bits << 6 | v;
        }
        for (int shift = 16; shift >= 0; shift -= 8) {
            int b = bits >> shift & 0xFF;
            if (b < 0x20 && b != '\n' && b != '\r' && b != '\t' || b == 0x7F) {
                return false;
            }
        }
        return true;
    }

    private static int value(char c, boolean url) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        if (c == (url ? '-' : '+')) {
            return 62;
        }
        return c == (url ? '_' : '/') ? 63 : -1;
    }

    private static boolean isBase64(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '-'
                || c == '_';
    }

    @Override
    public String toString() {
        return TYPE + " (" + inner.size() + " rules inside)";
    }
}
