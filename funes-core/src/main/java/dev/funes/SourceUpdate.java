package dev.funes;

/**
 * What {@link SourceCheckpoints#updateSource} or {@link SourceCheckpoints#replaceSource} did with a log file
 * read again: the memories of the read, and what became of those stored from the file before.
 *
 * @param stored  what was added, unchanged, embedded of the read's memories
 * @param removed memories cited from the file that were deleted: earlier versions of an exchange
 *                the read gave anew ({@code updateSource}), or every memory the read did not give
 *                ({@code replaceSource})
 * @param marked  memories cited from the file that the read did not give, kept and newly marked
 *                {@link SourceState#CHANGED_KEY}: the file no longer holds what they were read from
 */
public record SourceUpdate(AddResult stored, int removed, int marked) {

    /** Validates the counts. */
    public SourceUpdate {
        java.util.Objects.requireNonNull(stored, "stored");
        if (removed < 0 || marked < 0) {
            throw new IllegalArgumentException("negative count: removed " + removed + ", marked " + marked);
        }
    }
}
