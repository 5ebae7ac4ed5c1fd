package dev.funes.store;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a user's text into a safe FTS5 MATCH expression: the words, each quoted as a string,
 * joined with OR. User text never reaches MATCH as it is, so quotes, dashes, colons, stars and
 * FTS5 keywords (AND, NEAR, ...) are plain words or separators, never syntax.
 */
final class FtsQuery {

    /** Words beyond this many are dropped: they add cost and barely change a BM25 ranking. */
    static final int MAX_TERMS = 64;

    private FtsQuery() {
    }

    /**
     * The MATCH expression for the text, or empty when it has no word (only punctuation, say).
     * Words are split like FTS5's unicode61 tokenizer splits them: runs of letters, digits and
     * combining marks.
     */
    static Optional<String> of(String text) {
        Set<String> terms = new LinkedHashSet<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < text.length() && terms.size() < MAX_TERMS; ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (isWordChar(cp)) {
                word.appendCodePoint(cp);
            } else if (word.length() > 0) {
                terms.add(word.toString().toLowerCase(Locale.ROOT));
                word.setLength(0);
            }
        }
        if (word.length() > 0 && terms.size() < MAX_TERMS) {
            terms.add(word.toString().toLowerCase(Locale.ROOT));
        }
        if (terms.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder match = new StringBuilder();
        for (String term : terms) {
            // A word holds no '"', so wrapping it in quotes makes an FTS5 string with nothing to escape.
            match.append(match.length() == 0 ? "" : " OR ").append('"').append(term).append('"');
        }
        return Optional.of(match.toString());
    }

    private static boolean isWordChar(int cp) {
        if (Character.isLetterOrDigit(cp)) {
            return true;
        }
        int type = Character.getType(cp);
        return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
                || type == Character.ENCLOSING_MARK || type == Character.PRIVATE_USE;
    }
}
