package dev.funes.bench.eval;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The retrieval metrics, on one ranked list at a time.
 *
 * <ul>
 *   <li><b>Evidence recall@k</b> (LoCoMo): the fraction of a question's evidence items found among
 *       the first {@code k} results.</li>
 *   <li><b>Success@k</b> (coding set, one answer per question): 1 when any of the first {@code k}
 *       results answers, else 0; this is recall@k when a question has one relevant item.</li>
 *   <li><b>Reciprocal rank</b>: {@code 1/r} for the first relevant result at rank {@code r}, 0
 *       when none of the list (cut at the deepest k measured) is relevant.</li>
 * </ul>
 */
final class Metrics {

    /** The cut-offs measured. */
    static final List<Integer> CUTOFFS = List.of(1, 5, 10, 20);
    /** The deepest cut-off: every ranked list is cut here, reciprocal rank included. */
    static final int DEPTH = 20;

    private Metrics() {
    }

    /**
     * Fraction of {@code relevant} present among the first {@code k} of {@code ranked}; duplicates
     * in the ranking count once.
     *
     * @throws IllegalArgumentException if {@code relevant} is empty (recall is undefined) or k < 1
     */
    static double recallAt(List<String> ranked, Set<String> relevant, int k) {
        if (relevant.isEmpty()) {
            throw new IllegalArgumentException("recall is undefined without relevant items");
        }
        if (k < 1) {
            throw new IllegalArgumentException("k must be >= 1, was " + k);
        }
        long found = relevant.stream().filter(r -> ranked.subList(0, Math.min(k, ranked.size())).contains(r)).count();
        return (double) found / relevant.size();
    }

    /** 1 if any of the first {@code k} results is relevant, else 0. */
    static <T> double successAt(List<T> ranked, Predicate<T> relevant, int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be >= 1, was " + k);
        }
        for (int i = 0; i < Math.min(k, ranked.size()); i++) {
            if (relevant.test(ranked.get(i))) {
                return 1;
            }
        }
        return 0;
    }

    /** {@code 1/r} for the first relevant result at 1-based rank {@code r}, or 0 if there is none. */
    static <T> double reciprocalRank(List<T> ranked, Predicate<T> relevant) {
        for (int i = 0; i < ranked.size(); i++) {
            if (relevant.test(ranked.get(i))) {
                return 1.0 / (i + 1);
            }
        }
        return 0;
    }

    /** Sums per-question scores at each cut-off and their reciprocal ranks; not thread-safe. */
    static final class Mean {
        private final double[] sums = new double[CUTOFFS.size()];
        private double reciprocalRanks;
        private int questions;

        /** Adds one question's scores, one per {@link #CUTOFFS} entry, and its reciprocal rank. */
        void add(double[] atCutoffs, double reciprocalRank) {
            if (atCutoffs.length != sums.length) {
                throw new IllegalArgumentException("expected " + sums.length + " scores, got " + atCutoffs.length);
            }
            for (int i = 0; i < sums.length; i++) {
                sums[i] += atCutoffs[i];
            }
            reciprocalRanks += reciprocalRank;
            questions++;
        }

        /** Adds everything another mean holds. */
        void addAll(Collection<Mean> others) {
            for (Mean other : others) {
                for (int i = 0; i < sums.length; i++) {
                    sums[i] += other.sums[i];
                }
                reciprocalRanks += other.reciprocalRanks;
                questions += other.questions;
            }
        }

        int questions() {
            return questions;
        }

        /** The mean score at cut-off {@code CUTOFFS.get(index)}; NaN with no question. */
        double at(int index) {
            return questions == 0 ? Double.NaN : sums[index] / questions;
        }

        /** The mean score at cut-off {@code k}, which must be one of {@link #CUTOFFS}. */
        double atK(int k) {
            int index = CUTOFFS.indexOf(k);
            if (index < 0) {
                throw new IllegalArgumentException("k " + k + " is not measured; cut-offs: " + CUTOFFS);
            }
            return at(index);
        }

        /** The mean reciprocal rank; NaN with no question. */
        double mrr() {
            return questions == 0 ? Double.NaN : reciprocalRanks / questions;
        }
    }
}
