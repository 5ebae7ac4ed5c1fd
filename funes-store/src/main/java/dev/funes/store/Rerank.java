package dev.funes.store;

import dev.funes.Memory;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local rerank stage ({@link RerankOptions}): a term-proximity bonus and the demotion of
 * near-duplicates from one session, over the best fused candidates. Pure computation over the
 * candidates' texts; no model, no network.
 */
final class Rerank {

    private Rerank() {
    }

    /**
     * Adjusts the best {@code options.depth()} candidates (already sorted best first), sorts all
     * again and returns the best {@code limit} as hits.
     *
     * @param queryTerms the lexical query's terms ({@link FtsQuery#terms}), for proximity
     */
    static List<SearchHit> apply(List<Fusion.Candidate> ranked, List<String> queryTerms, RerankOptions options,
                                 int limit) {
        List<Fusion.Candidate> all = ranked;
        if (options.enabled() && !ranked.isEmpty()) {
            int depth = Math.min(options.depth(), ranked.size());
            List<Fusion.Candidate> top = ranked.subList(0, depth);
            if (options.proximityWeight() > 0) {
                List<String> terms = stems(queryTerms);
                for (Fusion.Candidate c : top) {
                    c.rerank += options.proximityWeight() * proximity(LexicalText.of(c.memory), terms);
                }
            }
            if (options.duplicateWeight() > 0) {
                List<Fusion.Candidate> order = new ArrayList<>(top);
                order.sort(Fusion.BY_SCORE);
                demoteDuplicates(order, options);
            }
            all = new ArrayList<>(ranked);
            all.sort(Fusion.BY_SCORE);
        }
        List<SearchHit> hits = new ArrayList<>(Math.min(limit, all.size()));
        for (Fusion.Candidate c : all.subList(0, Math.min(limit, all.size()))) {
            ScoreParts parts = ScoreParts.of(c.denseRank, c.denseSimilarity, c.lexicalRank, c.lexicalScore,
                    c.denseContribution, c.lexicalContribution, c.rerank);
            hits.add(new SearchHit(c.memory, parts.fused(), parts));
        }
        return hits;
    }

    /** Demotes every candidate near-identical to a higher one of the same session. */
    private static void demoteDuplicates(List<Fusion.Candidate> order, RerankOptions options) {
        Map<String, List<Integer>> bySession = new HashMap<>();
        List<Set<Long>> shingles = new ArrayList<>(order.size());
        for (int i = 0; i < order.size(); i++) {
            Memory m = order.get(i).memory;
            shingles.add(null);
            if (m.session() == null) {
                continue;
            }
            String key = m.agent() + '\u0000' + m.session();
            List<Integer> earlier = bySession.computeIfAbsent(key, k -> new ArrayList<>());
            if (!earlier.isEmpty()) {
                Set<Long> mine = shingles(m.text());
                shingles.set(i, mine);
                for (int j : earlier) {
                    Set<Long> theirs = shingles.get(j);
                    if (theirs == null) {
                        theirs = shingles(order.get(j).memory.text());
                        shingles.set(j, theirs);
                    }
                    if (jaccard(mine, theirs) >= options.duplicateSimilarity()) {
                        order.get(i).rerank -= options.duplicateWeight();
                        break;
                    }
                }
            }
            earlier.add(i);
        }
    }

    /** Word 3-shingles of a text, hashed; a text of fewer than three words is one shingle. */
    static Set<Long> shingles(String text) {
        List<String> words = words(text);
        Set<Long> set = new HashSet<>();
        if (words.size() < 3) {
            set.add((long) words.hashCode());
            return set;
        }
        for (int i = 0; i + 3 <= words.size(); i++) {
            long h = words.get(i).hashCode();
            h = h * 0x9E3779B97F4A7C15L + words.get(i + 1).hashCode();
            h = h * 0x9E3779B97F4A7C15L + words.get(i + 2).hashCode();
            set.add(h);
        }
        return set;
    }

    static double jaccard(Set<Long> a, Set<Long> b) {
        if (a.isEmpty() && b.isEmpty()) {
            return 1;
        }
        int small = Math.min(a.size(), b.size());
        int large = Math.max(a.size(), b.size());
        if (small == 0) {
            return 0;
        }
        Set<Long> iter = a.size() <= b.size() ? a : b;
        Set<Long> other = iter == a ? b : a;
        int common = 0;
        for (Long s : iter) {
            if (other.contains(s)) {
                common++;
            }
        }
        return (double) common / (small + large - common);
    }

    /**
     * The proximity of the query terms in the text, 0 to 1: {@code (m / q) × (m / w)} where
     * {@code q} is the number of query terms, {@code m} how many of them occur in the text, and
     * {@code w} the smallest window of words holding one occurrence of each; 0 when {@code m < 2}.
     */
    static double proximity(String text, List<String> queryStems) {
        int q = queryStems.size();
        if (q < 2) {
            return 0;
        }
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < q; i++) {
            index.putIfAbsent(queryStems.get(i), index.size());
        }
        q = index.size();
        if (q < 2) {
            return 0;
        }
        List<String> words = words(text);
        int[] termAt = new int[words.size()];
        boolean[] seen = new boolean[q];
        int m = 0;
        int[] heads = heads(queryStems);
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            Integer t = mayStemTo(word, heads) ? index.get(stem(word)) : null;
            termAt[i] = t == null ? -1 : t;
            if (t != null && !seen[t]) {
                seen[t] = true;
                m++;
            }
        }
        if (m < 2) {
            return 0;
        }
        // Smallest window holding every matched term: two pointers over the positions.
        int[] count = new int[q];
        int covered = 0;
        int best = Integer.MAX_VALUE;
        int left = 0;
        for (int right = 0; right < termAt.length; right++) {
            if (termAt[right] < 0) {
                continue;
            }
            if (count[termAt[right]]++ == 0) {
                covered++;
            }
            while (covered == m) {
                if (termAt[left] >= 0) {
                    best = Math.min(best, right - left + 1);
                    if (--count[termAt[left]] == 0) {
                        covered--;
                    }
                }
                left++;
            }
        }
        return ((double) m / q) * ((double) m / best);
    }

    /** The lower-case words of a text; camelCase words also give their parts, at the same place. */
    static List<String> words(String text) {
        List<String> words = new ArrayList<>();
        int start = -1;
        for (int i = 0; i <= text.length(); i++) {
            if (i < text.length() && Character.isLetterOrDigit(text.charAt(i))) {
                if (start < 0) {
                    start = i;
                }
            } else if (start >= 0) {
                String word = text.substring(start, i);
                words.add(word.toLowerCase(Locale.ROOT));
                // Only a capital after the first letter can start a camelCase part: most words
                // have none, and skip building their parts (this runs over every reranked text).
                if (hasInnerCapital(word)) {
                    List<String> parts = Terms.camelParts(word);
                    if (parts.size() > 1) {
                        for (String p : parts) {
                            words.add(p.toLowerCase(Locale.ROOT));
                        }
                    }
                }
                start = -1;
            }
        }
        return words;
    }

    private static boolean hasInnerCapital(String word) {
        for (int i = 1; i < word.length(); i++) {
            if (Character.isUpperCase(word.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The query stems ({@link #stems}) that occur in the text, as {@link #proximity} finds them:
     * its words ({@link #words}) stemmed by {@link #stem}.
     */
    static Set<String> matched(String text, List<String> queryStems) {
        Set<String> found = new HashSet<>();
        if (queryStems.isEmpty()) {
            return found;
        }
        int[] heads = heads(queryStems);
        for (String word : words(text)) {
            if (mayStemTo(word, heads)) {
                String s = stem(word);
                if (queryStems.contains(s)) {
                    found.add(s);
                }
            }
        }
        return found;
    }

    /**
     * The first two letters of each stem, packed in an int, for {@link #mayStemTo}; {@code null}
     * when a stem is shorter than two letters (every word may then stem to it).
     */
    static int[] heads(List<String> stems) {
        int[] heads = new int[stems.size()];
        for (int i = 0; i < heads.length; i++) {
            String s = stems.get(i);
            if (s.length() < 2) {
                return null;
            }
            heads[i] = s.charAt(0) << 16 | s.charAt(1);
        }
        return heads;
    }

    /**
     * Whether a lower-case word's stem can be one of those whose {@link #heads} are given: the
     * Porter stemmer rewrites only a word's end, past its first two letters whenever the stem
     * keeps two, so a word whose first two letters begin no stem is not stemmed at all (most of a
     * text's words, which a search would otherwise stem for every candidate).
     */
    static boolean mayStemTo(String word, int[] heads) {
        if (heads == null || word.length() < 2) {
            return true;
        }
        int head = word.charAt(0) << 16 | word.charAt(1);
        for (int h : heads) {
            if (h == head) {
                return true;
            }
        }
        return false;
    }

    /** The distinct stems of the query terms, in their order. */
    static List<String> stems(List<String> terms) {
        List<String> stems = new ArrayList<>(terms.size());
        for (String t : terms) {
            String s = stem(t);
            if (!stems.contains(s)) {
                stems.add(s);
            }
        }
        return stems;
    }

    /** Past this many words the stem cache is emptied rather than grown. */
    static final int MAX_CACHED_STEMS = 100_000;
    /** Stems by lower-case word: a search stems the words of its best 100 candidates, most of them seen before. */
    private static final ConcurrentHashMap<String, String> STEMS = new ConcurrentHashMap<>();

    /**
     * A word's stem, as the full-text index's Porter stemmer makes it ({@link PorterStemmer}):
     * {@code tests}, {@code testing} and {@code tested} match {@code test}, {@code files} {@code file}.
     */
    static String stem(String word) {
        String w = Objects.requireNonNull(word).toLowerCase(Locale.ROOT);
        String s = STEMS.get(w);
        if (s == null) {
            s = PorterStemmer.stem(w);
            if (STEMS.size() >= MAX_CACHED_STEMS) {
                STEMS.clear();
            }
            STEMS.put(w, s);
        }
        return s;
    }
}
