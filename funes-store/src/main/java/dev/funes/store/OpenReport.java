package dev.funes.store;

import java.time.Duration;

/**
 * What {@link FunesStore#open} found and did: whether it created the store, migrated the schema,
 * loaded the dense index's segments as they were or rebuilt some from SQLite (and why). Meant
 * for logs and for the CLI's {@code stats}; obtained with {@link FunesStore#openReport}.
 *
 * @param created            whether the store was created by this open
 * @param schemaVersionFound the schema version on disk before opening; 0 for a new store
 * @param schemaVersion      the schema version after opening (migrations applied)
 * @param indexRebuilt       whether (part of) the dense index was rebuilt from the vectors in SQLite
 * @param indexReason        why (for example {@code "index manifest missing"} or
 *                           {@code "seg-3.ann: index file checksum mismatch (corrupt)"}), or
 *                           {@code null} when the files were loaded as they were or the store has
 *                           no vectors
 * @param graphVectors       live vectors in the index's on-disk segments after opening
 * @param freshVectors       vectors newer than every segment, in the in-memory graph (memtable)
 *                           until it is sealed
 * @param indexTime          time spent loading or rebuilding the index
 */
public record OpenReport(boolean created, int schemaVersionFound, int schemaVersion, boolean indexRebuilt,
                         String indexReason, int graphVectors, int freshVectors, Duration indexTime) {

    /** One line for logs, for example {@code schema v1, index rebuilt (index file missing): 40 vectors in 0.2 s}. */
    public String summary() {
        StringBuilder s = new StringBuilder(created ? "created store, " : "")
                .append("schema v").append(schemaVersion);
        if (schemaVersionFound != 0 && schemaVersionFound != schemaVersion) {
            s.append(" (migrated from v").append(schemaVersionFound).append(')');
        }
        s.append(indexRebuilt ? ", index rebuilt (" + indexReason + ")"
                : graphVectors + freshVectors == 0 ? ", no vectors yet" : ", index loaded")
         .append(": ").append(graphVectors).append(" vectors in graph, ").append(freshVectors).append(" fresh, ")
         .append(indexTime.toMillis()).append(" ms");
        return s.toString();
    }
}
