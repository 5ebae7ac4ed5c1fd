package dev.funes.solr;

import dev.funes.MemoryStore;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;

import dev.funes.store.HybridRanking;
import dev.funes.store.StoreOptions;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * One search over the local store and a team collection at once, the two rankings merged
 * ({@link #merge}). A memory found in both (one's own, published) is one hit. The team side failing or not
 * answering in time never fails the search: the local hits come back with a warning.
 */
public final class FederatedSearch {

    /** Where a hit came from. */
    public enum Source {
        /** the local store only */
        LOCAL,
        /** the team collection only */
        TEAM,
        /** both */
        BOTH
    }

    /**
     * A merged hit.
     *
     * @param hit    the hit (the local store's when both found it)
     * @param source where it came from
     * @param origin the machine that published it to the team, or null
     * @param owner  who published it, or null
     */
    public record Hit(SearchHit hit, Source source, String origin, String owner) {
    }

    /**
     * The merged hits and, when the team side failed, why.
     *
     * @param hits    best first, at most the request's limit
     * @param warning empty unless the team collection could not be searched
     */
    public record Result(List<Hit> hits, Optional<String> warning) {
    }

    private FederatedSearch() {
    }

    /**
     * Searches both; the team side on another thread, given at most {@code timeoutMillis} past
     * the local search.
     *
     * @param team opens the team store (opening may fail too: that is a warning as well); the
     *             store is closed after the search
     */
    public static Result search(MemoryStore local, Supplier<SolrMemoryStore> team, SearchRequest request,
                                long timeoutMillis) {
        Objects.requireNonNull(team, "team");
        return searchBoth(local, () -> {
            try (SolrMemoryStore store = team.get()) {
                return store.searchTeam(request);
            }
        }, request, timeoutMillis);
    }

    /**
     * {@link #search(MemoryStore, Supplier, SearchRequest, long)} with a team store kept across
     * searches: opened at the first (or, while opening fails, at the next), never closed here.
     */
    public static Result search(MemoryStore local, KeptTeamStore team, SearchRequest request, long timeoutMillis) {
        Objects.requireNonNull(team, "team");
        return searchBoth(local, () -> team.get().searchTeam(request), request, timeoutMillis);
    }

    private static Result searchBoth(MemoryStore local, Supplier<List<TeamHit>> team, SearchRequest request,
                                     long timeoutMillis) {
        Objects.requireNonNull(local, "local");
        CompletableFuture<List<TeamHit>> remote = CompletableFuture.supplyAsync(team);
        List<SearchHit> mine = local.search(request);
        List<TeamHit> theirs = List.of();
        String warning = null;
        try {
            theirs = remote.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            remote.cancel(true);
            warning = "the team collection did not answer within " + timeoutMillis + " ms; local results only";
        } catch (ExecutionException e) {
            warning = "the team collection could not be searched (" + e.getCause().getMessage() + "); local results only";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            warning = "interrupted while searching the team collection; local results only";
        }
        return new Result(merge(request, mine, theirs), Optional.ofNullable(warning));
    }

    /**
     * The two rankings merged by fusing their hits again, as one store fuses its candidates
     * ({@link HybridRanking}): cosine similarities compare across stores (one model); BM25 scores
     * do not (other statistics, another engine's formula), so each store's are first scaled to
     * its best match. A memory in both is one hit, with the local store's scores.
     */
    static List<Hit> merge(SearchRequest request, List<SearchHit> local, List<TeamHit> team) {
        if (team.isEmpty() || local.isEmpty()) { // one ranking: as that store ranked it
            List<Hit> one = new ArrayList<>();
            local.forEach(h -> one.add(new Hit(h, Source.LOCAL, null, null)));
            team.forEach(t -> one.add(new Hit(t.hit(), Source.TEAM, t.origin(), t.owner())));
            return one;
        }
        Map<String, Hit> hits = new LinkedHashMap<>();
        for (SearchHit h : local) {
            hits.put(h.memory().id(), new Hit(h, Source.LOCAL, null, null));
        }
        for (TeamHit t : team) {
            String id = t.hit().memory().id();
            Hit mine = hits.get(id);
            hits.put(id, mine == null ? new Hit(t.hit(), Source.TEAM, t.origin(), t.owner())
                    : new Hit(mine.hit(), Source.BOTH, t.origin(), t.owner()));
        }
        double localBest = bestLexical(local);
        double teamBest = bestLexical(team.stream().map(TeamHit::hit).toList());
        List<Hit> dense = new ArrayList<>();
        List<Hit> lexical = new ArrayList<>();
        Map<String, Double> scaled = new HashMap<>();
        for (Hit h : hits.values()) {
            ScoreParts p = h.hit().parts();
            if (p.denseRank() > 0) {
                dense.add(h);
            }
            if (p.lexicalRank() > 0) {
                lexical.add(h);
                double best = h.source() == Source.TEAM ? teamBest : localBest;
                scaled.put(h.hit().memory().id(), best > 0 ? p.lexicalScore() / best : 0);
            }
        }
        dense.sort(Comparator.comparingDouble((Hit h) -> h.hit().parts().denseSimilarity()).reversed());
        lexical.sort(Comparator.comparingDouble((Hit h) -> scaled.get(h.hit().memory().id())).reversed());
        HybridRanking ranking = HybridRanking.of(request, StoreOptions.defaults());
        for (int i = 0; i < dense.size(); i++) {
            ranking.dense(dense.get(i).hit().memory(), i + 1, dense.get(i).hit().parts().denseSimilarity());
        }
        for (int i = 0; i < lexical.size(); i++) {
            Hit h = lexical.get(i);
            ranking.lexical(h.hit().memory(), i + 1, scaled.get(h.hit().memory().id()));
        }
        List<Hit> out = new ArrayList<>();
        for (SearchHit fused : ranking.hits(ids -> Map.of())) {
            Hit was = hits.get(fused.memory().id());
            SearchHit hit = new SearchHit(was.hit().memory(), fused.score(), fused.parts(), was.hit().passage(),
                    was.hit().morePassages());
            out.add(new Hit(hit, was.source(), was.origin(), was.owner()));
        }
        return out;
    }

    private static double bestLexical(List<SearchHit> hits) {
        double best = 0;
        for (SearchHit h : hits) {
            if (h.parts().lexicalRank() > 0) {
                best = Math.max(best, h.parts().lexicalScore());
            }
        }
        return best;
    }
}
