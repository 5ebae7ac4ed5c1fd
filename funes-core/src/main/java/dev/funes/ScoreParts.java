package dev.funes;

/**
 * The parts a hit's score came from, so a caller can see why it ranked where it did.
 *
 * <p>A rank is 1-based within its candidate list, or 0 when the memory was not a candidate of
 * that retriever; the matching similarity is then {@link Double#NaN}.
 *
 * @param denseRank       rank among the dense (vector) candidates, 0 if absent
 * @param denseSimilarity cosine similarity between query and memory embeddings, or NaN
 * @param lexicalRank     rank among the lexical (FTS5 BM25) candidates, 0 if absent
 * @param lexicalScore    BM25 score as reported by SQLite FTS5 (higher is better here), or NaN
 * @param fused           the fused score, equal to the hit's score
 */
public record ScoreParts(int denseRank, double denseSimilarity, int lexicalRank, double lexicalScore,
                         double fused) {

    /** One line for humans, for example {@code dense #2 (0.61) + lexical #1 (7.3) -> 0.032}. */
    public String explain() {
        StringBuilder s = new StringBuilder();
        if (denseRank > 0) {
            s.append(String.format(java.util.Locale.ROOT, "dense #%d (%.3f)", denseRank, denseSimilarity));
        }
        if (lexicalRank > 0) {
            s.append(s.length() == 0 ? "" : " + ")
             .append(String.format(java.util.Locale.ROOT, "lexical #%d (%.2f)", lexicalRank, lexicalScore));
        }
        return s.append(String.format(java.util.Locale.ROOT, " -> %.4f", fused)).toString();
    }
}
