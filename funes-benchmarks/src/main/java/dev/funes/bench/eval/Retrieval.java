package dev.funes.bench.eval;

import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The three rankings measured for one query, all produced by the store's own search code.
 *
 * <ul>
 *   <li><b>hybrid</b>: {@link MemoryStore#search} with {@code limit = }{@link Metrics#DEPTH}, exactly
 *       what a caller gets.</li>
 *   <li><b>dense</b> and <b>lexical</b>: a second search with the largest limit, whose hits carry
 *       their rank in each retriever's candidate list ({@link ScoreParts#denseRank()},
 *       {@link ScoreParts#lexicalRank()}); sorting the hits by one of those ranks gives that
 *       retriever's own ranking. It is complete to the depth measured: a candidate at rank
 *       {@code r <= 20} of one list has a fused score of at least {@code 1/(60 + r)}, and only
 *       memories ranked above 100 in neither list can beat that, at most 200 of them, far fewer
 *       than the limit of 1000. {@link #rankBy} checks it anyway.</li>
 * </ul>
 *
 * <p>The store asks each retriever for {@code max(100, 10 × limit)} candidates, so the wide search
 * reads 10,000 of each. Under a session filter with a few hundred memories (LoCoMo), the dense list
 * is an exact scan of them; without a filter it is the ANN graph searched for 10,000 neighbours.
 *
 * @param hybrid  the store's fused ranking, best first
 * @param dense   the dense retriever's ranking, best first
 * @param lexical the FTS5 BM25 ranking, best first
 */
record Retrieval(List<Memory> hybrid, List<Memory> dense, List<Memory> lexical) {

    /** Runs both searches for {@code query}, restricted to {@code session} when not null. */
    static Retrieval of(MemoryStore store, String query, String session) {
        List<SearchHit> fused = store.search(request(query, session, Metrics.DEPTH));
        List<SearchHit> wide = store.search(request(query, session, SearchRequest.MAX_LIMIT));
        List<Memory> hybrid = new ArrayList<>(fused.size());
        for (SearchHit hit : fused) {
            hybrid.add(hit.memory());
        }
        return new Retrieval(hybrid,
                rankBy(wide, h -> h.parts().denseRank(), "dense", query),
                rankBy(wide, h -> h.parts().lexicalRank(), "lexical", query));
    }

    private static SearchRequest request(String query, String session, int limit) {
        SearchRequest.Builder b = SearchRequest.builder(query).limit(limit);
        if (session != null) {
            b.session(session);
        }
        return b.build();
    }

    /**
     * The hits that were candidates of one retriever, in that retriever's rank order, cut at
     * {@link Metrics#DEPTH}. Memories sharing a vector share a dense rank; they keep the store's
     * order among themselves.
     *
     * @throws IllegalStateException if a rank is missing below the depth while the wide search was
     *                               cut at its limit (the ranking would be incomplete)
     */
    static List<Memory> rankBy(List<SearchHit> wide, ToIntFunction<SearchHit> rank, String retriever, String query) {
        List<SearchHit> candidates = new ArrayList<>();
        for (SearchHit hit : wide) {
            if (rank.applyAsInt(hit) > 0) {
                candidates.add(hit);
            }
        }
        candidates.sort(Comparator.comparingInt(rank));
        List<Memory> ranked = new ArrayList<>(Metrics.DEPTH);
        int expected = 1;
        for (SearchHit hit : candidates) {
            if (ranked.size() == Metrics.DEPTH) {
                break;
            }
            int r = rank.applyAsInt(hit);
            if (r > expected && wide.size() == SearchRequest.MAX_LIMIT) {
                throw new IllegalStateException("the " + retriever + " ranking of '" + query + "' lacks rank "
                        + expected + " (the wide search was cut at " + SearchRequest.MAX_LIMIT + " hits)");
            }
            expected = r + 1;
            ranked.add(hit.memory());
        }
        return ranked;
    }
}
