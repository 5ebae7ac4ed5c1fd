package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns a ranking of memories and passages into a ranking of memories: each passage stands for
 * the memory it belongs to ({@link Memory#PASSAGE_OF}), a memory takes the place and score of its
 * best-ranked candidate (itself or one of its passages), and its hit carries its best passage. A
 * passage whose memory is gone (deleted since) is returned as a hit of its own. With a passage
 * weight ({@link RerankOptions#passageWeight()}) a memory also gains that share of what its next
 * {@link RerankOptions#MORE_PASSAGES} best candidates matched by, shown in its rerank part, and the
 * memories are sorted again. Only new evidence counts: a further candidate's dense contribution
 * when it came from a vector not counted yet, and its lexical contribution when its text holds a
 * query word that none of the memory's earlier candidates holds in its indexed text
 * ({@link LexicalText}: a passage's header without the request it quotes). The same words again
 * (a commit message in the command and in its output) are not more evidence than the same vector
 * again.
 *
 * <p>A hit carries its memory's best passage and, after it, at most {@value #MORE_PASSAGES_SHOWN}
 * further passages among its candidates, in their order: each one that holds a query word the
 * passages returned before it lack, or that scored at least {@value #SHOWN_SHARE} of the best
 * passage. The answer is often in the record next to the one that matched best (the command's
 * output beside the command, the file written beside the reasoning about it), a question often
 * asks two things that two records answer, and a second passage costs far less context than the
 * whole exchange.
 */
final class Rollup {

    /** Most further passages a hit returns besides its best one. */
    static final int MORE_PASSAGES_SHOWN = 2;
    /**
     * The share of the best passage's score from which a further passage is returned with it
     * whatever words it holds (one that holds a query word the passages returned before it lack
     * needs none).
     */
    static final double SHOWN_SHARE = 0.8;

    /** Reads stored memories by id. */
    @FunctionalInterface
    interface Lookup {
        Map<String, Memory> byIds(List<String> ids) throws SQLException;
    }

    private Rollup() {
    }

    /** How many further candidates of a memory have added to its bonus so far. */
    private static double counted(Map<String, double[]> more, String key) {
        double[] counted = more.get(key);
        return counted == null ? 0 : counted[1];
    }

    /**
     * The content hash of the text whose vector stands for {@code m} in dense search: its own, or
     * its exchange's ({@link Memory#VECTOR_OF}).
     */
    private static String vectorOf(Memory m) {
        String shared = m.metadata().get(Memory.VECTOR_OF);
        return shared != null ? shared : m.contentHash();
    }

    /**
     * How many of the best candidates roll up: those the rerank stage adjusts, and at least the
     * candidates each list brings ({@link StoreOptions#candidates()}, 100 by default), whatever the
     * limit. So a memory's bonus and place, and a search's first hits and the passages they return,
     * do not depend on how many hits are asked for, and a hit returns its best passages with the
     * rerank stage off ({@link RerankOptions#NONE}, depth 1) too.
     */
    static int window(StoreOptions options) {
        return Math.max(options.rerank().depth(), options.candidates());
    }

    /**
     * @param ranked candidates, best first: the first {@code window} are rolled up (with their
     *               bonus); later ones only while fewer than {@code limit} memories have a place
     * @param limit         most hits returned
     * @param window        how many of the best candidates roll up, with their bonus and their
     *                      passages ({@link #window(StoreOptions)})
     * @param passageWeight the share of what a memory's further candidates matched by that it gains, 0 for none
     * @param lookup        reads the memories that passages belong to
     * @param queryTerms    the lexical query's terms: a further candidate's lexical contribution
     *                      counts when its text holds one its memory's earlier candidates do not,
     *                      or when none is found in it (the index matched it by a form this check
     *                      does not make, such as an identifier's part);
     *                      empty counts every lexical contribution
     * @return at most {@code limit} hits, best first, each memory once
     */
    static List<SearchHit> apply(List<SearchHit> ranked, int limit, int window, double passageWeight, Lookup lookup,
                                 List<String> queryTerms) throws SQLException {
        List<String> queryStems = Rerank.stems(queryTerms);
        List<String> stems = passageWeight > 0 ? queryStems : List.of();
        Map<String, SearchHit> groups = new LinkedHashMap<>();
        Map<String, SearchHit> passageOf = new LinkedHashMap<>(); // per memory: its best passage's candidate
        Map<String, List<Memory>> morePassages = new HashMap<>();
        Map<String, double[]> more = new HashMap<>(); // per memory: the bonus, the candidates counted
        // Per memory with a further candidate (most have none, and skip hashing and reading texts):
        // the vectors its dense matches came from, and the query stems its candidates held.
        Map<String, Set<String>> vectors = new HashMap<>();
        Map<String, Set<String>> words = new HashMap<>();
        // Per memory with a passage returned: the query stems its returned passages hold.
        Map<String, Set<String>> shownWords = new HashMap<>();
        for (int i = 0; i < ranked.size(); i++) {
            SearchHit hit = ranked.get(i);
            Memory m = hit.memory();
            String of = m.kind() == MemoryKind.PASSAGE ? m.metadata().get(Memory.PASSAGE_OF) : null;
            String key = of != null ? of : m.id();
            SearchHit first = groups.get(key);
            Set<String> held = null; // the query stems m's indexed text holds, once read
            if (i >= window) {
                // Past the window only to fill the hits asked for: when the window's candidates
                // were passages of fewer memories than that. They add no bonus.
                if (groups.size() >= limit) {
                    break;
                }
                if (first != null) {
                    continue;
                }
            }
            if (first == null) {
                // Without the bonus the order is final: stop at the limit. With it, a memory
                // further down may still climb, so every candidate's memory is kept until sorted.
                if (groups.size() == limit && passageWeight == 0) {
                    continue;
                }
                groups.put(key, hit);
            } else if (passageWeight > 0 && counted(more, key) < RerankOptions.MORE_PASSAGES) {
                // Only new evidence counts. A tool output's passages share their exchange's vector:
                // one dense match repeated adds no dense part. Nor do the same words: a lexical
                // part counts when it holds a query word new to the memory (or when the stems
                // here find none, and cannot tell).
                ScoreParts p = hit.parts();
                Memory best = first.memory();
                boolean newVector = vectors.computeIfAbsent(key, k -> new HashSet<>(Set.of(vectorOf(best))))
                        .add(vectorOf(m));
                held = Rerank.matched(LexicalText.of(m), stems);
                Set<String> before = words.computeIfAbsent(key, k -> Rerank.matched(LexicalText.of(best), stems));
                boolean newWords = held.isEmpty() || !before.containsAll(held);
                before.addAll(held);
                double evidence = (newWords ? Math.max(0, p.lexicalContribution()) : 0)
                        + (newVector ? Math.max(0, p.denseContribution()) : 0);
                if (evidence > 0) {
                    double[] counted = more.computeIfAbsent(key, k -> new double[2]);
                    counted[0] += passageWeight * evidence;
                    counted[1]++;
                }
            }
            if (of != null) {
                SearchHit best = passageOf.putIfAbsent(key, hit);
                if (best != null && best.score() > 0
                        && morePassages.getOrDefault(key, List.of()).size() < MORE_PASSAGES_SHOWN) {
                    Set<String> shown = shownWords.computeIfAbsent(key,
                            k -> Rerank.matched(LexicalText.of(best.memory()), queryStems));
                    Set<String> holds = held != null ? held : Rerank.matched(LexicalText.of(m), queryStems);
                    if (!shown.containsAll(holds) || hit.score() >= SHOWN_SHARE * best.score()) {
                        morePassages.computeIfAbsent(key, k -> new ArrayList<>(MORE_PASSAGES_SHOWN)).add(m);
                        shown.addAll(holds);
                    }
                }
            }
        }
        // Each memory's hit, holding its best candidate's memory until it is known to be among
        // the first `limit`: only those whose best candidate is a passage have their memory read.
        List<Map.Entry<String, SearchHit>> placed = new ArrayList<>(groups.size());
        for (Map.Entry<String, SearchHit> e : groups.entrySet()) {
            SearchHit best = e.getValue();
            SearchHit bestPassage = passageOf.get(e.getKey());
            Memory passage = bestPassage == null ? null : bestPassage.memory();
            List<Memory> extra = morePassages.getOrDefault(e.getKey(), List.of());
            double[] bonus = more.get(e.getKey());
            SearchHit hit;
            if (bonus == null) {
                hit = new SearchHit(best.memory(), best.score(), best.parts(), passage, extra);
            } else {
                ScoreParts p = best.parts();
                ScoreParts parts = ScoreParts.of(p.denseRank(), p.denseSimilarity(), p.lexicalRank(), p.lexicalScore(),
                        p.denseContribution(), p.lexicalContribution(), p.rerankAdjustment() + bonus[0]);
                hit = new SearchHit(best.memory(), parts.fused(), parts, passage, extra);
            }
            placed.add(Map.entry(e.getKey(), hit));
        }
        if (passageWeight > 0) {
            // stable: ties keep their order
            placed.sort(Comparator.comparingDouble((Map.Entry<String, SearchHit> e) -> e.getValue().score()).reversed());
        }
        if (placed.size() > limit) {
            placed = placed.subList(0, limit);
        }
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, SearchHit> e : placed) {
            if (!e.getValue().memory().id().equals(e.getKey())) {
                missing.add(e.getKey());
            }
        }
        Map<String, Memory> owners = missing.isEmpty() ? Map.of() : lookup.byIds(missing);
        List<SearchHit> hits = new ArrayList<>(placed.size());
        for (Map.Entry<String, SearchHit> e : placed) {
            SearchHit h = e.getValue();
            Memory owner = h.memory().id().equals(e.getKey()) ? h.memory() : owners.get(e.getKey());
            if (owner == null) {
                owner = h.passage(); // the passage's memory is gone: the passage is a hit of its own
            }
            hits.add(owner == h.memory() ? h : new SearchHit(owner, h.score(), h.parts(), h.passage(), h.morePassages()));
        }
        return hits;
    }
}
