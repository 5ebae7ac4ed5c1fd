package dev.funes.langchain4j;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Any LangChain4j {@link EmbeddingModel} (OpenAI, Ollama, a local ONNX model, ...) as a Funes
 * {@link Embedder}, so a store can be built with it:
 *
 * <pre>{@code
 * Embedder embedder = LangChain4jEmbedder.builder(ollamaModel, "ollama:nomic-embed-text").build();
 * MemoryStore store = FunesStore.open(dir, embedder);
 * }</pre>
 *
 * <p>The model id is yours to choose and must name the model and its variant stably: the store
 * records it and refuses to open later with an embedder of another id. Vectors are L2-normalized
 * here (Funes compares them by dot product), so a model that returns unnormalized vectors ranks as
 * by cosine. The query prefix, when the model expects one (e5, bge), is put before queries only.
 *
 * <p>Where the model runs decides where texts go: a remote model sends every memory to its
 * service, which Funes itself never does. Closing this embedder does not close the model (a
 * LangChain4j model has no lifecycle); it only refuses further calls.
 */
public final class LangChain4jEmbedder implements Embedder {

    private final EmbeddingModel model;
    private final String modelId;
    private final String queryPrefix;
    private final int dimension;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LangChain4jEmbedder(Builder builder) {
        this.model = builder.model;
        this.modelId = builder.modelId;
        this.queryPrefix = builder.queryPrefix;
        this.dimension = builder.dimension > 0 ? builder.dimension : model.dimension();
        if (dimension <= 0) {
            throw new EmbeddingException("model " + modelId + " reports dimension " + dimension);
        }
    }

    /**
     * A builder for an embedder over {@code model}, recorded in stores as {@code modelId}.
     *
     * @throws IllegalArgumentException if the id is blank
     */
    public static Builder builder(EmbeddingModel model, String modelId) {
        return new Builder(model, modelId);
    }

    @Override
    public String modelId() {
        return modelId;
    }

    @Override
    public int dimension() {
        return dimension;
    }

    /**
     * Embeds the texts with the model, in order, and normalizes each vector.
     *
     * @throws EmbeddingException if the model fails, returns another number of vectors than texts,
     *                            a vector of another dimension, or a zero vector
     */
    @Override
    public List<float[]> embedDocuments(List<String> texts) {
        ensureOpen();
        if (texts.isEmpty()) {
            return List.of();
        }
        List<Embedding> embeddings = embed(texts);
        if (embeddings.size() != texts.size()) {
            throw new EmbeddingException("model " + modelId + " returned " + embeddings.size() + " vectors for "
                    + texts.size() + " texts");
        }
        List<float[]> vectors = new ArrayList<>(embeddings.size());
        for (Embedding embedding : embeddings) {
            vectors.add(normalized(embedding));
        }
        return vectors;
    }

    /** Embeds the query, after the query prefix if one was set, and normalizes the vector. */
    @Override
    public float[] embedQuery(String query) {
        ensureOpen();
        List<Embedding> embeddings = embed(List.of(queryPrefix + query));
        if (embeddings.size() != 1) {
            throw new EmbeddingException("model " + modelId + " returned " + embeddings.size() + " vectors for one query");
        }
        return normalized(embeddings.get(0));
    }

    @Override
    public void close() {
        closed.set(true);
    }

    @Override
    public String toString() {
        return "LangChain4jEmbedder[" + modelId + ", " + dimension + "]";
    }

    private List<Embedding> embed(List<String> texts) {
        try {
            return model.embedAll(texts.stream().map(TextSegment::from).toList()).content();
        } catch (EmbeddingException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new EmbeddingException("model " + modelId + " failed: " + e.getMessage(), e);
        }
    }

    private float[] normalized(Embedding embedding) {
        float[] vector = embedding.vector().clone();
        if (vector.length != dimension) {
            throw new EmbeddingException("model " + modelId + " returned a vector of dimension " + vector.length
                    + ", expected " + dimension);
        }
        double sum = 0;
        for (float v : vector) {
            sum += (double) v * v;
        }
        if (!(sum > 0) || Double.isInfinite(sum)) {
            throw new EmbeddingException("model " + modelId + " returned a zero or non-finite vector");
        }
        float scale = (float) (1 / Math.sqrt(sum));
        for (int i = 0; i < vector.length; i++) {
            vector[i] *= scale;
        }
        return vector;
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("embedder " + modelId + " is closed");
        }
    }

    /** Options of a {@link LangChain4jEmbedder}. */
    public static final class Builder {

        private final EmbeddingModel model;
        private final String modelId;
        private String queryPrefix = "";
        private int dimension;

        private Builder(EmbeddingModel model, String modelId) {
            this.model = Objects.requireNonNull(model, "model");
            if (modelId == null || modelId.isBlank()) {
                throw new IllegalArgumentException("a model id is required: a stable name of the model and its variant");
            }
            this.modelId = modelId;
        }

        /** Text put before every query (not documents), as some models expect; none by default. */
        public Builder queryPrefix(String prefix) {
            this.queryPrefix = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /**
         * The model's dimension, when known: saves the probe embedding LangChain4j models may make
         * to find it out (for a remote model, a call to its service).
         */
        public Builder dimension(int dimension) {
            if (dimension <= 0) {
                throw new IllegalArgumentException("dimension must be positive: " + dimension);
            }
            this.dimension = dimension;
            return this;
        }

        /** The embedder. */
        public LangChain4jEmbedder build() {
            return new LangChain4jEmbedder(this);
        }
    }
}
