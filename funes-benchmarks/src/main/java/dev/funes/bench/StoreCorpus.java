package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.bench.corpus.BuildCorpus;
import dev.funes.bench.corpus.VectorCorpus;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreVectors;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A store holding one memory per vector of a {@link VectorCorpus}, written through the public
 * {@link FunesStore#vectors} API with the corpus's vectors (nothing is re-embedded), built once
 * and kept in the corpus cache for the store benchmarks.
 */
public final class StoreCorpus {

    /** The file written last, once the store is complete: its presence means "built". */
    static final String BUILT = "funes-bench-built";
    /** Memories per session: the corpus's texts of one parent are not one conversation, but sessions need a size. */
    private static final int SESSION = 100;
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private StoreCorpus() {
    }

    /** The memory made of corpus vector {@code i}. */
    static Memory memory(VectorCorpus corpus, int i) {
        Instant at = START.plusSeconds(60L * i);
        return Memory.builder(MemoryKind.EXCHANGE, corpus.agent(i), corpus.text(i))
                .id(String.format(Locale.ROOT, "bench-%08d", i))
                .project("funes-bench")
                .session(String.format(Locale.ROOT, "bench-session-%06d", i / SESSION))
                .time(at, at)
                .build();
    }

    /**
     * The folder of a store built from {@code corpus}, building it first if it is missing or
     * incomplete (a build that was interrupted is started over).
     *
     * @param batch memories per {@link StoreVectors#put} call (one transaction each)
     */
    public static Path ensure(VectorCorpus corpus, Path dir, Embedder embedder, int batch, PrintStream log)
            throws IOException {
        if (Files.exists(dir.resolve(BUILT))) {
            return dir;
        }
        IngestAndSearch.deleteTree(dir);
        Files.createDirectories(dir);
        log.printf(Locale.ROOT, "store: writing %d memories with their corpus vectors to %s%n", corpus.size(), dir);
        long t0 = System.nanoTime();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            for (int from = 0; from < corpus.size(); from += batch) {
                int to = Math.min(corpus.size(), from + batch);
                List<Memory> memories = new ArrayList<>(to - from);
                List<float[]> vs = new ArrayList<>(to - from);
                for (int i = from; i < to; i++) {
                    memories.add(memory(corpus, i));
                    vs.add(corpus.vector(i));
                }
                vectors.put(memories, vs);
                log.printf(Locale.ROOT, "store: %d of %d written, %.1f s%n", to, corpus.size(), (System.nanoTime() - t0) / 1e9);
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        String line = String.format(Locale.ROOT, "store built: %d memories in %.1f s (batches of %d, java %s)",
                corpus.size(), seconds, batch, System.getProperty("java.version"));
        Files.writeString(dir.resolve(BUILT), line + System.lineSeparator());
        log.println(line);
        return dir;
    }

    /**
     * Builds the store of a corpus ahead of the store benchmarks (a 1M build takes far longer
     * than JMH's set-up should): {@code StoreCorpus SOURCE QUERIES SEED SIZE}, for example
     * {@code StoreCorpus full 500 42 1000000}; the corpus must be cached or buildable
     * ({@link BuildCorpus}). A store already built is left as it is.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            System.err.println("usage: StoreCorpus SOURCE QUERIES SEED SIZE  (e.g. full 500 42 1000000)");
            System.exit(2);
        }
        String source = args[0];
        int queries = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        int size = Integer.parseInt(args[3]);
        VectorCorpus corpus = VectorCorpus.load(source, size, queries, seed, BuildCorpus.sharedDir(),
                BuildCorpus.cacheDir(), System.out);
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT)) {
            Path dir = ensure(corpus, StoreSearchBenchmark.storeDir(source, size, seed), embedder,
                    StoreSearchBenchmark.batch(size), System.out);
            System.out.println("store: " + dir + " (" + Files.readString(dir.resolve(BUILT)).strip() + ")");
        }
    }

    /** Heap in use after two full collections, in MiB. */
    static double heapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return (rt.totalMemory() - rt.freeMemory()) / (1024.0 * 1024.0);
    }
}
