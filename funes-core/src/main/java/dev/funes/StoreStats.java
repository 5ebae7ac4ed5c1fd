package dev.funes;

import java.util.Map;

/**
 * Counts and sizes of a store at one moment.
 *
 * @param memories       number of memories
 * @param sessions       number of distinct sessions
 * @param sources        number of log files indexed
 * @param vectors        number of distinct embeddings (equal texts share one)
 * @param byAgent        memories per agent
 * @param byKind         memories per kind label
 * @param modelId        the embedding model the store was built with
 * @param dimension      its vector dimension
 * @param databaseBytes  size of the SQLite files on disk
 * @param indexBytes     size of the ANN index files on disk
 * @param redactions     secrets redacted in the stored memories, per type: the
 *                       {@code [REDACTED:<type>]} placeholders their texts, projects and metadata
 *                       values hold; empty when none (or when the store does not count them)
 */
public record StoreStats(long memories, long sessions, long sources, long vectors,
                         Map<String, Long> byAgent, Map<String, Long> byKind,
                         String modelId, int dimension, long databaseBytes, long indexBytes,
                         Map<String, Long> redactions) {

    /** Copies the maps. */
    public StoreStats {
        byAgent = Map.copyOf(byAgent);
        byKind = Map.copyOf(byKind);
        redactions = redactions == null ? Map.of() : Map.copyOf(redactions);
    }
}
