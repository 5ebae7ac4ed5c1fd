package dev.funes.bench.eval;

import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.store.FusionOptions;
import dev.funes.store.RerankOptions;
import dev.funes.store.StoreOptions;

import java.util.ArrayList;
import java.util.List;

/**
 * The configurations the evaluation compares, each one a store option set and a
 * {@link Retrieval} mode of the store's own search (nothing is re-ranked here):
 *
 * <ul>
 *   <li>{@value #LEXICAL}: {@link Retrieval#LEXICAL}, FTS5 BM25 over text and identifier terms;
 *       measured once (it does not depend on the model);</li>
 *   <li>{@code dense <model>}: {@link Retrieval#DENSE};</li>
 *   <li>{@code hybrid RRF <model>}: reciprocal rank fusion (k = 60), no rerank stage;</li>
 *   <li>{@code hybrid min-max <model>}: min-max normalised score fusion, equal weights, no rerank;</li>
 *   <li>{@code hybrid min-max + rerank <model>}: the store's defaults
 *       ({@link StoreOptions#defaults()}), what a caller gets, unless the run changes its fusion
 *       weights or neighbours' share ({@code --dense-weight}, {@code --neighbour-weight}).</li>
 * </ul>
 *
 * <p>Configurations sharing store options form one {@link Group}: the store is opened once per
 * group and every question searched once per configuration of it.
 */
final class Configs {

    /** The name of the lexical configuration. */
    static final String LEXICAL = "BM25";

    private Configs() {
    }

    /** One configuration: its report name and the search mode. */
    record Config(String name, Retrieval mode) {
    }

    /** Configurations that share store options. */
    record Group(String label, StoreOptions options, List<Config> configs) {
    }

    static String dense(String model) {
        return "dense " + model;
    }

    static String rrf(String model) {
        return "hybrid RRF " + model;
    }

    static String minMax(String model) {
        return "hybrid min-max " + model;
    }

    static String rerank(String model) {
        return "hybrid min-max + rerank " + model;
    }

    /** The configurations of every model, in report order. */
    static List<String> names(List<String> models) {
        List<String> names = new ArrayList<>();
        names.add(LEXICAL);
        models.forEach(m -> names.add(dense(m)));
        models.forEach(m -> names.add(rrf(m)));
        models.forEach(m -> names.add(minMax(m)));
        models.forEach(m -> names.add(rerank(m)));
        return names;
    }

    /**
     * The groups measured with one model's store.
     *
     * @param withLexical whether this store also measures {@value #LEXICAL} (the first model's does)
     * @param tuned       the options of {@code hybrid min-max + rerank}
     */
    static List<Group> groups(String model, boolean withLexical, StoreOptions tuned) {
        StoreOptions plain = StoreOptions.builder().fusion(FusionOptions.RRF).rerank(RerankOptions.NONE).build();
        List<Config> first = new ArrayList<>();
        if (withLexical) {
            first.add(new Config(LEXICAL, Retrieval.LEXICAL));
        }
        first.add(new Config(dense(model), Retrieval.DENSE));
        first.add(new Config(rrf(model), Retrieval.HYBRID));
        return List.of(
                new Group("RRF, no rerank", plain, List.copyOf(first)),
                new Group("min-max, no rerank", StoreOptions.builder().fusion(FusionOptions.MINMAX)
                        .rerank(RerankOptions.NONE).build(), List.of(new Config(minMax(model), Retrieval.HYBRID))),
                new Group("defaults", tuned, List.of(new Config(rerank(model), Retrieval.HYBRID))));
    }

    /** The lexical group alone, for {@code --lexical-only}. */
    static List<Group> lexicalOnly() {
        return List.of(new Group("lexical", StoreOptions.builder().rerank(RerankOptions.NONE).build(),
                List.of(new Config(LEXICAL, Retrieval.LEXICAL))));
    }

    /** The store's hits for the query, {@link Metrics#DEPTH} deep, within {@code session} when not null. */
    static List<SearchHit> hits(MemoryStore store, String query, String session, Retrieval mode) {
        SearchRequest.Builder b = SearchRequest.builder(query).limit(Metrics.DEPTH).retrieval(mode);
        if (session != null) {
            b.session(session);
        }
        return store.search(b.build());
    }

    /**
     * The store's ranking for the query, {@link Metrics#DEPTH} deep, within {@code session} when
     * not null, as what each hit cites and returns: its passage when it has one, else its memory.
     */
    static List<Memory> ranking(MemoryStore store, String query, String session, Retrieval mode) {
        SearchRequest.Builder b = SearchRequest.builder(query).limit(Metrics.DEPTH).retrieval(mode);
        if (session != null) {
            b.session(session);
        }
        List<Memory> ranked = new ArrayList<>(Metrics.DEPTH);
        for (SearchHit hit : store.search(b.build())) {
            // What the hit returns and cites: its passage when it has one (the lines that answer).
            ranked.add(hit.passage() != null ? hit.passage() : hit.memory());
        }
        return ranked;
    }
}
