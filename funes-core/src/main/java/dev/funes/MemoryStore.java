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
    AddResult addAll(Collection<Memory> memories);

    /**
     * The checkpoints of the log files this store was filled from, which an
     * {@link dev.funes.ingest.Indexer} needs to read each log only once and to store each read's
     * memories and checkpoint together; empty for a store that keeps none (an Indexer refuses it).
     */
    default Optional<SourceCheckpoints> checkpoints() {
        return Optional.empty();
    }

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
