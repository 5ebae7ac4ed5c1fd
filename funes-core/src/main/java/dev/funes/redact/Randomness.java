package dev.funes.redact;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Whether a string looks machine-generated (a key) rather than written (a word, a name, a path). */
final class Randomness {

    /** Shortest string judged; shorter random strings cannot be told from words. */
    static final int MIN_LENGTH = 20;
    /** Shortest string with no digit judged: letters-only keys exist (1 in 300 random base62 of 32). */
    static final int MIN_LENGTH_NO_DIGIT = 24;
    /** Entropy asked of long strings, in bits per character: random base62 of 40 characters has about 4.8. */
    static final double MAX_ENTROPY_ASKED = 4.0;
    /**
     * Share of letter pairs outside {@link #COMMON_PAIRS} below which a string reads as words:
     * 95% of the identifiers of 20 characters or more in CPython's standard library are below
     * 0.33, random base62 of 32 characters is above 0.3 in 99.99% of draws.
     */
    static final double MIN_RARE_PAIRS = 0.3;

    /**
     * The letter pairs that make 90% of the pairs in the words of CPython's standard library
     * (179 of 676), counted once to build this list; words and identifiers are mostly made of them.
     */
    private static final Set<String> COMMON_PAIRS = new HashSet<>(java.util.List.of((
            "ab ac ad ag ai al am an ap ar as at ba be bj bl bo bu by ca ce ch ci ck cl co cr ct cu da de di do du "
            + "ea ec ed ee ef el em en ep er es et ev ex fa fe ff fi fo fr fu ge gi gs ha he hi ho ia ib ic id ie if "
            + "ig il im in io ip ir is it ke la ld le lf li ll lo ls lt lu ly ma me mi mo mp na nc nd ne ng ni no ns "
            + "nt nu ob oc od of ol om on oo op or os ot ou ow pa pe pi pl po pp pr pt qu ra rc re rg ri rm rn ro rr "
            + "rs rt ru ry sa sc se sh si sm so sp ss st su sy ta te th ti to tr ts tt tu ty ue ul um un up ur us ut "
            + "va ve wa wh wi xc xt yp yt").split(" ")));

    /** {@link #COMMON_PAIRS} as a table indexed by the two letters, looked up for every pair judged. */
    private static final boolean[] COMMON = new boolean[26 * 26];

    static {
        for (String p : COMMON_PAIRS) {
            COMMON[(p.charAt(0) - 'a') * 26 + (p.charAt(1) - 'a')] = true;
        }
    }

    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]+");

    private Randomness() {
    }

    /** Shannon entropy of the characters of {@code s}, in bits per character. */
    static double entropy(CharSequence s) {
        int n = s.length();
        if (n == 0) {
            return 0;
        }
        int[] counts = new int[128];
        Map<Character, Integer> others = null;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 128) {
                counts[c]++;
            } else {
                if (others == null) {
                    others = new HashMap<>();
                }
                others.merge(c, 1, Integer::sum);
            }
        }
        double h = 0;
        for (int c : counts) {
            h -= term(c, n);
        }
        if (others != null) {
            for (int c : others.values()) {
                h -= term(c, n);
            }
        }
        return h;
    }

    private static double term(int count, int n) {
        if (count == 0) {
            return 0;
        }
        double p = (double) count / n;
        return p * Math.log(p) / Math.log(2);
    }

    /**
     * Whether {@code s} looks like a generated key: at least {@value #MIN_LENGTH} characters
     * with letters and digits (or {@value #MIN_LENGTH_NO_DIGIT} of both cases), close to the
     * entropy of random base62 of that length, with many letter pairs that words rarely have;
     * and not a UUID, a SHA-1/SHA-256 digest (git and content hashes are everywhere in agent logs
     * and are not secrets), or a run such as {@code abcdef...0123456789}.
     */
    static boolean looksRandom(String s) {
        int n = s.length();
        if (n < MIN_LENGTH) {
            return false;
        }
        Shape k = Shape.of(s);
        if (!k.upper && !k.lower || !k.digit && (n < MIN_LENGTH_NO_DIGIT || !k.upper || !k.lower)
                || k.steps * 2 >= n) {
            return false;
        }
        if ((n == 40 || n == 64) && HEX.matcher(s).matches() || UUID.matcher(s).find()) {
            return false;
        }
        return entropy(s) >= asked(n) && rarePairShare(s) >= MIN_RARE_PAIRS;
    }

    /**
     * A weaker test for pieces of 12 characters or more, where something says a key may stand
     * (a cut went through it, a known prefix was glued to a word): letters and digits, upper
     * and lower case or base64 symbols, entropy within one bit of random, and rare letter pairs;
     * never hex alone, a UUID or a run.
     */
    static boolean isRandomish(String s) {
        int n = s.length();
        if (n >= MIN_LENGTH && looksRandom(s)) {
            return true;
        }
        if (n < 12) {
            return false;
        }
        Shape k = Shape.of(s);
        if (!k.digit || !(k.upper || k.lower) || !(k.upper && k.lower || k.symbol) || k.steps * 2 >= n) {
            return false;
        }
        if (HEX.matcher(s).matches() || UUID.matcher(s).find()) {
            return false;
        }
        return entropy(s) >= Math.log(n) / Math.log(2) - 1.0 && rarePairShare(s) >= MIN_RARE_PAIRS;
    }

    /**
     * Entropy asked of a string of length {@code n}: random base62 has about log2(n) bits per
     * character when n is small; 0.7 bit below keeps 99% of 20-character keys and drops names
     * such as my-service-name-v2-prod.
     */
    private static double asked(int n) {
        return Math.min(MAX_ENTROPY_ASKED, Math.log(n) / Math.log(2) - 0.7);
    }

    /**
     * The share of adjacent letter pairs (case ignored) that words seldom have; 1 when there are
     * fewer than 4 pairs to judge (hex, digits).
     */
    static double rarePairShare(String s) {
        int pairs = 0;
        int rare = 0;
        for (int i = 1; i < s.length(); i++) {
            char a = Character.toLowerCase(s.charAt(i - 1));
            char b = Character.toLowerCase(s.charAt(i));
            if (a >= 'a' && a <= 'z' && b >= 'a' && b <= 'z') {
                pairs++;
                if (!COMMON[(a - 'a') * 26 + (b - 'a')]) {
                    rare++;
                }
            }
        }
        return pairs < 4 ? 1.0 : (double) rare / pairs;
    }

    /**
     * Which character classes a string holds ({@code symbol}: base64 and token symbols
     * {@code + / _ -}), and how many characters follow their predecessor in code order (a run).
     */
    private record Shape(boolean upper, boolean lower, boolean digit, boolean symbol, int steps) {

        static Shape of(String s) {
            boolean upper = false;
            boolean lower = false;
            boolean digit = false;
            boolean symbol = false;
            int steps = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                upper |= c >= 'A' && c <= 'Z';
                lower |= c >= 'a' && c <= 'z';
                digit |= c >= '0' && c <= '9';
                symbol |= c == '+' || c == '/' || c == '_' || c == '-';
                if (i > 0 && c == s.charAt(i - 1) + 1) {
                    steps++;
                }
            }
            return new Shape(upper, lower, digit, symbol, steps);
        }
    }
}
