package dev.funes;

import java.nio.file.Path;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;

/**
 * The side of a {@link MemoryStore} that an {@link dev.funes.ingest.Indexer} uses: the checkpoint
 * of each log file read (how far, which version of the file), stored in the same transaction as
 * the memories read from it, and the settling of what an earlier read of the file stored. A store
 * offers it through {@link MemoryStore#checkpoints()}; applications that only add and search never
 * need it.
 *
 * <p>Every method follows the {@link MemoryStore} contract (atomic, durable, thread-safe; a
 * closed store throws {@link IllegalStateException}).
 */
public interface SourceCheckpoints {

    /**
     * Stores memories and, in the same transaction, the checkpoint of the log file they were read
     * from. A crash leaves either both or neither, so an indexer never skips records it did not
     * store nor stores records twice.
     *
     * @param source the file's new checkpoint, replacing any earlier one; {@code null} for none
     * @return how many were added, unchanged, embedded
     * @throws StoreException     if the database cannot be written; nothing of this call is stored
     * @throws EmbeddingException if a text cannot be embedded; nothing of this call is stored
     */
    AddResult addAll(Collection<Memory> memories, SourceState source);

    /**
     * Like {@link #addAll(Collection, SourceState)}, and in the same transaction deletes the
     * memories cited from {@code source.path()} whose ids are not in {@code keep}: everything the
     * file gave before is replaced by this read (what a log its author asked to be forgotten
     * needs). An indexer reading a log again uses {@link #updateSource}, which loses nothing.
     * {@code keep} must hold the ids of every memory the read produced, including those stored
     * by earlier calls for the same read.
     *
     * @param source the file's new checkpoint, replacing any earlier one; not null
     * @param keep   ids of the memories the file holds now
     * @return how many were added, unchanged, embedded, and how many were deleted
     * @throws StoreException     if the database cannot be written; nothing of this call is stored
     * @throws EmbeddingException if a text cannot be embedded; nothing of this call is stored
     */
    SourceUpdate replaceSource(Collection<Memory> memories, SourceState source, Set<String> keep);

    /**
     * Stores the last memories of a log read again in full, with its checkpoint, and settles in the
     * same transaction what was stored from {@code source.path()} before and this read did not
     * give ({@code keep} holds every id the read gave, including those stored by earlier calls for
     * the same read): those in {@code replace} are deleted (the earlier version of an exchange that
     * was still being written, which this read gave complete); every other one stays, marked
     * with the metadata {@link SourceState#CHANGED_KEY} (value: {@code source.indexedAt()}) unless
     * it already is, because the file no longer holds what it was read from (it was rotated,
     * truncated or rewritten). A memory is thus never lost to a log replaced at the same path.
     *
     * @param source  the file's new checkpoint, replacing any earlier one; not null
     * @param keep    ids of the memories the file holds now
     * @param replace ids of provisional memories this read may delete when it did not give them again;
     *                {@code null} for every memory cited from the file that is not marked: a read of
     *                a file that holds the very bytes read before, whose earlier memories are all
     *                earlier readings of records this read read again
     * @return how many were added, unchanged, embedded; how many deleted and newly marked
     * @throws StoreException     if the database cannot be written; nothing of this call is stored
     * @throws EmbeddingException if a text cannot be embedded; nothing of this call is stored
     */
    SourceUpdate updateSource(Collection<Memory> memories, SourceState source, Set<String> keep,
                              Set<String> replace);

    /** The stored checkpoint of a log file, if it was indexed before. */
    Optional<SourceState> source(Path file);

}
