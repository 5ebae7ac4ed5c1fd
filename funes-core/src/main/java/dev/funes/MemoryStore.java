package dev.funes;

import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * A durable, searchable set of memories.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Idempotent adds.</b> A memory whose {@linkplain Memory#id() id} is already stored is
 *       left as it is and counted as unchanged. Texts whose embedding is already stored are not
 *       embedded again.</li>
 *   <li><b>Atomic batches.</b> {@link #addAll} stores all of its memories or, if it throws, none
 *       of them; what was stored before the call is never lost.</li>
 *   <li><b>Durability.</b> Once {@code add}/{@code addAll}/{@code delete} returns, the change
 *       survives a crash and is visible to every later search, in this and other processes that
 *       open the same store.</li>
 *   <li><b>Threads.</b> All methods are thread-safe. Searches run concurrently with each other;
 *       writes are serialized and a search sees either all or none of a concurrent batch.</li>
 *   <li><b>Lifecycle.</b> The store holds a database connection and index files and must be
 *       {@linkplain #close() closed}. Any method but {@code close} on a closed store throws
 *       {@link IllegalStateException}. The store does not close the {@link Embedder} it was
 *       opened with; the caller owns it.</li>
 * </ul>
 */
public interface MemoryStore extends AutoCloseable {

    /**
     * Stores one memory (see {@link #addAll}).
     *
     * @return whether the memory was new
     * @throws StoreException     if the database cannot be written
     * @throws EmbeddingException if the text cannot be embedded
     */
    default boolean add(Memory memory) {
        return addAll(List.of(memory)).added() == 1;
    }

    /**
     * Stores memories in one transaction, embedding the texts it has no vector for.
     *
     * @return how many were added, unchanged, embedded
     * @throws StoreException     if the database cannot be written; nothing of this call is stored
     * @throws EmbeddingException if a text cannot be embedded; nothing of this call is stored
     */
    default AddResult addAll(Collection<Memory> memories) {
        return addAll(memories, null);
    }

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
    SourceUpdate replaceSource(Collection<Memory> memories, SourceState source, java.util.Set<String> keep);

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
    SourceUpdate updateSource(Collection<Memory> memories, SourceState source, java.util.Set<String> keep,
                              java.util.Set<String> replace);

    /** The stored checkpoint of a log file, if it was indexed before. */
    Optional<SourceState> source(java.nio.file.Path file);

    /**
     * The best memories for the request, best first, at most {@link SearchRequest#limit()} of
     * them, each passing the request's filters.
     *
     * @throws StoreException     if the store cannot be read
     * @throws EmbeddingException if the query cannot be embedded
     */
    List<SearchHit> search(SearchRequest request);

    /**
     * The sessions with the latest activity, latest first (by the time of their last memory;
     * sessions without times come last). Memories without a session id belong to no session.
     *
     * @param limit at most this many, at least 1
     * @throws IllegalArgumentException      if {@code limit} is below 1
     * @throws StoreException                if the store cannot be read
     */
    List<SessionInfo> recentSessions(int limit);

    /** The memory with this id, if stored. */
    Optional<Memory> get(String id);

    /**
     * Removes a memory.
     *
     * @return whether it was stored
     */
    boolean delete(String id);

    /** Counts and sizes. */
    StoreStats stats();

    /** Flushes the derived index and releases the database and files; idempotent. */
    @Override
    void close();
}
