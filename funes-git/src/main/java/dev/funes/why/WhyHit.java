package dev.funes.why;

import dev.funes.Memory;

import java.util.Objects;

/**
 * A memory behind a commit, a file or a topic, with how it was tied to it.
 *
 * @param memory      the decision, exchange, summary or note
 * @param evidence    how it was tied to the target (the strongest way, when several)
 * @param confidence  0 (a guess) to 1 (certain)
 * @param commit      the commit through which it was found (full sha when the commit is known,
 *                    else as the evidence gave it), or {@code null}
 * @param commitTitle that commit's subject line, or {@code null}
 * @param stale       whether a file it cites changed substantially since (see docs/WHY.md)
 * @param staleReason why it is stale, for example {@code src/Parser.java: 72% of lines changed
 *                    since 4e1c9a7}; {@code null} when not stale
 */
public record WhyHit(Memory memory, Evidence evidence, double confidence, String commit, String commitTitle,
                     boolean stale, String staleReason) {

    /** Checks for nulls. */
    public WhyHit {
        Objects.requireNonNull(memory, "memory");
        Objects.requireNonNull(evidence, "evidence");
    }
}
