package dev.funes.store;

import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.SearchRequest;

import java.util.Collection;
import java.util.List;
import java.util.function.Predicate;

/**
 * Memories with vectors the caller computed, and exact searches by vector: what an adapter to
 * another framework's vector-store API needs (the LangChain4j module, for one). Obtained with
 * {@link FunesStore#vectors}; it writes to and reads from the same store, so such memories are
 * found by ordinary hybrid searches too, and the store's memories by vector searches.
 *
 * <p>A caller's vector must have the store's {@link #dimension()}. It is meant to come from the
 * store's own model (hybrid searches compare it with query embeddings of that model); the store
 * cannot check that. Vectors of unit length (within 0.001) are stored bit for bit; others are
 * scaled to unit length, which leaves every cosine similarity unchanged.
 *
 * <p>Thread-safe, like the store; closing the store closes this view.
 */
public interface StoreVectors {

    /** The length every vector must have: the store's embedding dimension. */
    int dimension();

    /**
     * Stores memories with the given vectors, element {@code i} of {@code vectors} for memory
     * {@code i}, in one transaction. A memory whose id is already stored is replaced (its old
     * vector goes when no other memory uses it); among memories with one id in the batch, the
     * last wins. Nothing is embedded.
     *
     * @return how many memories were written ({@code added}); {@code unchanged} and
     *         {@code embedded} are 0
     * @throws IllegalArgumentException if the lists differ in size, or a vector has the wrong
     *                                  length, a non-finite value or length zero
     * @throws dev.funes.StoreException if the database cannot be written; nothing of this call is
     *                                  stored
     */
    AddResult put(List<Memory> memories, List<float[]> vectors);

    /**
     * The memories most similar to the query's vector by exact cosine similarity (every stored
     * vector passing the filters is compared: no approximation), best first; equal similarities
     * in the order the memories were stored.
     *
     * @throws IllegalArgumentException if the query vector has the wrong length or length zero
     * @throws dev.funes.StoreException  if the store cannot be read
     */
    List<VectorHit> search(VectorQuery query);

    /**
     * The stored memories passing the filters, in the order they were stored.
     *
     * @param filters a request whose project, agent, session, kind and time filters apply (its
     *                query and limit are ignored); {@code null} for none
     * @param where   a further condition; {@code null} for none
     * @throws dev.funes.StoreException if the store cannot be read
     */
    List<Memory> scan(SearchRequest filters, Predicate<Memory> where);

    /**
     * Removes memories by id, in one transaction; ids not stored are ignored.
     *
     * @return how many were removed
     * @throws dev.funes.StoreException if the database cannot be written; nothing is removed
     */
    int delete(Collection<String> ids);
}
