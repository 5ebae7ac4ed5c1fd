package dev.funes.bench.ann;

import dev.funes.bench.corpus.BuildCorpus;
import dev.funes.bench.corpus.VectorCorpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * Nearest-neighbour search over the real-text {@link VectorCorpus}: queries per second of each
 * {@link AnnPeer} on the same vectors and queries, one thread. JMH measures time only, so the
 * set-up measures recall@10 against the exact top 10 over every held-out query and prints it
 * (a line starting {@code ann-recall}), with the build time; the same line is appended to
 * {@code ann-results.txt} in the corpus cache. See docs/BENCHMARKS.md for the commands.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AnnBenchmark {

    /** Vectors in the corpus (100000; 1000000 works, see docs/BENCHMARKS.md for its cost). */
    @Param("100000")
    public int size;

    /** The engine measured: a name from {@link AnnPeers#NAMES}. */
    @Param({"exact", "lucene-hnsw", "langchain4j-inmemory", "jvector", "funes-segmented"})
    public String peer;

    /** Search beam of the graph peers (candidates per query); the exact peers ignore it. */
    @Param("100")
    public int ef;

    /** Graph degree of {@code funes-segmented}; 0 (default) keeps the store's default. */
    @Param("0")
    public int degree;

    /**
     * Whether graph peers keep their index in the corpus cache ({@code ann-index-<peer>-...}) and
     * reuse it in later runs with the same corpus, peer and degree instead of building it again
     * (for 1M vectors, where a build takes far longer than the measurement).
     */
    @Param("false")
    public boolean keep;

    /** {@code full} (the cached real corpus) or {@code smoke} (a few fixture files, for CI). */
    @Param("full")
    public String source;

    /** Held-out queries, searched in turn. */
    @Param("500")
    public int queries;

    /** Seed of the corpus's sample, variations and queries. */
    @Param("42")
    public long seed;

    /** The file a kept index gets once it is complete. */
    private static final String BUILT = "funes-bench-built";
    /** Search beams of the recall curve printed for graph peers. */
    private static final int[] CURVE = {10, 20, 40, 100, 200};

    private VectorCorpus corpus;
    private AnnPeer engine;
    private float[][] queryVectors;
    private int next;

    /** Loads the corpus, builds the peer's index and measures its recall@10. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        corpus = VectorCorpus.load(source, size, queries, seed, BuildCorpus.sharedDir(), BuildCorpus.cacheDir(),
                System.out);
        queryVectors = new float[corpus.queryCount()][];
        for (int q = 0; q < queryVectors.length; q++) {
            queryVectors[q] = corpus.query(q);
        }
        engine = AnnPeers.create(peer, ef, degree);
        Path keptDir = BuildCorpus.cacheDir().resolve(String.format(Locale.ROOT, "ann-index-%s-%s-n%d-s%d%s", peer,
                source, size, seed, degree > 0 ? "-d" + degree : ""));
        Path built = keptDir.resolve(BUILT);
        boolean reused = keep && Files.exists(built);
        boolean kept = keep && engine.keepIn(keptDir, reused);
        long t0 = System.nanoTime();
        engine.build(corpus);
        double buildSeconds = (System.nanoTime() - t0) / 1e9;
        if (kept && !reused) {
            Files.writeString(built, String.format(Locale.ROOT, "built in %.1f s, java %s%n", buildSeconds,
                    System.getProperty("java.version")));
        }
        String buildNote = reused ? "reused(" + Files.readString(built).strip() + ")" : String.format(Locale.ROOT,
                "%.1fs", buildSeconds);
        int[][] found = new int[queryVectors.length][];
        long t1 = System.nanoTime();
        for (int q = 0; q < found.length; q++) {
            found[q] = engine.search(queryVectors[q], VectorCorpus.K);
        }
        double searchSeconds = (System.nanoTime() - t1) / 1e9;
        String line = String.format(Locale.ROOT,
                "ann-recall peer=%s ef=%d size=%d source=%s queries=%d seed=%d recall@10=%.4f build=%s"
                        + " first-pass=%.1f q/s java=%s jvector-provider=%s | %s",
                peer, ef, corpus.size(), source, found.length, seed, corpus.recall(found), buildNote,
                found.length / searchSeconds, System.getProperty("java.version"), JVectorPeer.provider(),
                engine.describe());
        System.out.println();
        System.out.println(line);
        if (engine.approximate()) {
            line = line + System.lineSeparator() + curve();
            engine.searchBeam(ef);
        }
        Files.createDirectories(BuildCorpus.cacheDir());
        Files.writeString(BuildCorpus.cacheDir().resolve("ann-results.txt"), line + System.lineSeparator(),
                StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /**
     * Recall@10 and queries/s (one pass over the queries, after the recall pass warmed the code
     * up; not a JMH measurement) of a graph peer at several search beams, from the same build.
     */
    private String curve() {
        StringBuilder out = new StringBuilder();
        for (int beam : CURVE) {
            engine.searchBeam(beam);
            int[][] found = new int[queryVectors.length][];
            long t0 = System.nanoTime();
            for (int q = 0; q < found.length; q++) {
                found[q] = engine.search(queryVectors[q], VectorCorpus.K);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            String line = String.format(Locale.ROOT, "ann-curve peer=%s size=%d ef=%d recall@10=%.4f single-pass=%.0f q/s",
                    peer, corpus.size(), beam, corpus.recall(found), found.length / seconds);
            System.out.println(line);
            out.append(out.length() == 0 ? "" : System.lineSeparator()).append(line);
        }
        return out.toString();
    }

    /** One top-10 search, cycling through the held-out queries. */
    @Benchmark
    public int[] search() {
        return engine.search(queryVectors[next++ % queryVectors.length], VectorCorpus.K);
    }

    /** Releases the peer. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        engine.close();
    }
}
