package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.ForwardingEmbedder;
import dev.funes.MemoryStore;
import dev.funes.embed.Embedders;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Ingest throughput: the whole pipeline (open a new store, parse, chunk, classify, redact, embed,
 * SQLite + FTS5, dense index, close) against the embedder alone on exactly the texts that pipeline
 * embeds, in the same fork, one round of each per iteration (embedder first, then the pipeline),
 * so that warm-up and background load fall on both alike.
 *
 * <p>The set-up indexes the logs once through a wrapper of the real embedder that records every
 * text it is given: those texts, in one {@code embedDocuments} call (the embedder's best case:
 * one length-sorted run), are the "embedder alone" round. The primary score is the pipeline's
 * single-shot time; the secondary results {@code embedder} (seconds) and {@code overhead} (percent
 * of the pipeline's time that is not embedding, per round) are means over the measurement
 * iterations. The pipeline's own calls of the embedder are timed too: {@code outside} is the
 * percent of the pipeline's time spent outside them, a figure paired within one round (the
 * embedder-alone round before it may run at another speed on a shared machine). The tear-down prints a line starting {@code ingest-result} with medians, memories/s,
 * and the process CPU time of both (the machine is shared: CPU time moves less with its load than
 * wall time). See docs/BENCHMARKS.md for the command.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 1)
@Measurement(iterations = 5)
public class IngestBenchmark {

    /** A folder (or one file) of agent logs; resolved against the working directory. */
    @Param("../shared/fixtures/claude-code")
    public String logs;

    /** Embedding model id. */
    @Param("all-minilm-l6-v2-q")
    public String model;

    private Embedder embedder;
    private Path folder;
    private Path work;
    private Path storeDir;
    private List<String> texts;
    private int embedderCalls;
    private final List<double[]> rounds = new ArrayList<>();
    private IndexReport lastReport;
    private double embedderSeconds;
    private double embedderCpuSeconds;
    /** What this iteration's values count for in the secondary results: 1 / iterations, 0 in warm-up. */
    private double weight;

    /**
     * The secondary results, as means over the measurement iterations (JMH sums auxiliary counters
     * over the iterations, so each adds its value divided by their number).
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Round {
        /** Seconds the embedder alone took on the pipeline's texts, mean per round. */
        public double embedder;
        /** Share of the pipeline's time that is not embedding, percent, mean per round. */
        public double overhead;
        /** Share of the pipeline's time spent outside its own embedder calls, percent, mean per round. */
        public double outside;
    }

    /** Loads the model and records the texts the pipeline embeds (which also warms both up). */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        folder = Path.of(logs).toAbsolutePath().normalize();
        if (!Files.exists(folder)) {
            throw new IllegalStateException("no logs at " + folder + " (set -p logs=PATH)");
        }
        embedder = Embedders.forModelId(model);
        work = Files.createTempDirectory("funes-jmh-ingest-");
        storeDir = work.resolve("store");
        RecordingEmbedder recording = new RecordingEmbedder(embedder);
        try (MemoryStore store = FunesStore.open(work.resolve("texts"), recording)) {
            Indexer.builder(store).build().index(List.of(folder));
        }
        texts = List.copyOf(recording.texts);
        embedderCalls = recording.calls;
        if (texts.isEmpty()) {
            throw new IllegalStateException("the pipeline embedded nothing from " + folder);
        }
    }

    /** Starts a round: a new store folder, then the embedder alone on the pipeline's texts. */
    @Setup(Level.Iteration)
    public void embedAlone(IterationParams iteration) throws IOException {
        IngestAndSearch.deleteTree(storeDir);
        weight = iteration.getType() == IterationType.MEASUREMENT ? 1.0 / iteration.getCount() : 0;
        long cpu = cpuNanos();
        long start = System.nanoTime();
        embedder.embedDocuments(texts);
        embedderSeconds = (System.nanoTime() - start) / 1e9;
        embedderCpuSeconds = (cpuNanos() - cpu) / 1e9;
    }

    /** The whole pipeline into a new store. */
    @Benchmark
    public IndexReport pipeline(Round round) {
        long cpu = cpuNanos();
        long start = System.nanoTime();
        IndexReport report;
        RecordingEmbedder recorded = new RecordingEmbedder(embedder);
        try (MemoryStore store = FunesStore.open(storeDir, recorded)) {
            report = Indexer.builder(store).build().index(List.of(folder));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        double cpuSeconds = (cpuNanos() - cpu) / 1e9;
        round.embedder = embedderSeconds * weight;
        round.overhead = 100 * (seconds - embedderSeconds) / seconds * weight;
        double inside = recorded.nanos.get() / 1e9;
        round.outside = 100 * (seconds - inside) / seconds * weight;
        if (weight > 0) {
            rounds.add(new double[] {seconds, embedderSeconds, cpuSeconds, embedderCpuSeconds, inside,
                100 * (seconds - inside) / seconds});
        }
        lastReport = report;
        return report;
    }

    /** Prints the {@code ingest-result} line and deletes the stores. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        try {
            if (!rounds.isEmpty()) {
                double pipeline = median(0);
                double alone = median(1);
                long memories = lastReport.memoriesAdded();
                StringBuilder perRound = new StringBuilder();
                for (double[] r : rounds) {
                    perRound.append(String.format(Locale.ROOT, " %.2f/%.2f/%.2f", r[0], r[1], r[4]));
                }
                System.out.printf(Locale.ROOT, "%ningest-result logs=%s model=%s memories=%d texts=%d (distinct %d, %d embedder calls)"
                                + " pipeline=%.2fs (%.1f memories/s) embedder=%.2fs (%.1f texts/s) overhead=%.1f%%"
                                + " inside=%.2fs outside=%.1f%%"
                                + " cpu pipeline=%.2fs embedder=%.2fs (medians of %d rounds; pipeline/embedder alone/"
                                + "embedder inside s per round:%s) %s%n",
                        folder, model, memories, texts.size(), new HashSet<>(texts).size(), embedderCalls, pipeline,
                        memories / pipeline, alone, texts.size() / alone, 100 * (pipeline - alone) / pipeline,
                        median(4), median(5), median(2), median(3), rounds.size(), perRound, lastReport.summary());
            }
        } finally {
            embedder.close();
            IngestAndSearch.deleteTree(work);
        }
    }

    private double median(int column) {
        double[] values = rounds.stream().mapToDouble(r -> r[column]).toArray();
        Arrays.sort(values);
        return values.length % 2 == 1 ? values[values.length / 2]
                : (values[values.length / 2 - 1] + values[values.length / 2]) / 2;
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** The real embedder, recording what it is given and timing its document calls. */
    private static final class RecordingEmbedder extends ForwardingEmbedder {
        final List<String> texts = new ArrayList<>();
        int calls;
        /** Nanoseconds spent in {@link #embedDocuments}, summed over the calls. */
        final AtomicLong nanos = new AtomicLong();

        RecordingEmbedder(Embedder delegate) {
            super(delegate, false); // the delegate is closed by the benchmark
        }

        @Override
        public synchronized List<float[]> embedDocuments(List<String> batch) {
            calls++;
            texts.addAll(batch);
            long start = System.nanoTime();
            try {
                return super.embedDocuments(batch);
            } finally {
                nanos.addAndGet(System.nanoTime() - start);
            }
        }
    }
}
