package dev.funes.redact;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Whether a string looks machine-generated (a key) rather than written (a word, a name, a path). */
final class Randomness {

    /** Shortest string judged; shorter random strings cannot be told from words. */
    static final int MIN_LENGTH = 20;
    /** Entropy asked of long strings, in bits per character: random base62 of 40 characters has about 4.8. */
    static final double MAX_ENTROPY_ASKED = 4.0;
    /** Share of characters in word-like runs above which a string reads as identifiers or prose. */
    static final double MAX_WORD_SHARE = 0.75;

    private static final Pattern UUID = Pattern.compile(
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final Pattern HEX = Pattern.compile("[0-9a-fA-F]+");
    private static final Pattern WORDS = Pattern.compile("[A-Z]?[a-z]{3,}|[A-Z]{3,}(?![a-z])");

    private Randomness() {
    }

    /** Shannon entropy of the characters of {@code s}, in bits per character. */
    static double entropy(CharSequence s) {
        int n = s.length();
        if (n == 0) {
            return 0;
        }
        int[] counts = new int[128];
        java.util.Map<Character, Integer> others = null;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 128) {
                counts[c]++;
            } else {
                if (others == null) {
                    others = new java.util.HashMap<>();
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
     * Whether {@code s} looks like a generated key: at least {@value #MIN_LENGTH} characters,
     * letters and digits, close to the entropy of random base62 of that length, not mostly
     * word-like runs (camelCase or kebab-case names, paths), and not a UUID or a SHA-1/SHA-256
     * digest (git and content hashes are everywhere in agent logs and are not secrets).
     */
    static boolean looksRandom(String s) {
        int n = s.length();
        if (n < MIN_LENGTH) {
            return false;
        }
        boolean letter = false;
        boolean digit = false;
        for (int i = 0; i < n && !(letter && digit); i++) {
            char c = s.charAt(i);
            letter |= c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
            digit |= c >= '0' && c <= '9';
        }
        if (!letter || !digit) {
            return false;
        }
        if ((n == 40 || n == 64) && HEX.matcher(s).matches() || UUID.matcher(s).find()) {
            return false;
        }
        // Random base62 of length n has an entropy near log2(n) for short strings; 0.7 bit below
        // keeps 99% of 20-character keys and drops names such as my-service-name-v2-prod.
        double asked = Math.min(MAX_ENTROPY_ASKED, Math.log(n) / Math.log(2) - 0.7);
        if (entropy(s) < asked) {
            return false;
        }
        return wordShare(s) <= MAX_WORD_SHARE;
    }

    /** The share of characters in runs that read as words: {@code User}, {@code name}, {@code HTTP}. */
    static double wordShare(String s) {
        int covered = 0;
        Matcher m = WORDS.matcher(s);
        while (m.find()) {
            covered += m.end() - m.start();
        }
        return (double) covered / s.length();
    }
}
