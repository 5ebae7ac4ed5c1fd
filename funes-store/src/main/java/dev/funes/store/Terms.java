package dev.funes.store;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The identifier parts of a text, for the {@code terms} column of the full-text index: what FTS5's
 * {@code unicode61} tokenizer does not find on its own. It splits words at punctuation, so
 * {@code snake_case_name} already yields {@code snake}, {@code case}, {@code name}; but it keeps
 * {@code parseHttpHeader} whole and never sees {@code store/Schema.java} as one name. For every
 * identifier-like word of the text this adds:
 *
 * <ul>
 *   <li>the parts of camelCase and PascalCase words ({@code parseHttpHeader} → {@code parse http
 *       header}; {@code HTTPServer} → {@code http server});</li>
 *   <li>the whole identifier with its separators removed, for words joined by {@code _ . - / \ ::}
 *       ({@code snake_case_name} → {@code snakecasename}, {@code dev.funes.Schema} →
 *       {@code devfunesschema}, {@code --dry-run} → {@code dryrun});</li>
 *   <li>for a path, the file name joined the same way ({@code src/main/Schema.java} →
 *       {@code schemajava}).</li>
 * </ul>
 *
 * <p>The same expansion runs over a query ({@link FtsQuery}), so {@code parse http header} finds
 * {@code parseHttpHeader} and the other way round. Terms are lower case, separated by spaces,
 * each once, in order of first appearance.
 */
final class Terms {

    /** Terms beyond this many per text are dropped; a memory is a few kilobytes at most. */
    static final int MAX_TERMS = 4000;
    /** Joined identifiers longer than this are hashes or data, not names; they are not added. */
    static final int MAX_JOINED = 64;

    private Terms() {
    }

    /** The terms of a text, space-separated; empty when it has no identifier worth expanding. */
    static String of(String text) {
        return String.join(" ", list(text, MAX_TERMS));
    }

    /** The terms of a text, at most {@code max} of them. */
    static List<String> list(String text, int max) {
        Set<String> terms = new LinkedHashSet<>();
        if (text == null) {
            return List.of();
        }
        int n = text.length();
        int i = 0;
        while (i < n && terms.size() < max) {
            // An identifier-like chunk: word characters joined by separators that keep a name whole.
            while (i < n && !isWordChar(text.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < n && (isWordChar(text.charAt(i)) || joins(text, i))) {
                i++;
            }
            if (i > start) {
                chunk(text.substring(start, i), terms, max);
            }
        }
        return new ArrayList<>(terms);
    }

    private static void chunk(String chunk, Set<String> terms, int max) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        for (int i = 0; i < chunk.length(); i++) {
            char c = chunk.charAt(i);
            if (isWordChar(c)) {
                w.append(c);
            } else if (w.length() > 0) {
                words.add(w.toString());
                w.setLength(0);
            }
        }
        if (w.length() > 0) {
            words.add(w.toString());
        }
        for (String word : words) {
            List<String> parts = camelParts(word);
            if (parts.size() > 1) {
                for (String p : parts) {
                    add(terms, p, max);
                }
            }
        }
        if (words.size() > 1) {
            add(terms, joined(words), max);
            int slash = Math.max(chunk.lastIndexOf('/'), chunk.lastIndexOf('\\'));
            if (slash >= 0 && slash < chunk.length() - 1) {
                List<String> name = new ArrayList<>();
                for (String part : chunk.substring(slash + 1).split("[^\\p{L}\\p{N}]+")) {
                    if (!part.isEmpty()) {
                        name.add(part);
                    }
                }
                if (name.size() > 1) {
                    add(terms, joined(name), max);
                }
            }
        }
    }

    /** The words run together, or empty when that is too long or has no letter (a number like 8.5). */
    private static String joined(List<String> words) {
        StringBuilder s = new StringBuilder();
        boolean letter = false;
        for (String w : words) {
            s.append(w);
            letter |= w.chars().anyMatch(Character::isLetter);
        }
        return s.length() > MAX_JOINED || !letter ? "" : s.toString();
    }

    private static void add(Set<String> terms, String term, int max) {
        if (!term.isEmpty() && terms.size() < max) {
            terms.add(term.toLowerCase(Locale.ROOT));
        }
    }

    /**
     * The camelCase parts of a word: a new part starts at an upper-case letter after a lower-case
     * letter or digit, and at the last upper-case letter of a run followed by a lower-case one
     * ({@code HTTPServer} → {@code HTTP}, {@code Server}). Digits stay with their part.
     */
    static List<String> camelParts(String word) {
        List<String> parts = new ArrayList<>();
        int start = 0;
        for (int i = 1; i < word.length(); i++) {
            char prev = word.charAt(i - 1);
            char c = word.charAt(i);
            boolean boundary = Character.isUpperCase(c)
                    && (Character.isLowerCase(prev) || Character.isDigit(prev)
                    || (Character.isUpperCase(prev) && i + 1 < word.length()
                    && Character.isLowerCase(word.charAt(i + 1))));
            if (boundary) {
                parts.add(word.substring(start, i));
                start = i;
            }
        }
        parts.add(word.substring(start));
        return parts;
    }

    static boolean isWordChar(char c) {
        return Character.isLetterOrDigit(c);
    }

    /**
     * Whether the character at {@code i} joins the words of one name ({@code snake_case},
     * {@code a.b}, {@code a-b}, paths, {@code a::b}): it is one of {@code _ . - / \\ ::} and a
     * word character or another joiner follows it.
     */
    private static boolean joins(String text, int i) {
        char c = text.charAt(i);
        boolean joiner = c == '_' || c == '.' || c == '-' || c == '/' || c == '\\'
                || (c == ':' && ((i + 1 < text.length() && text.charAt(i + 1) == ':') || (i > 0 && text.charAt(i - 1) == ':')));
        if (!joiner || i + 1 >= text.length()) {
            return false;
        }
        char next = text.charAt(i + 1);
        return isWordChar(next) || next == '_' || next == '.' || next == '-' || next == '/' || next == '\\'
                || next == ':';
    }
}
