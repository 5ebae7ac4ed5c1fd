package dev.funes;

import java.util.List;

/**
 * Turns text into vectors, locally. The service-provider interface behind every store.
 *
 * <p>Vectors are L2-normalized, so a dot product is their cosine similarity. Documents and
 * queries are embedded separately because some models expect an instruction prefix on queries
 * only (bge-small, for example) or different prefixes on each (e5-small); callers never add such
 * prefixes themselves.
 *
 * <p>Implementations are thread-safe: several threads may embed at once. They hold native
 * resources (an ONNX session, a tokenizer) and must be {@linkplain #close() closed}; a closed
 * embedder throws {@link IllegalStateException}.
 */
public interface Embedder extends AutoCloseable {

    /**
     * A stable name of the model and its variant, for example {@code all-minilm-l6-v2-q}. A store
     * records it and refuses to open with an embedder of another id.
     */
    String modelId();

    /** The length of every vector this embedder returns. */
    int dimension();

    /**
     * Embeds documents, in order: element {@code i} of the result is the vector of text {@code i}.
     * Texts longer than the model's window are handled as the implementation documents.
     *
     * @throws EmbeddingException if the model fails
     */
    List<float[]> embedDocuments(List<String> texts);

    /**
     * Embeds one search query, with the model's query prefix if it has one.
     *
     * @throws EmbeddingException if the model fails
     */
    float[] embedQuery(String query);

    /** Releases the native resources; idempotent. */
    @Override
    void close();
}
