package dev.funes.store;

import dev.funes.Memory;

import java.util.Objects;

/**
 * One result of {@link StoreVectors#search}.
 *
 * @param memory     the memory found
 * @param similarity the exact cosine similarity of its vector to the query vector, -1 to 1
 * @param vector     its stored vector (a copy the caller owns)
 */
public record VectorHit(Memory memory, double similarity, float[] vector) {

    /** Checks for nulls. */
    public VectorHit {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(vector, "vector");
    }
}
