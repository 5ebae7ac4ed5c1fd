package dev.funes.store;

import java.nio.file.Path;
import java.util.List;

/**
 * What one {@link DatasetImport#importInto} call did.
 *
 * @param dir              the dataset folder
 * @param shards           shards verified and read
 * @param records          memory records read (several may hold the same memory)
 * @param added            memories newly stored
 * @param unchanged        live memories the store already held
 * @param embedded         texts embedded because the dataset had no vector for them from the
 *                         store's model
 * @param deleted          memories deleted because the dataset holds their tombstone
 * @param keptDeleted      memories not imported because they were deleted from this store after
 *                         they were exported elsewhere
 * @param skippedShards    shards of a type this version does not know (verified, not read),
 *                         relative to {@code dir}
 */
public record ImportReport(Path dir, int shards, long records, int added, int unchanged, int embedded, int deleted,
                           int keptDeleted, List<String> skippedShards) {

    /** Copies the list. */
    public ImportReport {
        skippedShards = List.copyOf(skippedShards);
    }

    /** One line for people: what changed. */
    public String summary() {
        return added + " memories added, " + unchanged + " already stored, " + deleted + " deleted"
                + (keptDeleted > 0 ? ", " + keptDeleted + " not restored (deleted here)" : "")
                + (embedded > 0 ? ", " + embedded + " texts embedded" : "")
                + " from " + shards + (shards == 1 ? " shard" : " shards") + " in " + dir
                + (skippedShards.isEmpty() ? "" : "; skipped shards of unknown types: " + skippedShards);
    }
}
