package dev.funes.store;

/**
 * What one {@link FunesStore#forget} call removed.
 *
 * @param memories        memories deleted that are not passages
 * @param passages        passages deleted (of those memories, or named themselves)
 * @param vectorsExpunged deleted vectors dropped from the files of the dense index at once; 0 when
 *                        another process maintains the index (its merges drop them later)
 */
public record ForgetReport(int memories, int passages, int vectorsExpunged) {

    /** Memories and passages together. */
    public int total() {
        return memories + passages;
    }
}
