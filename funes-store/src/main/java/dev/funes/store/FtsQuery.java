package dev.funes.store;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Turns a user's text into a safe FTS5 MATCH expression: the words, each quoted as a string,
 * joined with OR. User text never reaches MATCH as it is, so quotes, dashes, colons, stars and
 * FTS5 keywords (AND, NEAR, ...) are plain words or separators, never syntax.
 *
 * <p>The words are expanded like the stored {@link Terms}: {@code parseHttpHeader} also asks for
 * {@code parse}, {@code http}, {@code header}, and {@code snake_case_name} also for
 * {@code snakecasename}. Common English {@linkplain #STOP_WORDS stop words} are left out unless
 * the query has nothing else: they match almost every memory and only add noise to BM25.
 */
final class FtsQuery {

    /** Words beyond this many are dropped: they add cost and barely change a BM25 ranking. */
    static final int MAX_TERMS = 64;

    /** Function words that carry no topic; removed from lexical queries. */
    static final Set<String> STOP_WORDS = Set.of("a", "an", "the", "and", "or", "but", "if", "of", "at", "by",
            "for", "with", "about", "to", "from", "in", "on", "into", "onto", "as", "is", "are", "was", "were", "be",
            "been", "being", "am", "do", "does", "did", "doing", "have", "has", "had", "having", "i", "me", "my",
            "we", "our", "you", "your", "he", "him", "his", "she", "her", "it", "its", "they", "them", "their",
            "this", "that", "these", "those", "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
            "so", "than", "then", "there", "here", "too", "very", "can", "could", "would", "should", "will", "shall",
            "may", "might", "must", "not", "no", "any", "some", "all", "each", "just", "also", "s", "t");

    private FtsQuery() {
    }

    /**
     * The MATCH expression for the text, or empty when it has no word (only punctuation, say):
     * {@link #match} of its {@link #terms}.
     */
    static Optional<String> of(String text) {
        List<String> terms = terms(text);
        return terms.isEmpty() ? Optional.empty() : Optional.of(match(terms));
    }

    /**
     * The words and identifier terms a lexical query searches for, at most {@link #MAX_TERMS},
     * lower case, each once, in order: the words first, split like FTS5's unicode61 tokenizer
     * splits them (runs of letters, digits and combining marks), then the identifier terms of the
     * text ({@link Terms}); stop words are left out unless there is nothing else. Empty when the
     * text has no word. Also what the rerank stage measures proximity with.
     */
    static List<String> terms(String text) {
        Set<String> words = new LinkedHashSet<>();
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < text.length(); ) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (isWordChar(cp)) {
                word.appendCodePoint(cp);
            } else if (word.length() > 0) {
                words.add(word.toString().toLowerCase(Locale.ROOT));
                word.setLength(0);
            }
        }
        if (word.length() > 0) {
            words.add(word.toString().toLowerCase(Locale.ROOT));
        }
        words.addAll(Terms.list(text, MAX_TERMS));
        Set<String> terms = new LinkedHashSet<>();
        for (String w : words) {
            if (!STOP_WORDS.contains(w)) {
                terms.add(w);
            }
        }
        if (terms.isEmpty()) {
            terms = words; // only stop words: search for them rather than for nothing
        }
        List<String> list = new ArrayList<>(Math.min(terms.size(), MAX_TERMS));
        for (String term : terms) {
            if (list.size() == MAX_TERMS) {
                break;
            }
            list.add(term);
        }
        return list;
    }

    /** The MATCH expression for terms of {@link #terms}: each quoted as a string, joined with OR. */
    static String match(List<String> terms) {
        StringBuilder match = new StringBuilder();
        for (String term : terms) {
            // A word holds no '"', so wrapping it in quotes makes an FTS5 string with nothing to escape.
            match.append(match.length() == 0 ? "" : " OR ").append('"').append(term).append('"');
        }
        return match.toString();
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
