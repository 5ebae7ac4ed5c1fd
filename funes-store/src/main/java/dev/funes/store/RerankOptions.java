package dev.funes.store;

/**
 * The local rerank stage that runs after fusion over the best candidates; it needs no network and
 * no model. Four adjustments, each part of a hit's {@link dev.funes.ScoreParts#rerankAdjustment()}:
 *
 * <ul>
 *   <li><b>term proximity</b>: a bonus of up to {@code proximityWeight} for a memory whose text
 *       holds the query's matched terms close together: {@code proximityWeight × (matched terms /
 *       query terms) × (matched terms / smallest window of words covering them)}; no bonus when
 *       fewer than two query terms match;</li>
 *   <li><b>near-duplicate demotion</b>: a hit whose text is near-identical (word 3-shingle
 *       Jaccard similarity at least {@code duplicateSimilarity}) to a higher-ranked hit of the
 *       same session loses {@code duplicateWeight}, so a distinct relevant memory comes before the
 *       repeat;</li>
 *   <li><b>more matching passages</b>: when passages roll up to their memory (the memory takes the
 *       place of its best candidate), the memory also gains {@code passageWeight} × what its next
 *       {@value #MORE_PASSAGES} best candidates with new evidence matched by (their dense
 *       contribution when it came from a vector not counted yet, their lexical one when they hold
 *       a query word the memory's earlier candidates do not): a long exchange that answers in
 *       several places ranks above one that matches in one sentence, and one that repeats the
 *       same words (a commit message in the command and in its output) gains nothing for it;</li>
 *   <li><b>neighbouring exchanges</b> (off by default): after the roll-up, an exchange gains
 *       {@code neighbourWeight} × the score of the better of its two neighbours (the exchanges just
 *       before and after it in the same log file) when that neighbour is among the best
 *       {@code depth} memories: in a conversation a turn is about what surrounds it, so the reply
 *       next to a matching question ranks higher. At 0.25 it gains 1.1 to 2.2 points of LoCoMo
 *       recall@5 and @10 and moves coding-session questions both ways (docs/EVALUATION.md), so a
 *       store of conversation turns it on ({@link #withNeighbourWeight}).</li>
 * </ul>
 *
 * @param proximityWeight     the largest proximity bonus, at least 0 (0 turns it off)
 * @param duplicateWeight     the demotion of a near-duplicate, at least 0 (0 turns it off)
 * @param duplicateSimilarity the shingle Jaccard similarity from which two texts are near-duplicates, in (0, 1]
 * @param depth               how many of the best fused candidates are reranked, at least 1; the
 *                            others keep their fused score (a demoted hit may fall below them)
 * @param passageWeight       the share of what a memory's further matching candidates matched by
 *                            that is added to it, at least 0 (0 turns it off)
 * @param neighbourWeight     the share of its better neighbour's score an exchange gains, at least 0
 *                            (0, the default, turns it off)
 */
public record RerankOptions(double proximityWeight, double duplicateWeight, double duplicateSimilarity, int depth,
                            double passageWeight, double neighbourWeight) {

    /** How many further candidates of one memory add to its score ({@code passageWeight}). */
    public static final int MORE_PASSAGES = 2;

    /**
     * Proximity 0.1, near-duplicate demotion 0.5 at Jaccard ≥ 0.8, over the best 100, and 0.65
     * of the next two candidates of a memory with new evidence: the default (docs/EVALUATION.md).
     */
    public static final RerankOptions DEFAULT = new RerankOptions(0.1, 0.5, 0.8, 100, 0.65, 0);
    /** No rerank stage: hits keep their fused order and score. */
    public static final RerankOptions NONE = new RerankOptions(0, 0, 1, 1, 0, 0);

    /** Options without the neighbours' share ({@code neighbourWeight} 0). */
    public RerankOptions(double proximityWeight, double duplicateWeight, double duplicateSimilarity, int depth,
                         double passageWeight) {
        this(proximityWeight, duplicateWeight, duplicateSimilarity, depth, passageWeight, 0);
    }

    /** Options without the bonus for more matching passages nor the neighbours' share. */
    public RerankOptions(double proximityWeight, double duplicateWeight, double duplicateSimilarity, int depth) {
        this(proximityWeight, duplicateWeight, duplicateSimilarity, depth, 0, 0);
    }

    /** Validates the values. */
    public RerankOptions {
        for (double w : new double[] {proximityWeight, duplicateWeight, passageWeight, neighbourWeight}) {
            if (!(w >= 0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException("rerank weights must be finite and at least 0, were " + proximityWeight
                        + ", " + duplicateWeight + ", " + passageWeight + " and " + neighbourWeight);
            }
        }
        if (!(duplicateSimilarity > 0 && duplicateSimilarity <= 1)) {
            throw new IllegalArgumentException("duplicateSimilarity must be in (0, 1], was " + duplicateSimilarity);
        }
        if (depth < 1) {
            throw new IllegalArgumentException("depth must be at least 1, was " + depth);
        }
    }

    /** Whether this stage changes anything. */
    public boolean enabled() {
        return proximityWeight > 0 || duplicateWeight > 0 || passageWeight > 0 || neighbourWeight > 0;
    }

    /**
     * These options with the neighbours' share set: {@code withNeighbourWeight(0.25)} is what a store of
     * conversation wants (docs/EVALUATION.md, "Neighbouring exchanges").
     *
     * @param weight the share of its better neighbour's score an exchange gains, at least 0
     */
    public RerankOptions withNeighbourWeight(double weight) {
        return new RerankOptions(proximityWeight, duplicateWeight, duplicateSimilarity, depth, passageWeight, weight);
    }

    /** The default: {@link #DEFAULT}. */
    public static RerankOptions defaults() {
        return DEFAULT;
    }
}
