package dev.funes.store;

import java.util.Objects;

/**
 * How a hybrid search fuses its dense and lexical candidate lists.
 *
 * <p>{@link Method#MINMAX} (the default): each list's scores (cosine similarity, BM25) are
 * rescaled to 0..1 over that list's candidates, best = 1, worst = 0 (all equal = 1), a memory
 * missing from a list gets 0 there, and the fused score is {@code denseWeight × dense +
 * lexicalWeight × lexical}. {@link Method#RRF}: reciprocal rank fusion, {@code weight / (k + rank)}
 * per list. docs/EVALUATION.md has the measurements behind the default.
 *
 * @param method        the fusion method
 * @param denseWeight   the dense list's weight, at least 0
 * @param lexicalWeight the lexical list's weight, at least 0; the two are not both 0
 * @param rrfK          the RRF constant (only {@link Method#RRF} uses it), at least 1
 */
public record FusionOptions(Method method, double denseWeight, double lexicalWeight, int rrfK) {

    /** The fusion methods. */
    public enum Method {
        /** Min-max normalised scores, weighted sum. */
        MINMAX,
        /** Reciprocal rank fusion. */
        RRF
    }

    /** The usual RRF constant. */
    public static final int DEFAULT_RRF_K = 60;

    /**
     * Min-max fusion, the dense list weighted 0.4 and the lexical list 0.6: the default. The
     * weights were chosen on the tuning halves of both evaluation sets (docs/EVALUATION.md, "Fusion
     * weights"): the bundled models' cosine gaps are small, and a clear lexical winner should keep
     * its place.
     */
    public static final FusionOptions MINMAX = new FusionOptions(Method.MINMAX, 0.4, 0.6, DEFAULT_RRF_K);
    /** Plain RRF with k = 60 and equal weights, as searches ranked before min-max fusion. */
    public static final FusionOptions RRF = new FusionOptions(Method.RRF, 1, 1, DEFAULT_RRF_K);

    /** Validates the values. */
    public FusionOptions {
        Objects.requireNonNull(method, "method");
        if (!(denseWeight >= 0) || !(lexicalWeight >= 0) || denseWeight + lexicalWeight == 0
                || Double.isInfinite(denseWeight) || Double.isInfinite(lexicalWeight)) {
            throw new IllegalArgumentException("fusion weights must be finite, at least 0 and not both 0, were "
                    + denseWeight + " and " + lexicalWeight);
        }
        if (rrfK < 1) {
            throw new IllegalArgumentException("rrfK must be at least 1, was " + rrfK);
        }
    }

    /** The default: {@link #MINMAX}. */
    public static FusionOptions defaults() {
        return MINMAX;
    }
}
