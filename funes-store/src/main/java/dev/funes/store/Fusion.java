package dev.funes.store;

import dev.funes.Memory;
import dev.funes.Retrieval;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Fuses the dense and lexical candidate lists of one search as {@link FusionOptions} says:
 * min-max normalised scores with weights (the default) or reciprocal rank fusion. Each candidate
 * keeps what each list contributed, so a hit can explain its score.
 *
 * <p>A single-retriever search ({@link Retrieval#DENSE}, {@link Retrieval#LEXICAL}) has one list;
 * its weight is then 1, so scores still span 0 to 1 with min-max.
 *
 * <p>Min-max rescales each list over its first {@code anchor} candidates (by rank), and a deeper
 * candidate contributes 0 from that list: a search that asks for more hits brings longer lists,
 * and its first candidates keep the scores a shorter search gives them.
 *
 * <p>Collects candidates in rank order; not thread-safe, one instance per search.
 */
final class Fusion {

    /** The usual RRF constant; it damps the difference between the first few ranks. */
    static final int K = FusionOptions.DEFAULT_RRF_K;

    /** One candidate with its ranks, raw scores and fused contributions. */
    static final class Candidate {
        final Memory memory;
        int denseRank;
        double denseSimilarity = Double.NaN;
        int lexicalRank;
        double lexicalScore = Double.NaN;
        double denseContribution;
        double lexicalContribution;
        double rerank;

        Candidate(Memory memory) {
            this.memory = memory;
        }

        double fused() {
            return denseContribution + lexicalContribution;
        }

        double score() {
            return denseContribution + lexicalContribution + rerank;
        }
    }

    /** Best score first; ties to the higher cosine similarity, then BM25, then the smaller id. */
    static final Comparator<Candidate> BY_SCORE = Comparator.comparingDouble(Candidate::score).reversed()
            .thenComparing(c -> Double.isNaN(c.denseSimilarity) ? Double.NEGATIVE_INFINITY : c.denseSimilarity,
                    Comparator.reverseOrder())
            .thenComparing(c -> Double.isNaN(c.lexicalScore) ? Double.NEGATIVE_INFINITY : c.lexicalScore,
                    Comparator.reverseOrder())
            .thenComparing(c -> c.memory.id());

    private final FusionOptions options;
    private final Retrieval retrieval;
    private final int anchor;
    private final Map<String, Candidate> candidates = new LinkedHashMap<>();

    /**
     * @param anchor how many of each list's first candidates set its min-max scale
     *               ({@link StoreOptions#candidates()}), at least 1
     */
    Fusion(FusionOptions options, Retrieval retrieval, int anchor) {
        if (anchor < 1) {
            throw new IllegalArgumentException("anchor must be at least 1, was " + anchor);
        }
        this.options = options;
        this.retrieval = retrieval;
        this.anchor = anchor;
    }

    /**
     * Adds a dense candidate. Memories that share one vector share its rank, so the caller passes
     * the rank of the vector among the vectors that had a memory passing the filters.
     */
    void dense(Memory memory, int rank, double similarity) {
        Candidate c = candidates.computeIfAbsent(memory.id(), id -> new Candidate(memory));
        if (c.denseRank == 0) {
            c.denseRank = rank;
            c.denseSimilarity = similarity;
        }
    }

    /** Adds a lexical candidate with its rank and BM25 score (higher is better). */
    void lexical(Memory memory, int rank, double score) {
        Candidate c = candidates.computeIfAbsent(memory.id(), id -> new Candidate(memory));
        if (c.lexicalRank == 0) {
            c.lexicalRank = rank;
            c.lexicalScore = score;
        }
    }

    /** Every candidate with its contributions set, best first. */
    List<Candidate> ranked() {
        double denseWeight = retrieval == Retrieval.DENSE ? 1 : retrieval == Retrieval.LEXICAL ? 0
                : options.denseWeight();
        double lexicalWeight = retrieval == Retrieval.LEXICAL ? 1 : retrieval == Retrieval.DENSE ? 0
                : options.lexicalWeight();
        List<Candidate> all = new ArrayList<>(candidates.values());
        if (options.method() == FusionOptions.Method.RRF) {
            for (Candidate c : all) {
                c.denseContribution = c.denseRank > 0 ? denseWeight / (options.rrfK() + c.denseRank) : 0;
                c.lexicalContribution = c.lexicalRank > 0 ? lexicalWeight / (options.rrfK() + c.lexicalRank) : 0;
            }
        } else {
            double[] dense = range(all, true);
            double[] lexical = range(all, false);
            for (Candidate c : all) {
                c.denseContribution = c.denseRank > 0 ? denseWeight * normalise(c.denseSimilarity, dense) : 0;
                c.lexicalContribution = c.lexicalRank > 0 ? lexicalWeight * normalise(c.lexicalScore, lexical) : 0;
            }
        }
        all.sort(BY_SCORE);
        return all;
    }

    /** Min and max of the raw scores of one list's first {@code anchor} candidates. */
    private double[] range(List<Candidate> all, boolean dense) {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (Candidate c : all) {
            int rank = dense ? c.denseRank : c.lexicalRank;
            if (rank > 0 && rank <= anchor) {
                double v = dense ? c.denseSimilarity : c.lexicalScore;
                min = Math.min(min, v);
                max = Math.max(max, v);
            }
        }
        return new double[] {min, max};
    }

    /**
     * The value rescaled to 0..1 over its list's first candidates, 0 below them; 1 when they all
     * scored the same.
     */
    private static double normalise(double value, double[] range) {
        if (value < range[0]) {
            return 0;
        }
        double span = range[1] - range[0];
        return span > 0 ? (value - range[0]) / span : 1;
    }
}
