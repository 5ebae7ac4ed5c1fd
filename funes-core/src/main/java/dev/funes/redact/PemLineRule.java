package dev.funes.redact;

import java.util.ArrayList;
import java.util.List;

/**
 * Lines of a private key's body seen without the BEGIN and END lines around them
 * ({@code sed -n 5p key.pem}, a key read a few lines at a time, a diff of one): a line of base64
 * as long as PEM and OpenSSH write them (64 to 76 characters), random-looking, with words of
 * keys nearby ({@code key}, {@code pem}, {@code ssh}, {@code rsa}, {@code private}...). Lines
 * that follow one another make one block, which goes whole when any of its lines is near such a
 * word.
 */
final class PemLineRule implements Rule {

    private static final int MIN = 60;
    private static final int MAX = 76;
    /** How far from the line the words that say it is a key may stand. */
    private static final int CONTEXT = 600;
    private static final String[] CONTEXT_WORDS = {"key", "pem", "ssh", "rsa", "ecdsa", "ed25519", "private", "pkcs",
            "id_", "-----"};

    @Override
    public void find(Input input, Sink sink) {
        String lower = input.lower();
        if (!input.lowerContainsAny(CONTEXT_WORDS)) {
            return;
        }
        String text = input.text;
        int[] words = null;
        int n = text.length();
        int i = 0;
        // Lines seen one after the other make a block: found near the words, the whole block goes.
        List<int[]> block = new ArrayList<>();
        boolean near = false;
        while (i < n) {
            if (!isBase64(text.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            while (i < n && isBase64(text.charAt(i))) {
                i++;
            }
            int end = i;
            int s = start;
            // A JSON-escaped newline before the line: \nMIIE... starts after the n.
            if (s >= 1 && text.charAt(s - 1) == '\\' && s < end && "nrt".indexOf(text.charAt(s)) >= 0) {
                s++;
            }
            int e = end;
            while (e < n && text.charAt(e) == '=' && e - end < 2) {
                e++;
            }
            if (e < n && (isBase64(text.charAt(e)) || text.charAt(e) == '=')) {
                continue;
            }
            int length = e - s;
            // base64url (- and _ inside) is one longer token, not a PEM line
            if (length < MIN || length > MAX || s == start && glued(text, s - 1, -1) || glued(text, e, 1)) {
                continue;
            }
            String line = text.substring(s, end);
            if (!Randomness.looksRandom(line) && !Randomness.isRandomish(line)) {
                i = e;
                continue;
            }
            if (!block.isEmpty() && !onlyBreaks(text, block.get(block.size() - 1)[1], s)) {
                report(block, near, sink);
                block.clear();
                near = false;
            }
            if (words == null) {
                words = contextWords(lower);
            }
            block.add(new int[] {s, e});
            near |= nearKeyWords(words, s, e);
            i = e;
        }
        report(block, near, sink);
    }

    private static void report(List<int[]> block, boolean near, Sink sink) {
        if (near) {
            for (int[] line : block) {
                sink.found(line[0], line[1], "private-key");
            }
        }
    }

    /** Whether only line breaks (real or escaped), spaces and line numbers stand between two lines. */
    private static boolean onlyBreaks(String text, int from, int to) {
        if (to - from > 40) {
            return false;
        }
        for (int i = from; i < to; i++) {
            char c = text.charAt(i);
            boolean escape = c == '\\' && i + 1 < to && "nrt".indexOf(text.charAt(i + 1)) >= 0;
            if (escape) {
                i++;
            } else if (!Character.isWhitespace(c) && !Character.isDigit(c) && c != '\u2192' && c != '"' && c != ',') {
                return false;
            }
        }
        return true;
    }

    /** Whether the character at {@code i} joins the run to more key characters on the side {@code step} points to. */
    private static boolean glued(String text, int i, int step) {
        if (i < 0 || i >= text.length()) {
            return false;
        }
        char c = text.charAt(i);
        if (c == '.' || c == '%') {
            return true;
        }
        int j = i + step;
        return (c == '_' || c == '-') && j >= 0 && j < text.length() && Character.isLetterOrDigit(text.charAt(j));
    }

    /** Where the context words start, sorted; not inside placeholders, so redacting again finds what it found. */
    private static int[] contextWords(String lower) {
        List<Integer> at = new ArrayList<>();
        List<int[]> placeholders = new ArrayList<>();
        if (lower.contains("[redacted:")) {
            java.util.regex.Matcher m = Redactor.PLACEHOLDER.matcher(lower.replace("[redacted:", "[REDACTED:"));
            while (m.find()) {
                placeholders.add(new int[] {m.start(), m.end()});
            }
        }
        int[] starts = placeholders.stream().mapToInt(p -> p[0]).toArray();
        for (String w : CONTEXT_WORDS) {
            for (int i = lower.indexOf(w); i >= 0; i = lower.indexOf(w, i + w.length())) {
                int k = java.util.Arrays.binarySearch(starts, i);
                int before = k >= 0 ? k : -k - 2;
                if (before < 0 || placeholders.get(before)[1] <= i) {
                    at.add(i);
                }
            }
        }
        return at.stream().mapToInt(Integer::intValue).sorted().toArray();
    }

    /** Whether a context word starts within {@link #CONTEXT} of the line, outside it. */
    private static boolean nearKeyWords(int[] words, int s, int e) {
        int k = java.util.Arrays.binarySearch(words, Math.max(0, s - CONTEXT));
        for (int i = k >= 0 ? k : -k - 1; i < words.length && words[i] < e + CONTEXT; i++) {
            if (words[i] < s || words[i] >= e) {
                return true;
            }
        }
        return false;
    }

    private static boolean isBase64(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/';
    }
}
