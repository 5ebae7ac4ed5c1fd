package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.AgentLogs;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.ingest.LogFormat;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Measures, in one run on the same data: (1) indexing throughput of the whole pipeline (parse,
 * chunk, embed, store, ANN) on a folder of Claude Code logs next to the embedder's own throughput
 * on exactly the memory texts the pipeline produced, and (2) end-to-end search latency (query
 * embedding + dense + lexical + fusion + fetch) over queries drawn from those memories.
 *
 * <p>Usage (see docs/BENCHMARKS.md): {@code IngestAndSearch LOG_FOLDER [MODEL_ID] [QUERIES] [SEED] [ROUNDS]}.
 * Reports to stdout; the seed is printed so a run can be repeated.
 */
public final class IngestAndSearch {

    private IngestAndSearch() {
    }

    /** Runs the measurement; see the class comment for arguments. */
    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: IngestAndSearch LOG_FOLDER [MODEL_ID] [QUERIES] [SEED] [ROUNDS]");
            System.exit(2);
        }
        Path logs = Path.of(args[0]).toAbsolutePath().normalize();
        String model = args.length > 1 ? args[1] : BundledModel.DEFAULT.id();
        int queries = args.length > 2 ? Integer.parseInt(args[2]) : 100;
        long seed = args.length > 3 ? Long.parseLong(args[3]) : 42L;
        int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 3;
        Path storeDir = Files.createTempDirectory("funes-bench-");
        System.out.printf(Locale.ROOT, "logs %s, model %s, %d queries, seed %d, java %s, %d cores%n", logs, model,
                queries, seed, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());

        try (Embedder embedder = Embedders.forModelId(model)) {
            List<String> texts = memoryTexts(logs);
            embedder.embedDocuments(texts.subList(0, Math.min(8, texts.size())));

            // Alternate the two so that warm-up and background load fall on both alike.
            double[] pipeline = new double[rounds];
            double[] alone = new double[rounds];
            IndexReport report = null;
            for (int round = 0; round < rounds; round++) {
                long t1 = System.nanoTime();
                for (int i = 0; i < texts.size(); i += 256) {
                    embedder.embedDocuments(texts.subList(i, Math.min(texts.size(), i + 256)));
                }
                alone[round] = (System.nanoTime() - t1) / 1e9;

                deleteTree(storeDir);
                long t0 = System.nanoTime();
                try (MemoryStore store = FunesStore.open(storeDir, embedder)) {
                    report = Indexer.builder(store).build().index(List.of(logs));
                }
                pipeline[round] = (System.nanoTime() - t0) / 1e9;
                System.out.printf(Locale.ROOT, "round %d: pipeline %.2f s, embedder alone %.2f s, ratio %.2f%n",
                        round + 1, pipeline[round], alone[round], pipeline[round] / alone[round]);
            }
            double indexSeconds = median(pipeline);
            double embedSeconds = median(alone);

            System.out.println(report.summary());
            System.out.printf(Locale.ROOT, "pipeline  %d memories (%d embedded) in %.2f s = %.1f memories/s (median of %d)%n",
                    report.memoriesAdded(), report.textsEmbedded(), indexSeconds, report.memoriesAdded() / indexSeconds, rounds);
            System.out.printf(Locale.ROOT, "embedder  %d texts in %.2f s = %.1f texts/s (same texts, embedder alone, median of %d)%n",
                    texts.size(), embedSeconds, texts.size() / embedSeconds, rounds);
            System.out.printf(Locale.ROOT, "overhead  pipeline time / embedder time = %.2f (%.0f%% of indexing time is not embedding)%n",
                    indexSeconds / embedSeconds, 100 * (indexSeconds - embedSeconds) / indexSeconds);

            long reindexStart = System.nanoTime();
            IndexReport again;
            try (MemoryStore store = FunesStore.open(storeDir, embedder)) {
                again = Indexer.builder(store).build().index(List.of(logs));
            }
            double reindexSeconds = (System.nanoTime() - reindexStart) / 1e9;
            System.out.printf(Locale.ROOT, "re-index  unchanged logs in %.3f s (%d embedded), %.0fx faster than the first index%n",
                    reindexSeconds, again.textsEmbedded(), indexSeconds / reindexSeconds);

            try (MemoryStore store = FunesStore.open(storeDir, embedder)) {
                List<String> questions = queries(texts, queries, new Random(seed));
                for (String q : questions.subList(0, Math.min(20, questions.size()))) {
                    store.search(SearchRequest.of(q));
                }
                long[] nanos = new long[questions.size()];
                for (int i = 0; i < questions.size(); i++) {
                    long s = System.nanoTime();
                    store.search(SearchRequest.of(questions.get(i)));
                    nanos[i] = System.nanoTime() - s;
                }
                Arrays.sort(nanos);
                System.out.printf(Locale.ROOT, "search    %d queries: p50 %.1f ms, p95 %.1f ms, max %.1f ms (limit 10, after 20 warm-up queries)%n",
                        nanos.length, percentile(nanos, 0.50), percentile(nanos, 0.95), nanos[nanos.length - 1] / 1e6);
            }
        } finally {
            deleteTree(storeDir);
        }
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    /** The texts the Claude Code parser makes of the folder's logs, as the pipeline embeds them. */
    static List<String> memoryTexts(Path logs) throws IOException {
        LogFormat format = AgentLogs.claudeCode();
        List<String> texts = new ArrayList<>();
        try (Stream<Path> files = Files.walk(logs)) {
            for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                format.parse(file, (Memory memory) -> texts.add(memory.text()));
            }
        }
        return texts.stream().distinct().toList();
    }

    /** Queries of 4 to 9 consecutive words taken from random memories, seeded. */
    static List<String> queries(List<String> texts, int count, Random random) {
        List<String> out = new ArrayList<>();
        while (out.size() < count) {
            String[] words = texts.get(random.nextInt(texts.size())).split("\\s+");
            if (words.length < 12) {
                continue;
            }
            int length = 4 + random.nextInt(6);
            int start = random.nextInt(words.length - length);
            String q = String.join(" ", Arrays.copyOfRange(words, start, start + length)).replaceAll("[^\\p{L}\\p{N} ]", " ").strip();
            if (!q.isBlank()) {
                out.add(q);
            }
        }
        return out;
    }

    static double percentile(long[] sortedNanos, double p) {
        int index = (int) Math.ceil(p * sortedNanos.length) - 1;
        return sortedNanos[Math.max(0, index)] / 1e6;
    }

    /** Deletes a folder and everything in it; nothing when it does not exist. */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
