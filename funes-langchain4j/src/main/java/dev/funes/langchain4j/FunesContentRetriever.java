package dev.funes.langchain4j;

import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.adapter.FilterPushdown;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.store.embedding.filter.Filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A LangChain4j {@link ContentRetriever} answering from a Funes store with its hybrid search
 * (dense vectors and BM25 over the text, fused by rank), so a RAG pipeline gets Funes's memories
 * of agent sessions, each with where it came from.
 *
 * <pre>{@code
 * ContentRetriever retriever = FunesContentRetriever.builder(store).maxResults(3).build();
 * RetrievalAugmentor augmentor = DefaultRetrievalAugmentor.builder().contentRetriever(retriever).build();
 * }</pre>
 *
 * <p>Each {@link Content} has the memory's text as its segment (or, when passages of it answer,
 * those passages: {@link SearchHit#returnedText()}), with the segment metadata that
 * {@link FunesEmbeddingStore} gives a memory: {@code kind}, {@code agent}, {@code project},
 * {@code session}, {@code timestamp}, {@code startedAt}, {@code endedAt} and, for memories read
 * from a log, the provenance {@code source} (absolute path), {@code lineStart}, {@code lineEnd}
 * (1-based, inclusive), {@code byteStart}, {@code byteEnd}; entries added through LangChain4j
 * keep their own metadata. Its content metadata holds {@link ContentMetadata#SCORE} (the fused
 * score: higher is better, comparable only within one answer) and
 * {@link ContentMetadata#EMBEDDING_ID} (the memory id). Embeddings stored without a segment have
 * no text to give and are never returned.
 *
 * <p>Thread-safe. The store stays the caller's.
 */
public final class FunesContentRetriever implements ContentRetriever {

    /** The default number of contents per query. */
    public static final int DEFAULT_MAX_RESULTS = 5;

    private final MemoryStore store;
    private final int maxResults;
    private final Filter filter;

    private FunesContentRetriever(Builder b) {
        this.store = b.store;
        this.maxResults = b.maxResults;
        this.filter = b.filter;
    }

    /** A builder over {@code store}. */
    public static Builder builder(MemoryStore store) {
        return new Builder(store);
    }

    /**
     * The best memories for the query's text, best first, at most {@code maxResults}, each
     * passing the filter; none for a blank query.
     *
     * @throws dev.funes.StoreException     if the store cannot be read
     * @throws dev.funes.EmbeddingException if the query cannot be embedded
     */
    @Override
    public List<Content> retrieve(Query query) {
        Objects.requireNonNull(query, "query");
        if (query.text() == null || query.text().isBlank()) {
            return List.of();
        }
        FilterPushdown pushdown = Pushdown.of(filter);
        if (pushdown.impossible()) {
            return List.of();
        }
        // Exact filtering and text-less entries drop hits after the search: ask for more.
        int limit = Math.min(SearchRequest.MAX_LIMIT, filter == null ? maxResults + 10 : Math.max(5 * maxResults, 50));
        List<Content> contents = new ArrayList<>();
        for (SearchHit hit : store.search(pushdown.request(query.text(), limit))) {
            if (!Segments.hasText(hit.memory())) {
                continue;
            }
            TextSegment segment = Segments.toSegment(hit.memory());
            if (filter != null && !filter.test(segment.metadata())) {
                continue;
            }
            if (hit.passage() != null) {
                // The passages that answer are the segment's text; the metadata stays the memory's.
                segment = TextSegment.from(hit.returnedText(), segment.metadata());
            }
            contents.add(Content.from(segment, Map.of(ContentMetadata.SCORE, hit.score(),
                    ContentMetadata.EMBEDDING_ID, hit.memory().id())));
            if (contents.size() == maxResults) {
                break;
            }
        }
        return contents;
    }

    @Override
    public String toString() {
        return "FunesContentRetriever[maxResults=" + maxResults + (filter == null ? "" : ", filter=" + filter) + "]";
    }

    /** Builds a {@link FunesContentRetriever}; not thread-safe. */
    public static final class Builder {
        private final MemoryStore store;
        private int maxResults = DEFAULT_MAX_RESULTS;
        private Filter filter;

        private Builder(MemoryStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** At most this many contents per query, 1 to {@value SearchRequest#MAX_LIMIT}; default {@value FunesContentRetriever#DEFAULT_MAX_RESULTS}. */
        public Builder maxResults(int maxResults) {
            if (maxResults < 1 || maxResults > SearchRequest.MAX_LIMIT) {
                throw new IllegalArgumentException("maxResults must be between 1 and " + SearchRequest.MAX_LIMIT
                        + ", was " + maxResults);
            }
            this.maxResults = maxResults;
            return this;
        }

        /**
         * Only memories whose segment metadata passes this LangChain4j filter (evaluated exactly;
         * see {@link FunesEmbeddingStore} for the keys applied in SQL first); {@code null} for all.
         */
        public Builder filter(Filter filter) {
            this.filter = filter;
            return this;
        }

        /** The retriever. */
        public FunesContentRetriever build() {
            return new FunesContentRetriever(this);
        }
    }
}
