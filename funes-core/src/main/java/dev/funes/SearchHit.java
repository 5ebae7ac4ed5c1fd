package dev.funes;

import java.util.Objects;

/**
 * One ranked result.
 *
 * @param memory the memory found
 * @param score  its fused score; higher is better; comparable only within one result list
 * @param parts  what the score is made of
 */
public record SearchHit(Memory memory, double score, ScoreParts parts) {

    /** Checks for nulls. */
    public SearchHit {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(parts, "parts");
    }
}
