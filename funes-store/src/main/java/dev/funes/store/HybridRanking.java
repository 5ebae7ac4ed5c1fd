package dev.funes.store;

import dev.funes.Memory;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The ranking half of a {@link FunesStore} search, for stores whose candidates come from
 * elsewhere (a search engine holding the memories): the dense and lexical candidate lists fused
 * ({@link FusionOptions}), reranked ({@link RerankOptions}) and passages rolled up to their
 * memories, exactly as a local search does, but for the neighbours' share
 * ({@link RerankOptions#neighbourWeight()}), which reads a local store's index of log lines and is
 * not applied here. Also the terms a local store indexes and queries, so that another engine can
 * index and query the same ones.
 *
 * <p>One instance per search; not thread-safe.
 */
public final class HybridRanking {

    /** Candidates each list brings per hit asked for, beyond {@link StoreOptions#candidates()}. */
    static final int CANDIDATES_PER_HIT = 5;

    private final SearchRequest request;
    private final StoreOptions options;
    private final Fusion fusion;

    private HybridRanking(SearchRequest request, StoreOptions options) {
        this.request = Objects.requireNonNull(request, "request");
        this.options = Objects.requireNonNull(options, "options");
        this.fusion = new Fusion(options.fusion(), request.retrieval(), options.candidates());
    }

    /** A ranking for one search, fused and reranked as {@code options} say. */
    public static HybridRanking of(SearchRequest request, StoreOptions options) {
        return new HybridRanking(request, options);
    }

    /**
     * How many candidates each list should bring: at least {@link StoreOptions#candidates()},
     * five per hit asked for (passages roll up to fewer memories). With the default 100 every
     * search of up to 20 hits fuses the same lists; a deeper one's longer lists are scaled by
     * their first {@link StoreOptions#candidates()}, so a search's first hits do not depend on how
     * many were asked for.
     */
    public static int candidates(SearchRequest request, StoreOptions options) {
        return Math.max(options.candidates(), CANDIDATES_PER_HIT * request.limit());
    }

    /**
     * The words and identifier terms of a query, as the local full-text search asks for them:
     * stop words out, identifiers expanded ({@code parseHttpHeader} also gives {@code parse},
     * {@code http}, {@code header}), at most 64; empty when the text has no word.
     */
    public static List<String> queryTerms(String text) {
        return FtsQuery.terms(text);
    }

    /**
     * What the local store's full-text index holds of a memory's text: the text, except that a
     * passage's header line leaves out the request it quotes (the exchange's words, not the
     * passage's). Index this, and {@link #indexTerms} of it, to rank as the local store does.
     */
    public static String indexText(Memory memory) {
        return LexicalText.of(memory);
    }

    /**
     * The identifier terms the local store indexes next to a memory's text (its {@code terms}
     * column): camelCase parts, joined identifiers, file names; space-separated, possibly empty.
     */
    public static String indexTerms(String text) {
        return Terms.of(text);
    }

    /**
     * Adds the dense candidate at {@code rank} with its cosine similarity. Ranks count only the
     * candidates that pass the request's filters ({@link SearchRequest#matches}), 1 for the best;
     * memories with one text (one vector) share its rank.
     */
    public void dense(Memory memory, int rank, double similarity) {
        fusion.dense(memory, rank, similarity);
    }

    /**
     * Adds the lexical candidate at {@code rank} (among those passing the filters, 1 for the
     * best) with its BM25 score (higher is better).
     */
    public void lexical(Memory memory, int rank, double score) {
        fusion.lexical(memory, rank, score);
    }

    /**
     * The best hits, at most the request's limit: the candidates fused, reranked, passages rolled
     * up to their memories (no neighbours' share, above).
     *
     * @param owners reads the memories that passages belong to, by id (ids not stored absent)
     */
    public List<SearchHit> hits(Function<List<String>, Map<String, Memory>> owners) {
        List<Fusion.Candidate> fused = fusion.ranked();
        List<String> terms = queryTerms(request.query());
        List<SearchHit> ranked = Rerank.apply(fused, terms, options.rerank(), fused.size());
        try {
            return Rollup.apply(ranked, request.limit(), Rollup.window(options),
                    options.rerank().passageWeight(), owners::apply, terms);
        } catch (SQLException e) {
            throw new IllegalStateException("unreachable: the lookup throws no SQLException", e);
        }
    }
}
