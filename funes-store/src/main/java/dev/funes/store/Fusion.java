package dev.funes.store;

import dev.funes.Memory;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reciprocal rank fusion of the dense and lexical candidate lists: a memory scores
 * {@code 1 / (K + rank)} for each list it is in. Plain RRF is a starting point; how the two lists
 * are weighed is to be tuned by measurement.
 *
 * <p>Collects candidates in rank order; not thread-safe, one instance per search.
 */
final class Fusion {

    /** The usual RRF constant; it damps the difference between the first few ranks. */
    static final int K = 60;

    private static final class Candidate {
        final Memory memory;
        int denseRank;
        double denseSimilarity = Double.NaN;
        int lexicalRank;
        double lexicalScore = Double.NaN;

        Candidate(Memory memory) {
            this.memory = memory;
        }

        double fused() {
            return (denseRank > 0 ? 1.0 / (K + denseRank) : 0) + (lexicalRank > 0 ? 1.0 / (K + lexicalRank) : 0);
        }
    }

    private final Map<String, Candidate> candidates = new LinkedHashMap<>();

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

    /**
     * The best {@code limit} candidates by fused score. Ties go to the higher cosine similarity,
     * then the higher BM25 score, then the smaller id, so equal inputs give equal output.
     */
    List<SearchHit> top(int limit) {
        List<Candidate> all = new ArrayList<>(candidates.values());
        all.sort(Comparator.comparingDouble(Candidate::fused).reversed()
                .thenComparing(c -> Double.isNaN(c.denseSimilarity) ? Double.NEGATIVE_INFINITY : c.denseSimilarity,
                        Comparator.reverseOrder())
                .thenComparing(c -> Double.isNaN(c.lexicalScore) ? Double.NEGATIVE_INFINITY : c.lexicalScore,
                        Comparator.reverseOrder())
                .thenComparing(c -> c.memory.id()));
        List<SearchHit> hits = new ArrayList<>(Math.min(limit, all.size()));
        for (Candidate c : all.subList(0, Math.min(limit, all.size()))) {
            double fused = c.fused();
            hits.add(new SearchHit(c.memory, fused,
                    new ScoreParts(c.denseRank, c.denseSimilarity, c.lexicalRank, c.lexicalScore, fused)));
        }
        return hits;
    }
}
