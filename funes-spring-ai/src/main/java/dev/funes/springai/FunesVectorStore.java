package dev.funes.springai;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.adapter.FilterPushdown;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreVectors;
import dev.funes.store.VectorHit;
import dev.funes.store.VectorQuery;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.ai.vectorstore.filter.Filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A Spring AI {@link VectorStore} over a Funes store: documents added here are Funes memories,
 * and the memories Funes read from agent logs are documents here, with their provenance in the
 * metadata.
 *
 * <pre>{@code
 * try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
 *      MemoryStore memory = FunesStore.open(dir, embedder)) {
 *     VectorStore store = FunesVectorStore.builder(memory, embedder).build();
 *     store.add(List.of(new Document("CI checks out the merge commit", Map.of("kind", "decision"))));
 *     List<Document> found = store.similaritySearch(SearchRequest.builder()
 *             .query("which commit does CI build").topK(3).filterExpression("kind == 'decision'").build());
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Embedding</b> is the store's: the {@code Embedder} given here must be the one the
 *       store was opened with (its dimension is checked), so that Funes's own hybrid searches find
 *       the documents too.</li>
 *   <li><b>Search</b> is exact: every vector passing the filter is compared with the query's by
 *       cosine similarity, the document's {@linkplain Document#getScore() score} (metadata
 *       {@code distance} is {@code 1 - score}); {@code topK} and the similarity threshold apply to
 *       it, a threshold of 0 accepting everything.</li>
 *   <li><b>Filter expressions</b> are evaluated exactly on each candidate's metadata; equality on
 *       {@code project}, {@code agent}, {@code session}, {@code kind} and ranges on
 *       {@code timestamp} are also applied in SQL first. An expression Funes cannot evaluate is an
 *       {@link IllegalArgumentException} naming it, before anything is searched or deleted.</li>
 *   <li><b>Ids</b> are kept: a document's id is its memory's id. Adding an id again replaces the
 *       document.</li>
 *   <li><b>Metadata</b> is kept with its types (String, Boolean, Integer, Long, Float, Double). The
 *       keys {@code project}, {@code agent}, {@code session}, {@code kind} and {@code timestamp}
 *       are also copied onto the memory's fields.</li>
 *   <li><b>Deletion</b> works on the whole Funes store: {@code delete(filter)} can remove memories
 *       read from logs too.</li>
 * </ul>
 *
 * <p>docs/SPRING-AI.md has the full mapping. Thread-safe. The store and the embedder are the
 * caller's: this class never closes them, and fails once they are closed.
 */
public final class FunesVectorStore implements VectorStore {

    /** The agent of documents whose metadata names none. */
    public static final String DEFAULT_AGENT = "spring-ai";
    /**
     * How far below a similarity threshold a cosine may fall and still pass: float rounding keeps
     * the cosine of a text with itself a few ulps under 1, and a threshold of 1 asks for that match.
     */
    static final double THRESHOLD_SLACK = 1e-6;

    private final MemoryStore store;
    private final StoreVectors vectors;
    private final Embedder embedder;
    private final String defaultAgent;

    private FunesVectorStore(Builder b) {
        this.store = b.store;
        this.vectors = FunesStore.vectors(b.store);
        this.embedder = b.embedder;
        this.defaultAgent = b.defaultAgent;
        if (embedder.dimension() != vectors.dimension()) {
            throw new IllegalArgumentException("the embedder " + embedder.modelId() + " makes vectors of "
                    + embedder.dimension() + " dimensions, the store holds " + vectors.dimension()
                    + ": pass the embedder the store was opened with");
        }
    }

    /**
     * A builder of the vector store over {@code store}, embedding with {@code embedder}, the
     * embedder the store was opened with.
     */
    public static Builder builder(MemoryStore store, Embedder embedder) {
        return new Builder(store, embedder);
    }

    /**
     * Embeds the documents' texts with the store's model and stores them in one transaction: all
     * or, if it throws, none. A document whose id is already stored replaces it. An empty list
     * stores nothing.
     *
     * @throws IllegalArgumentException if a document has no text (a media document), a metadata
     *                                  value of a type Funes does not keep, or a {@code timestamp}
     *                                  that is not a time; nothing is stored
     * @throws dev.funes.EmbeddingException if the model fails
     */
    @Override
    public void add(List<Document> documents) {
        Objects.requireNonNull(documents, "documents");
        if (documents.isEmpty()) {
            return;
        }
        List<Memory> memories = new ArrayList<>(documents.size());
        List<String> texts = new ArrayList<>(documents.size());
        for (Document document : documents) {
            Memory memory = Documents.toMemory(Objects.requireNonNull(document, "document"), defaultAgent);
            memories.add(memory);
            texts.add(memory.text());
        }
        vectors.put(memories, embedder.embedDocuments(texts));
    }

    /**
     * Removes documents by id (any memory of the store with that id), in one transaction; ids not
     * stored are ignored.
     *
     * @throws IllegalArgumentException if an id is null or blank; nothing is removed
     */
    @Override
    public void delete(List<String> idList) {
        Objects.requireNonNull(idList, "idList");
        for (String id : idList) {
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("a document id cannot be null or blank");
            }
        }
        if (!idList.isEmpty()) {
            vectors.delete(idList);
        }
    }

    /**
     * Removes the documents whose metadata passes the expression, memories read from logs
     * included, in one transaction.
     *
     * @throws IllegalArgumentException if the expression is null or Funes cannot evaluate it (the
     *                                  message names it); nothing is removed
     */
    @Override
    public void delete(Filter.Expression filterExpression) {
        Expressions.check(filterExpression);
        FilterPushdown pushdown = Pushdown.of(filterExpression);
        if (pushdown.impossible()) {
            return;
        }
        List<String> ids = vectors.scan(filters(pushdown), exactly(filterExpression)).stream().map(Memory::id).toList();
        if (!ids.isEmpty()) {
            vectors.delete(ids);
        }
    }

    /**
     * The documents most similar to the request's query, best first, by exact cosine similarity:
     * at most {@code topK}, each at least the similarity threshold (0 accepts all) and passing the
     * filter expression. Each has its score and metadata {@code distance} = {@code 1 - score}.
     *
     * @throws IllegalArgumentException if Funes cannot evaluate the filter expression (the message
     *                                  names it)
     * @throws dev.funes.EmbeddingException if the query cannot be embedded
     */
    @Override
    public List<Document> similaritySearch(SearchRequest request) {
        Objects.requireNonNull(request, "request");
        Filter.Expression expression = request.getFilterExpression();
        if (expression != null) {
            Expressions.check(expression);
        }
        FilterPushdown pushdown = Pushdown.of(expression);
        if (request.getTopK() < 1 || pushdown.impossible()) {
            return List.of();
        }
        double threshold = request.getSimilarityThreshold();
        double minSimilarity = threshold <= 0 ? Double.NEGATIVE_INFINITY : threshold - THRESHOLD_SLACK;
        VectorQuery query = new VectorQuery(embedder.embedQuery(request.getQuery()), request.getTopK(), minSimilarity,
                filters(pushdown), exactly(expression));
        List<Document> documents = new ArrayList<>();
        for (VectorHit hit : vectors.search(query)) {
            Map<String, Object> metadata = Documents.metadata(hit.memory());
            metadata.put(Documents.DISTANCE, 1 - hit.similarity());
            documents.add(Documents.toDocument(hit.memory(), hit.memory().text(), metadata, hit.similarity()));
        }
        return documents;
    }

    /** The Funes store ({@code Optional<MemoryStore>}), for what this API does not offer. */
    @Override
    @SuppressWarnings("unchecked")
    public <T> Optional<T> getNativeClient() {
        return Optional.of((T) store);
    }

    private static dev.funes.SearchRequest filters(FilterPushdown pushdown) {
        // The query text of a filter-only request is never used.
        return pushdown.isEmpty() ? null : pushdown.request("*", 1);
    }

    private static Predicate<Memory> exactly(Filter.Expression expression) {
        return expression == null ? null : m -> Expressions.test(expression, Documents.metadata(m));
    }

    @Override
    public String toString() {
        return "FunesVectorStore[" + vectors + ", " + embedder.modelId() + "]";
    }

    /** Builds a {@link FunesVectorStore}; not thread-safe. */
    public static final class Builder {
        private final MemoryStore store;
        private final Embedder embedder;
        private String defaultAgent = DEFAULT_AGENT;

        private Builder(MemoryStore store, Embedder embedder) {
            this.store = Objects.requireNonNull(store, "store");
            this.embedder = Objects.requireNonNull(embedder, "embedder");
        }

        /** The agent of documents whose metadata names none; default {@value FunesVectorStore#DEFAULT_AGENT}. */
        public Builder defaultAgent(String defaultAgent) {
            if (defaultAgent == null || defaultAgent.isBlank()) {
                throw new IllegalArgumentException("defaultAgent cannot be null or blank");
            }
            this.defaultAgent = defaultAgent;
            return this;
        }

        /**
         * The vector store.
         *
         * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}, or
         *                                  the embedder's dimension is not the store's
         */
        public FunesVectorStore build() {
            return new FunesVectorStore(this);
        }
    }
}
