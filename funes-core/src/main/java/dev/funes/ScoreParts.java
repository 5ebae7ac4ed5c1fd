package dev.funes;

import java.util.Locale;

/**
 * The parts a hit's score came from, so a caller can see why it ranked where it did.
 *
 * <p>A rank is 1-based within its candidate list, or 0 when the memory was not a candidate of
 * that retriever; the matching similarity is then {@link Double#NaN}.
 *
 * <p>The score adds up: {@code denseContribution + lexicalContribution + rerankAdjustment ==
 * fused} (up to rounding), where each contribution is what that retriever's candidate list gave
 * the hit after fusion (0 when it was not a candidate) and the rerank adjustment is what the
 * local rerank stage added (a proximity bonus, and a share of the new evidence the memory's
 * further passages matched by) or took away (a near-duplicate demotion).
 *
 * @param denseRank           rank among the dense (vector) candidates, 0 if absent
 * @param denseSimilarity     cosine similarity between query and memory embeddings, or NaN
 * @param lexicalRank         rank among the lexical (FTS5 BM25) candidates, 0 if absent
 * @param lexicalScore        BM25 score as reported by SQLite FTS5 (higher is better here), or NaN
 * @param fused               the final score, equal to the hit's score
 * @param denseContribution   the part of the score from the dense list; NaN when unknown (a hit
 *                            built with the five-argument constructor)
 * @param lexicalContribution the part of the score from the lexical list; NaN when unknown
 * @param rerankAdjustment    what the rerank stage added (positive) or took away (negative)
 */
public record ScoreParts(int denseRank, double denseSimilarity, int lexicalRank, double lexicalScore,
                         double fused, double denseContribution, double lexicalContribution,
                         double rerankAdjustment) {

    /**
     * Parts whose final score is the sum of the contributions and the adjustment.
     *
     * @param denseRank           rank among the dense candidates, 0 if absent
     * @param denseSimilarity     cosine similarity, or NaN
     * @param lexicalRank         rank among the lexical candidates, 0 if absent
     * @param lexicalScore        BM25 score (higher is better), or NaN
     * @param denseContribution   the dense list's part of the score
     * @param lexicalContribution the lexical list's part of the score
     * @param rerankAdjustment    the rerank stage's adjustment
     * @return the parts, {@code fused} being the sum
     */
    public static ScoreParts of(int denseRank, double denseSimilarity, int lexicalRank, double lexicalScore,
                                double denseContribution, double lexicalContribution, double rerankAdjustment) {
        return new ScoreParts(denseRank, denseSimilarity, lexicalRank, lexicalScore,
                denseContribution + lexicalContribution + rerankAdjustment, denseContribution, lexicalContribution,
                rerankAdjustment);
    }

    /** Whether the contributions are known, that is they and the adjustment add up to the score. */
    public boolean hasContributions() {
        return !Double.isNaN(denseContribution) && !Double.isNaN(lexicalContribution);
    }

    /**
     * One line for humans, for example
     * {@code dense #2 (0.610) 0.4512 + lexical #1 (7.30) 0.5000 + rerank -0.5000 = 0.4512}.
     */
    public String explain() {
        StringBuilder s = new StringBuilder();
        if (denseRank > 0) {
            s.append(String.format(Locale.ROOT, "dense #%d (%.3f)", denseRank, denseSimilarity));
            if (hasContributions()) {
                s.append(String.format(Locale.ROOT, " %.4f", denseContribution));
            }
        }
        if (lexicalRank > 0) {
            s.append(s.length() == 0 ? "" : " + ")
             .append(String.format(Locale.ROOT, "lexical #%d (%.2f)", lexicalRank, lexicalScore));
            if (hasContributions()) {
                s.append(String.format(Locale.ROOT, " %.4f", lexicalContribution));
            }
        }
        if (rerankAdjustment != 0) {
            s.append(String.format(Locale.ROOT, " %s rerank %.4f", rerankAdjustment > 0 ? "+" : "-",
                    Math.abs(rerankAdjustment)));
        }
        return s.append(String.format(Locale.ROOT, hasContributions() ? " = %.4f" : " -> %.4f", fused)).toString();
    }
}
