package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.bench.corpus.BuildCorpus;
import dev.funes.bench.corpus.VectorCorpus;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the sign codes' first cut of a filtered scan changes in the results: each held-out
 * question of the {@link StoreSearchBenchmark} store searched with a filter, once with the scan
 * that scores every passing vector's PQ codes and once with the sign codes' pool first (the
 * store's {@code funes.signScan} switch, flipped in this JVM), the same query embeddings for
 * both. Prints, per filter and retrieval, the share of the first's top {@code limit} memory ids
 * the second also returns, how many questions differ at all, and each mode's mean time per
 * search in this one JVM (JMH's {@code StoreSearchBenchmark} gives the latencies).
 *
 * <pre>
 * SignScanCheck SIZE LIMIT FILTER...      (FILTER as StoreSearchBenchmark's filter parameter)
 * </pre>
 */
public final class SignScanCheck {

    private SignScanCheck() {
    }

    public static void main(String[] args) throws Exception {
        int size = Integer.parseInt(args[0]);
        int limit = Integer.parseInt(args[1]);
        int queries = 500;
        Path dir = StoreSearchBenchmark.storeDir("full", size, 42);
        if (!Files.exists(dir)) {
            throw new IllegalStateException("no corpus store at " + dir + ": run StoreSearchBenchmark with -p size=" + size);
        }
        VectorCorpus corpus = VectorCorpus.load("full", Math.min(size, 1000), queries, 42, BuildCorpus.sharedDir(),
                BuildCorpus.cacheDir(), System.out);
        Field signScan = Class.forName("dev.funes.store.IndexSegment").getDeclaredField("signScan");
        signScan.setAccessible(true);
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().build())) {
            System.out.println("| filter | retrieval | overlap@" + limit + " | questions that differ | ms per search, all PQ | ms, signs first |");
            System.out.println("|---|---|---:|---:|---:|---:|");
            for (int f = 2; f < args.length; f++) {
                Consumer<SearchRequest.Builder> filter = StoreSearchBenchmark.filters(args[f]);
                for (Retrieval retrieval : new Retrieval[] {Retrieval.DENSE, Retrieval.HYBRID}) {
                    List<List<String>> all = new ArrayList<>();
                    List<List<String>> signs = new ArrayList<>();
                    double[] millis = new double[2];
                    for (int round = 0; round < 2; round++) { // the first round warms up, the second counts
                        for (int mode = 0; mode < 2; mode++) {
                            signScan.setBoolean(null, mode == 1);
                            List<List<String>> into = mode == 0 ? all : signs;
                            into.clear();
                            long t0 = System.nanoTime();
                            for (int q = 0; q < corpus.queryCount(); q++) {
                                SearchRequest.Builder request = SearchRequest.builder(corpus.queryText(q)).limit(limit)
                                        .retrieval(retrieval);
                                filter.accept(request);
                                List<String> ids = new ArrayList<>();
                                for (SearchHit hit : store.search(request.build())) {
                                    ids.add(hit.memory().id());
                                }
                                into.add(ids);
                            }
                            millis[mode] = (System.nanoTime() - t0) / 1e6 / corpus.queryCount();
                        }
                    }
                    signScan.setBoolean(null, true);
                    int kept = 0;
                    int total = 0;
                    int differ = 0;
                    for (int q = 0; q < all.size(); q++) {
                        Set<String> expected = new HashSet<>(all.get(q));
                        Set<String> got = new HashSet<>(signs.get(q));
                        total += expected.size();
                        int before = got.size();
                        got.retainAll(expected);
                        kept += got.size();
                        if (!all.get(q).equals(signs.get(q)) || before != expected.size()) {
                            differ++;
                        }
                    }
                    System.out.printf(Locale.ROOT, "| `%s` | %s | %.4f | %d of %d | %.2f | %.2f |%n", args[f], retrieval,
                            total == 0 ? 1.0 : kept / (double) total, differ, all.size(), millis[0], millis[1]);
                }
            }
        }
    }
}
