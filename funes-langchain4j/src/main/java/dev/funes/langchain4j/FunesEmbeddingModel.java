package dev.funes.langchain4j;

import dev.funes.Embedder;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A LangChain4j {@link EmbeddingModel} over a Funes {@link Embedder}, so LangChain4j code can use
 * the bundled local ONNX models ({@code Embedders.bundled(BundledModel.DEFAULT)} and the others):
 * no network, no API key.
 *
 * <p>Funes embeds documents and queries separately, because some models want an instruction
 * prefix on queries (bge-small, for one) or a different one on each (e5-small). LangChain4j has one {@code embed} for both, so there are
 * two adapters: {@link #of} embeds as documents (for what is stored), {@link #forQueries} as
 * queries (for an {@code EmbeddingStoreContentRetriever}'s query embeddings). With MiniLM, the
 * default, both give the same vectors.
 *
 * <p>Vectors are L2-normalized. Thread-safe as the embedder is. The embedder stays the caller's:
 * this adapter never closes it.
 */
public final class FunesEmbeddingModel implements EmbeddingModel {

    private final Embedder embedder;
    private final boolean queries;

    private FunesEmbeddingModel(Embedder embedder, boolean queries) {
        this.embedder = Objects.requireNonNull(embedder, "embedder");
        this.queries = queries;
    }

    /** The model embedding texts as documents (what is stored and searched). */
    public static FunesEmbeddingModel of(Embedder embedder) {
        return new FunesEmbeddingModel(embedder, false);
    }

    /** The model embedding texts as search queries, with the model's query prefix if it has one. */
    public static FunesEmbeddingModel forQueries(Embedder embedder) {
        return new FunesEmbeddingModel(embedder, true);
    }

    /**
     * Embeds the segments' texts (their metadata is not embedded), in order.
     *
     * @throws dev.funes.EmbeddingException if the model fails
     */
    @Override
    public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
        List<String> texts = segments.stream().map(TextSegment::text).toList();
        List<Embedding> embeddings = new ArrayList<>(texts.size());
        if (queries) {
            for (String text : texts) {
                embeddings.add(Embedding.from(embedder.embedQuery(text)));
            }
        } else if (!texts.isEmpty()) {
            for (float[] vector : embedder.embedDocuments(texts)) {
                embeddings.add(Embedding.from(vector));
            }
        }
        return Response.from(embeddings);
    }

    /** The embedder's dimension, without embedding anything. */
    @Override
    public int dimension() {
        return embedder.dimension();
    }

    /** The embedder's model id, for example {@code all-minilm-l6-v2-q}. */
    @Override
    public String modelName() {
        return embedder.modelId();
    }

    @Override
    public String toString() {
        return "FunesEmbeddingModel[" + embedder.modelId() + (queries ? ", queries" : ", documents") + "]";
    }
}
