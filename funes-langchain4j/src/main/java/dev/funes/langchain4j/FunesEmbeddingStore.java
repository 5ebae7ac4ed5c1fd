package dev.funes.langchain4j;

import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.adapter.FilterPushdown;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreVectors;
import dev.funes.store.VectorHit;
import dev.funes.store.VectorQuery;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import dev.langchain4j.store.embedding.EmbeddingSearchResult;
import dev.langchain4j.store.embedding.EmbeddingStore;
import dev.langchain4j.store.embedding.RelevanceScore;
import dev.langchain4j.store.embedding.filter.Filter;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * A LangChain4j {@link EmbeddingStore} over a Funes store: entries added here are Funes memories,
 * and the memories Funes read from agent logs are entries here, with their provenance in the
 * segment's metadata.
 *
 * <pre>{@code
 * try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
 *      MemoryStore memory = FunesStore.open(dir, embedder)) {
 *     EmbeddingModel model = FunesEmbeddingModel.of(embedder);
 *     EmbeddingStore<TextSegment> store = FunesEmbeddingStore.of(memory);
 *     TextSegment segment = TextSegment.from("CI checks out the merge commit");
 *     store.add(model.embed(segment).content(), segment);
 * }
 * }</pre>
 *
 * <ul>
 *   <li><b>Vectors</b> must have the store's dimension and should come from the store's model
 *       ({@link FunesEmbeddingModel} over the same {@code Embedder}), so that Funes's own hybrid
 *       searches and {@link FunesContentRetriever} find the entries too.</li>
 *   <li><b>Search</b> is exact: every vector passing the filter is compared with the query vector
 *       by cosine similarity; the score is {@link RelevanceScore#fromCosineSimilarity}, and
 *       {@code minScore} and {@code maxResults} apply to it. {@code query} text is ignored.</li>
 *   <li><b>Filters</b> are evaluated exactly, by LangChain4j's own {@link Filter#test}, on each
 *       candidate's metadata; equality on {@code project}, {@code agent}, {@code session},
 *       {@code kind} and ranges on {@code timestamp} are also applied in SQL first.</li>
 *   <li><b>Ids</b> are Funes memory ids: random UUIDs for entries added without one. Adding an id
 *       again replaces the entry.</li>
 *   <li><b>Metadata</b> is kept with its types. The keys {@code project}, {@code agent},
 *       {@code session} (String or UUID), {@code kind} (a {@code MemoryKind} label) and
 *       {@code timestamp} (epoch milliseconds, Integer or Long; other types are refused) are also
 *       copied onto the memory's fields.</li>
 *   <li><b>Removal</b> works on the whole Funes store: {@link #removeAll()} removes every memory,
 *       those read from logs included.</li>
 * </ul>
 *
 * <p>docs/LANGCHAIN4J.md has the full mapping. Thread-safe. The store is the caller's: this class
 * never closes it, and fails once it is closed.
 */
public final class FunesEmbeddingStore implements EmbeddingStore<TextSegment> {

    /** The agent of entries whose metadata names none. */
    public static final String DEFAULT_AGENT = "langchain4j";
    /** Lower than any cosine, so rounding never hides a match that meets {@code minScore}. */
    private static final double SIMILARITY_SLACK = 1e-9;

    private final StoreVectors vectors;
    private final String defaultAgent;

    private FunesEmbeddingStore(MemoryStore store, String defaultAgent) {
        this.vectors = FunesStore.vectors(Objects.requireNonNull(store, "store"));
        this.defaultAgent = Objects.requireNonNull(defaultAgent, "defaultAgent");
    }

    /**
     * The embedding store over {@code store}, storing entries as memories of the agent
     * {@value #DEFAULT_AGENT} unless their metadata names one.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static FunesEmbeddingStore of(MemoryStore store) {
        return new FunesEmbeddingStore(store, DEFAULT_AGENT);
    }

    /**
     * The embedding store over {@code store}, storing entries whose metadata names no agent as
     * memories of {@code defaultAgent}.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static FunesEmbeddingStore of(MemoryStore store, String defaultAgent) {
        return new FunesEmbeddingStore(store, defaultAgent);
    }

    @Override
    public String add(Embedding embedding) {
        String id = UUID.randomUUID().toString();
        addAll(List.of(id), List.of(embedding), null);
        return id;
    }

    @Override
    public void add(String id, Embedding embedding) {
        addAll(List.of(id), List.of(embedding), null);
    }

    @Override
    public String add(Embedding embedding, TextSegment segment) {
        String id = UUID.randomUUID().toString();
        addAll(List.of(id), List.of(embedding), segment == null ? null : List.of(segment));
        return id;
    }

    @Override
    public List<String> addAll(List<Embedding> embeddings) {
        List<String> ids = generateIds(embeddings.size());
        addAll(ids, embeddings, null);
        return ids;
    }

    @Override
    public List<String> addAll(List<Embedding> embeddings, List<TextSegment> segments) {
        List<String> ids = generateIds(embeddings.size());
        addAll(ids, embeddings, segments);
        return ids;
    }

    /**
     * Stores the entries in one transaction: all or, if it throws, none. An id already stored is
     * replaced.
     *
     * @param segments {@code null} to store the embeddings without segments; else one per
     *                 embedding ({@code null} elements allowed)
     * @throws IllegalArgumentException if the lists differ in size, an id is blank, a vector does
     *                                  not fit the store, or a {@code timestamp} is not epoch
     *                                  milliseconds
     */
    @Override
    public void addAll(List<String> ids, List<Embedding> embeddings, List<TextSegment> segments) {
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(embeddings, "embeddings");
        if (ids.size() != embeddings.size() || (segments != null && segments.size() != ids.size())) {
            throw new IllegalArgumentException("ids, embeddings and segments differ in size: " + ids.size() + ", "
                    + embeddings.size() + (segments == null ? "" : ", " + segments.size()));
        }
        List<Memory> memories = new ArrayList<>(ids.size());
        List<float[]> vectorList = new ArrayList<>(ids.size());
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("id cannot be null or blank");
            }
            memories.add(Segments.toMemory(id, segments == null ? null : segments.get(i), defaultAgent));
            vectorList.add(Objects.requireNonNull(embeddings.get(i), "embedding " + i).vector());
        }
        vectors.put(memories, vectorList);
    }

    /**
     * The entries most similar to the request's {@code queryEmbedding}, best first, by exact
     * cosine similarity, each passing the request's filter.
     *
     * @throws IllegalArgumentException if the request has no query embedding or it does not fit
     *                                  the store
     */
    @Override
    public EmbeddingSearchResult<TextSegment> search(EmbeddingSearchRequest request) {
        Objects.requireNonNull(request, "request");
        if (request.queryEmbedding() == null) {
            throw new IllegalArgumentException("this store searches by queryEmbedding, and the request has none;"
                    + " for a search by text use FunesContentRetriever");
        }
        FilterPushdown pushdown = Pushdown.of(request.filter());
        if (pushdown.impossible()) {
            return new EmbeddingSearchResult<>(List.of());
        }
        double minSimilarity = 2 * request.minScore() - 1 - SIMILARITY_SLACK;
        VectorQuery query = new VectorQuery(request.queryEmbedding().vector(), request.maxResults(), minSimilarity,
                filters(pushdown), exactly(request.filter()));
        List<EmbeddingMatch<TextSegment>> matches = new ArrayList<>();
        for (VectorHit hit : vectors.search(query)) {
            double score = RelevanceScore.fromCosineSimilarity(hit.similarity());
            if (score >= request.minScore()) {
                matches.add(new EmbeddingMatch<>(score, hit.memory().id(), Embedding.from(hit.vector()),
                        Segments.toSegment(hit.memory())));
            }
        }
        return new EmbeddingSearchResult<>(matches);
    }

    /**
     * Removes one entry (any memory of the store with that id).
     *
     * @throws IllegalArgumentException if {@code id} is null or blank
     */
    @Override
    public void remove(String id) {
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException("id cannot be null or blank");
        }
        vectors.delete(List.of(id));
    }

    /**
     * Removes entries by id, in one transaction.
     *
     * @throws IllegalArgumentException if {@code ids} is null or empty
     */
    @Override
    public void removeAll(Collection<String> ids) {
        if (ids == null || ids.isEmpty()) {
            throw new IllegalArgumentException("ids cannot be null or empty");
        }
        vectors.delete(ids);
    }

    /**
     * Removes the entries whose metadata passes {@code filter}, memories read from logs included,
     * in one transaction.
     *
     * @throws IllegalArgumentException if {@code filter} is null
     */
    @Override
    public void removeAll(Filter filter) {
        if (filter == null) {
            throw new IllegalArgumentException("filter cannot be null");
        }
        FilterPushdown pushdown = Pushdown.of(filter);
        if (pushdown.impossible()) {
            return;
        }
        vectors.delete(vectors.scan(filters(pushdown), exactly(filter)).stream().map(Memory::id).toList());
    }

    /** Removes every memory of the Funes store, those read from logs included, in one transaction. */
    @Override
    public void removeAll() {
        vectors.delete(vectors.scan(null, null).stream().map(Memory::id).toList());
    }

    private static SearchRequest filters(FilterPushdown pushdown) {
        // The query text of a filter-only request is never used.
        return pushdown.isEmpty() ? null : pushdown.request("*", 1);
    }

    private static Predicate<Memory> exactly(Filter filter) {
        return filter == null ? null : m -> filter.test(Segments.metadata(m));
    }

    @Override
    public String toString() {
        return "FunesEmbeddingStore[" + vectors + "]";
    }
}
