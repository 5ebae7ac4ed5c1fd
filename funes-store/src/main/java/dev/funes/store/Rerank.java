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
        for (int i = 0; i < words.size(); i++) {
            Integer t = index.get(stem(words.get(i)));
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
        for (String word : words(text)) {
            String s = stem(word);
            if (queryStems.contains(s)) {
                found.add(s);
            }
        }
        return found;
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

    private static final String[] SUFFIXES = {"ing", "ed", "es", "s"};

    /** A crude English stem, enough to match {@code tests} with {@code test}: a few suffixes off. */
    static String stem(String word) {
        String w = Objects.requireNonNull(word).toLowerCase(Locale.ROOT);
        for (String suffix : SUFFIXES) {
            if (w.length() > suffix.length() + 3 && w.endsWith(suffix)) {
                return w.substring(0, w.length() - suffix.length());
            }
        }
        return w;
    }
}
