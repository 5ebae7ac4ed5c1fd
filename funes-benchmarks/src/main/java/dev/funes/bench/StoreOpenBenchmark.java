package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.bench.corpus.BuildCorpus;
import dev.funes.bench.corpus.VectorCorpus;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Opening the store of {@link StoreSearchBenchmark} (same corpus, same cached folder): single-shot
 * {@link FunesStore#open} times (the embedder is loaded beforehand and not counted), and after each
 * open the heap in use after a full GC, minus the heap before it, printed as {@code store-open-heap}.
 * Run with several forks for cold-JVM opens.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class StoreOpenBenchmark {

    /** Memories in the store. */
    @Param("100000")
    public int size;

    /** {@code full} or {@code smoke}, as for {@link StoreSearchBenchmark}. */
    @Param("full")
    public String source;

    /** Held-out queries of the corpus (only used if the store must be built first). */
    @Param("500")
    public int queries;

    /** Seed of the corpus. */
    @Param("42")
    public long seed;

    private Embedder embedder;
    private Path dir;
    private MemoryStore store;
    private double heapBefore;

    /** Builds the store if needed (outside the measurement) and loads the embedder. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        dir = StoreSearchBenchmark.storeDir(source, size, seed);
        if (!java.nio.file.Files.exists(dir.resolve(StoreCorpus.BUILT))) {
            VectorCorpus corpus = VectorCorpus.load(source, size, queries, seed, BuildCorpus.sharedDir(),
                    BuildCorpus.cacheDir(), System.out);
            StoreCorpus.ensure(corpus, dir, embedder, StoreSearchBenchmark.batch(size), System.out);
        }
    }

    /** Measures the heap before the open. */
    @Setup(Level.Iteration)
    public void beforeOpen() {
        heapBefore = StoreCorpus.heapAfterGc();
    }

    /** Opens the store. */
    @Benchmark
    public MemoryStore open() {
        store = FunesStore.open(dir, embedder);
        return store;
    }

    /** Prints the heap the open store holds, then closes it. */
    @TearDown(Level.Iteration)
    public void afterOpen() {
        double after = StoreCorpus.heapAfterGc();
        System.out.printf(Locale.ROOT, "%nstore-open-heap size=%d heap-after-open=%.0f MiB (before %.0f MiB, store %.0f MiB) %s%n",
                size, after, heapBefore, after - heapBefore, FunesStore.openReport(store).summary());
        store.close();
        // The benchmark no longer holds the closed store. Its heap is released a moment after
        // close (about 2 s at 1M), so a "before" taken sooner may still count it: read the
        // first open of each fork for the store's heap.
        store = null;
    }

    /** Closes the embedder. */
    @TearDown(Level.Trial)
    public void tearDown() {
        embedder.close();
    }
}
