package dev.funes.store;

import dev.funes.Memory;
import dev.funes.SearchRequest;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * An exact search by vector (see {@link StoreVectors#search}).
 *
 * @param vector        the query vector, of the store's dimension; not copied, do not change it
 *                      during the search
 * @param limit         at most this many hits, at least 1
 * @param minSimilarity only memories whose cosine similarity to {@code vector} is at least this
 *                      ({@code -1} or less for all)
 * @param filters       a request whose project, agent, session, kind and time filters apply (its
 *                      query and limit are ignored); {@code null} for none
 * @param where         a further condition on the memory; {@code null} for none
 */
public record VectorQuery(float[] vector, int limit, double minSimilarity, SearchRequest filters,
                          Predicate<Memory> where) {

    /** Validates the values. */
    public VectorQuery {
        Objects.requireNonNull(vector, "vector");
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        if (Double.isNaN(minSimilarity)) {
            throw new IllegalArgumentException("minSimilarity is NaN");
        }
    }

    /** The {@code limit} most similar memories, unfiltered. */
    public static VectorQuery of(float[] vector, int limit) {
        return new VectorQuery(vector, limit, Double.NEGATIVE_INFINITY, null, null);
    }
}
