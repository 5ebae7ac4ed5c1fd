package dev.funes;

import java.util.Objects;

/**
 * One ranked result: a memory and, when one of its {@linkplain MemoryKind#PASSAGE passages} is
 * what matched best, that passage, whose provenance cites only the record holding the answer.
 *
 * @param memory  the memory found
 * @param score   its fused score; higher is better; comparable only within one result list
 * @param parts   what the score is made of (the best-matching passage's, when there is one)
 * @param passage the passage of {@code memory} that answers best, or {@code null} when the
 *                memory's own text matched best or it has no passages
 */
public record SearchHit(Memory memory, double score, ScoreParts parts, Memory passage) {

    /** Checks for nulls and that {@code passage} is a passage. */
    public SearchHit {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(parts, "parts");
        if (passage != null && passage.kind() != MemoryKind.PASSAGE) {
            throw new IllegalArgumentException("a hit's passage must be of kind passage, was " + passage.kind().label());
        }
    }

    /** A hit without a passage. */
    public SearchHit(Memory memory, double score, ScoreParts parts) {
        this(memory, score, parts, null);
    }

    /**
     * The passage's own words, without the header line that says where they were said; {@code null}
     * without a passage.
     */
    public String passageText() {
        if (passage == null) {
            return null;
        }
        String text = passage.text();
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(newline + 1);
    }

    /** Where the answer lies: the passage's provenance when there is one, else the memory's; may be null. */
    public Provenance cited() {
        return passage != null && passage.provenance() != null ? passage.provenance() : memory.provenance();
    }
}
