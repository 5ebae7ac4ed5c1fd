package dev.funes.bench.eval;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A measurement of a second embedding model on the coding set: each question's BM25 list and the
 * dense lists of two models' stores (memories with their passages rolled up, 100 deep) fused by
 * min-max normalised scores with several weightings, against the store's default search with the
 * first model. docs/EVALUATION.md ("A second model") has the figures and why no second model is
 * stored. The stores are built in, or read from, the cache folder as {@link Evaluate} builds them.
 *
 * <pre>
 * java -Dfunes.root=. -cp "funes-benchmarks/target/funes-benchmarks.jar:funes-benchmarks/target/lib/*" \
 *      dev.funes.bench.eval.Ensemble CACHE_DIR all-minilm-l6-v2-q e5-small-v2-q
 * </pre>
 */
public final class Ensemble {

    private Ensemble() {
    }

    /**
     * Prints the table.
     *
     * @param args the cache folder, the first model id, the second model id
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: Ensemble CACHE_DIR FIRST_MODEL SECOND_MODEL");
            System.exit(2);
        }
        Path cache = Path.of(args[0]);
        String a = args[1];
        String b = args[2];
        Path root = Path.of(System.getProperty("funes.root", ".")).toAbsolutePath();
        Path fixtures = root.resolve("../shared/fixtures").normalize();
        CodingEval.Prepared data = CodingEval.prepare(fixtures, Evaluate.questions(null));
        Map<Path, Path> real = new HashMap<>();
        Map<String, Map<String, List<SearchHit>>> lists = new LinkedHashMap<>();
        try (StoreDirs dirs = new StoreDirs(cache)) {
            for (String model : List.of(a, b)) {
                try (Embedder e = Embedders.forModelId(model);
                     MemoryStore store = FunesStore.open(dirs.dirFor("coding-passages", model, data.memoryIds()), e,
                             StoreOptions.defaults())) {
                    Indexer.builder(store).build().index(List.of(data.fixtures()));
                    for (CodingQuestions.Question q : data.counted()) {
                        Map<String, List<SearchHit>> m = lists.computeIfAbsent(q.id(), k -> new LinkedHashMap<>());
                        m.put("dense " + model, store.search(SearchRequest.builder(q.question()).limit(100)
                                .retrieval(Retrieval.DENSE).build()));
                        if (model.equals(a)) {
                            m.put("lex", store.search(SearchRequest.builder(q.question()).limit(100)
                                    .retrieval(Retrieval.LEXICAL).build()));
                            m.put("default " + model, store.search(SearchRequest.builder(q.question()).limit(20).build()));
                        }
                    }
                }
            }
        }
        Map<String, double[]> weights = new LinkedHashMap<>();
        weights.put("minmax " + a, new double[] {0.5, 0, 0.5});
        weights.put("minmax " + b, new double[] {0, 0.5, 0.5});
        weights.put("minmax both (1/3 each)", new double[] {1 / 3.0, 1 / 3.0, 1 / 3.0});
        weights.put("minmax both (.25 .25 .5)", new double[] {0.25, 0.25, 0.5});
        Map<String, double[]> sums = new LinkedHashMap<>();
        for (CodingQuestions.Question q : data.counted()) {
            Predicate<SearchHit> answers = h -> CodingEval.hitAnswers(data.fixtures(), q, h, real);
            Map<String, List<SearchHit>> m = lists.get(q.id());
            add(sums, "default " + a, m.get("default " + a), answers);
            for (Map.Entry<String, double[]> w : weights.entrySet()) {
                add(sums, w.getKey(), fuse(List.of(m.get("dense " + a), m.get("dense " + b), m.get("lex")), w.getValue()),
                        answers);
            }
        }
        int n = data.counted().size();
        System.out.println("| configuration | recall@1 | @5 | @10 | MRR@20 |");
        for (Map.Entry<String, double[]> e : sums.entrySet()) {
            double[] s = e.getValue();
            System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | %.3f |%n", e.getKey(), s[0] / n, s[1] / n,
                    s[2] / n, s[3] / n);
        }
    }

    private static void add(Map<String, double[]> sums, String name, List<SearchHit> ranked, Predicate<SearchHit> ok) {
        double[] s = sums.computeIfAbsent(name, k -> new double[4]);
        s[0] += Metrics.successAt(ranked, ok, 1);
        s[1] += Metrics.successAt(ranked, ok, 5);
        s[2] += Metrics.successAt(ranked, ok, 10);
        s[3] += Metrics.reciprocalRank(ranked.subList(0, Math.min(20, ranked.size())), ok);
    }

    /**
     * Min-max fusion of ranked lists by memory id, the last list lexical (BM25 scores), the others
     * dense (cosine); a hit keeps the passage of the list that gave it the most.
     */
    static List<SearchHit> fuse(List<List<SearchHit>> lists, double[] w) {
        Map<String, Double> score = new HashMap<>();
        Map<String, SearchHit> hit = new HashMap<>();
        Map<String, Double> bestPart = new HashMap<>();
        for (int i = 0; i < lists.size(); i++) {
            if (w[i] == 0) {
                continue;
            }
            List<SearchHit> l = lists.get(i);
            double max = Double.NEGATIVE_INFINITY;
            double min = Double.POSITIVE_INFINITY;
            for (SearchHit h : l) {
                double v = raw(h, i == lists.size() - 1);
                max = Math.max(max, v);
                min = Math.min(min, v);
            }
            for (SearchHit h : l) {
                double v = raw(h, i == lists.size() - 1);
                double norm = max > min ? (v - min) / (max - min) : 1;
                String id = h.memory().id();
                score.merge(id, w[i] * norm, Double::sum);
                if (w[i] * norm > bestPart.getOrDefault(id, -1.0)) {
                    bestPart.put(id, w[i] * norm);
                    hit.put(id, h);
                }
            }
        }
        List<String> ids = new ArrayList<>(score.keySet());
        ids.sort((x, y) -> Double.compare(score.get(y), score.get(x)));
        List<SearchHit> out = new ArrayList<>();
        for (String id : ids.subList(0, Math.min(20, ids.size()))) {
            out.add(hit.get(id));
        }
        return out;
    }

    private static double raw(SearchHit h, boolean lexical) {
        return lexical ? h.parts().lexicalScore() : h.parts().denseSimilarity();
    }
}
