package dev.funes.ingest;

import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SourceCheckpoints;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every call an {@link Indexer} makes to its store, in one place: a file's checkpoint, its
 * batches (the last one with the checkpoint, in the same transaction), and the deletions of what
 * an earlier read stored that a new read replaces or a log's author asked to forget.
 */
final class SourceStore {

    private final MemoryStore store;
    private final SourceCheckpoints checkpoints;

    /** @throws IllegalArgumentException if the store keeps no checkpoints */
    SourceStore(MemoryStore store) {
        this.store = store;
        this.checkpoints = store.checkpoints().orElseThrow(() -> new IllegalArgumentException(
                "an Indexer needs a store that keeps source checkpoints (MemoryStore.checkpoints()), and "
                        + store.getClass().getName() + " keeps none"));
    }

    /** The checkpoint of the last complete read of {@code file}, if any. */
    Optional<SourceState> checkpoint(Path file) {
        return checkpoints.source(file);
    }

    /** Stores a batch of a file; with {@code checkpoint} (or null) in the same transaction. */
    AddResult add(List<Memory> memories, SourceState checkpoint) {
        return checkpoints.addAll(memories, checkpoint);
    }

    /**
     * Stores a read from the start's last batch with its checkpoint; what the file gave before and
     * is neither in {@code keep} nor in {@code replace} stays, marked as from an earlier version
     * (see {@link SourceCheckpoints#updateSource}).
     */
    SourceUpdate update(List<Memory> memories, SourceState checkpoint, Set<String> keep, Set<String> replace) {
        return checkpoints.updateSource(memories, checkpoint, keep, replace);
    }

    /** Deletes everything stored from the checkpoint's file and stores the checkpoint; how many were deleted. */
    int forgetAll(SourceState checkpoint) {
        return checkpoints.replaceSource(List.of(), checkpoint, Set.of()).removed();
    }

    /** The stored memory with this id, if any. */
    Optional<Memory> get(String id) {
        return store.get(id);
    }

    /** Deletes the memory with this id; whether there was one. */
    boolean delete(String id) {
        return store.delete(id);
    }
}
