package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
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
 * End-to-end search latency: query embedding, dense and lexical candidates, fusion and fetching
 * the memories, over a store built from real agent logs. Sample-time mode, so JMH reports the
 * p50/p95/p99 of single searches. See docs/BENCHMARKS.md for the command.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SearchBenchmark {

    /** A folder of agent logs to index; resolved against the working directory. */
    @Param("../shared/fixtures/claude-code")
    public String logs;

    /** Embedding model id. */
    @Param("all-minilm-l6-v2-q")
    public String model;

    /** Hits per search. */
    @Param("10")
    public int limit;

    /** Seed for picking queries from the indexed texts; printed with the results by JMH. */
    @Param("42")
    public long seed;

    private Embedder embedder;
    private MemoryStore store;
    private Path storeDir;
    private List<String> queries;
    private int next;

    /** Indexes the logs into a temporary store and picks 100 queries from their texts. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path folder = Path.of(logs).toAbsolutePath().normalize();
        if (!Files.isDirectory(folder)) {
            throw new IllegalStateException("no log folder at " + folder + " (set -p logs=PATH)");
        }
        embedder = Embedders.forModelId(model);
        storeDir = Files.createTempDirectory("funes-jmh-");
        store = FunesStore.open(storeDir, embedder);
        Indexer.builder(store).build().index(List.of(folder));
        queries = IngestAndSearch.queries(IngestAndSearch.memoryTexts(folder), 100, new Random(seed));
    }

    /** One search, cycling through the queries. */
    @Benchmark
    public List<SearchHit> search() {
        String query = queries.get(next++ % queries.size());
        return store.search(SearchRequest.builder(query).limit(limit).build());
    }

    /** Closes the store and embedder and deletes the store. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        store.close();
        embedder.close();
        IngestAndSearch.deleteTree(storeDir);
    }
}
