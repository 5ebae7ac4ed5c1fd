package dev.funes.store;

import java.time.Duration;

/**
 * What {@link FunesStore#open} found and did: whether it created the store, migrated the schema,
 * loaded the ANN index file or rebuilt it from SQLite (and why). Meant for logs and for the
 * CLI's {@code stats}; obtained with {@link FunesStore#openReport}.
 *
 * @param created            whether the store was created by this open
 * @param schemaVersionFound the schema version on disk before opening; 0 for a new store
 * @param schemaVersion      the schema version after opening (migrations applied)
 * @param indexRebuilt       whether the ANN index was rebuilt from the vectors in SQLite
 * @param indexReason        why it was rebuilt (for example {@code "index file missing"}), or
 *                           {@code null} when the file was loaded as it was or the store has no
 *                           vectors
 * @param graphVectors       vectors in the ANN graph after opening
 * @param freshVectors       vectors newer than the graph, searched exactly until the next rebuild
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
