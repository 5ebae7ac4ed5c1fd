package dev.funes.springai;

import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.adapter.FilterPushdown;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.rag.retrieval.search.VectorStoreDocumentRetriever;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.FilterExpressionTextParser;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Spring AI {@link DocumentRetriever} answering from a Funes store with its hybrid search
 * (dense vectors and BM25 over the text, fused, locally reranked), so a RAG pipeline
 * ({@code RetrievalAugmentationAdvisor}) gets Funes's memories of agent sessions, each with where
 * it came from.
 *
 * <pre>{@code
 * DocumentRetriever retriever = FunesDocumentRetriever.builder(store).topK(3).build();
 * Advisor rag = RetrievalAugmentationAdvisor.builder().documentRetriever(retriever).build();
 * }</pre>
 *
 * <p>Each document is a memory: its id, its text (or the passages of it that answer best), the
 * metadata {@link FunesVectorStore} gives it ({@code kind}, {@code agent}, {@code project},
 * {@code session}, {@code timestamp}, {@code startedAt}, {@code endedAt} and, for memories read
 * from a log, {@code source}, {@code lineStart}, {@code lineEnd}, {@code byteStart},
 * {@code byteEnd}; documents added through Spring AI keep their own), and the fused score as its
 * {@linkplain Document#getScore() score} (higher is better, comparable only within one answer;
 * not a cosine, so there is no similarity threshold).
 *
 * <p>A filter expression, set here or per request in the query's context under
 * {@link VectorStoreDocumentRetriever#FILTER_EXPRESSION} (an expression or its text, which
 * replaces the one set here, as in Spring AI's own retriever), is evaluated as
 * {@link FunesVectorStore} evaluates it. Thread-safe. The store stays the caller's.
 */
public final class FunesDocumentRetriever implements DocumentRetriever {

    /** The default number of documents per query (Spring AI's default {@code topK}). */
    public static final int DEFAULT_TOP_K = org.springframework.ai.vectorstore.SearchRequest.DEFAULT_TOP_K;

    private final MemoryStore store;
    private final int topK;
    private final Filter.Expression filterExpression;
    private final String file;

    private FunesDocumentRetriever(Builder b) {
        this.store = b.store;
        this.topK = b.topK;
        this.filterExpression = b.filterExpression;
        this.file = b.file;
    }

    /** A builder over {@code store}. */
    public static Builder builder(MemoryStore store) {
        return new Builder(store);
    }

    /**
     * The best memories for the query's text, best first, at most {@code topK}, each passing the
     * filter expression; none for a blank query.
     *
     * @throws IllegalArgumentException     if Funes cannot evaluate the filter expression (the
     *                                      message names it)
     * @throws dev.funes.StoreException     if the store cannot be read
     * @throws dev.funes.EmbeddingException if the query cannot be embedded
     */
    @Override
    public List<Document> retrieve(Query query) {
        Objects.requireNonNull(query, "query");
        Filter.Expression expression = expression(query);
        if (expression != null) {
            Expressions.check(expression);
        }
        if (query.text() == null || query.text().isBlank()) {
            return List.of();
        }
        FilterPushdown pushdown = Pushdown.of(expression).file(file);
        if (pushdown.impossible()) {
            return List.of();
        }
        // Exact filtering drops hits after the search: ask for more.
        int limit = Math.min(SearchRequest.MAX_LIMIT, expression == null ? topK : Math.max(5 * topK, 50));
        List<Document> documents = new ArrayList<>();
        for (SearchHit hit : store.search(pushdown.request(query.text(), limit))) {
            Map<String, Object> metadata = Documents.metadata(hit.memory());
            if (expression != null && !Expressions.test(expression, metadata)) {
                continue;
            }
            // The passages that answer are the document's text; the metadata stays the memory's.
            documents.add(Documents.toDocument(hit.memory(), hit.returnedText(), metadata, hit.score()));
            if (documents.size() == topK) {
                break;
            }
        }
        return documents;
    }

    private Filter.Expression expression(Query query) {
        Object perRequest = query.context() == null ? null
                : query.context().get(VectorStoreDocumentRetriever.FILTER_EXPRESSION);
        if (perRequest == null) {
            return filterExpression;
        }
        if (perRequest instanceof Filter.Expression e) {
            return e;
        }
        if (perRequest instanceof String text && !text.isBlank()) {
            return new FilterExpressionTextParser().parse(text);
        }
        throw new IllegalArgumentException("the query context's " + VectorStoreDocumentRetriever.FILTER_EXPRESSION
                + " is neither a Filter.Expression nor its text: " + perRequest);
    }

    @Override
    public String toString() {
        return "FunesDocumentRetriever[topK=" + topK + (filterExpression == null ? "" : ", filter=" + filterExpression)
                + (file == null ? "" : ", file=" + file) + "]";
    }

    /** Builds a {@link FunesDocumentRetriever}; not thread-safe. */
    public static final class Builder {
        private final MemoryStore store;
        private int topK = DEFAULT_TOP_K;
        private Filter.Expression filterExpression;
        private String file;

        private Builder(MemoryStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /** At most this many documents per query, 1 to {@value SearchRequest#MAX_LIMIT}; default 4. */
        public Builder topK(int topK) {
            if (topK < 1 || topK > SearchRequest.MAX_LIMIT) {
                throw new IllegalArgumentException("topK must be between 1 and " + SearchRequest.MAX_LIMIT
                        + ", was " + topK);
            }
            this.topK = topK;
            return this;
        }

        /**
         * Only memories whose metadata passes this expression; {@code null} for all.
         *
         * @throws IllegalArgumentException if Funes cannot evaluate it (the message names it)
         */
        public Builder filterExpression(Filter.Expression filterExpression) {
            if (filterExpression != null) {
                Expressions.check(filterExpression);
            }
            this.filterExpression = filterExpression;
            return this;
        }

        /**
         * Only memories whose metadata passes this expression in Spring AI's filter language (for
         * example {@code kind == 'decision' && project == '/home/dev/ledger'}); {@code null} for all.
         *
         * @throws IllegalArgumentException if Funes cannot evaluate it (the message names it)
         */
        public Builder filterExpression(String filterExpression) {
            return filterExpression(filterExpression == null ? null
                    : new FilterExpressionTextParser().parse(filterExpression));
        }

        /**
         * Only memories that name this file (a path suffix such as {@code store/Schema.java}, or a
         * file name) in their text, tool lines or metadata: Funes's file filter, which Spring AI's
         * filter language cannot express; {@code null} for any.
         *
         * @throws IllegalArgumentException if it is blank
         */
        public Builder file(String file) {
            if (file != null) {
                SearchRequest.builder("*").file(file).build(); // refuses a blank one now, not at the first query
            }
            this.file = file;
            return this;
        }

        /** The retriever. */
        public FunesDocumentRetriever build() {
            return new FunesDocumentRetriever(this);
        }
    }
}
