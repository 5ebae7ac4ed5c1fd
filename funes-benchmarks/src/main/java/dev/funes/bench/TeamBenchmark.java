package dev.funes.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.solr.SolrMemoryStore;
import dev.funes.solr.TeamOptions;
import dev.funes.solr.TeamPublish;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The team store against the local store in one run: a built store (e.g. {@code StoreCorpus}'s
 * {@code store-full-n100000-s42}, copied first: the original is never opened) published to a
 * fresh 2 × 2 collection on a two-node SolrCloud ({@link SolrCloud}, in a JVM of its own on this
 * machine), the publish timed page by page; then the same queries searched in both, alternately
 * (local, team, local, ...: both see the same load), after a warm-up, with p50/p95/max per store.
 * A search is what a user's search costs: the query's embedding, then the store's hybrid search
 * (the team's: a BM25 and a kNN request, each fanned out to both shards, fused here).
 *
 * <pre>
 * java -cp 'funes-benchmarks/target/funes-benchmarks.jar:funes-benchmarks/target/lib/*' \
 *     dev.funes.bench.TeamBenchmark STORE QUERIES.jsonl [--queries N] [--warmup N] [--heap 3g]
 *     [--publish-seconds S] [--out FILE]
 * </pre>
 *
 * QUERIES.jsonl: one {@code {"text": ...}} object a line (the corpus' {@code queries-*.jsonl}).
 * {@code --publish-seconds S} stops the publish after the first page that ends past S seconds
 * and searches what was published (the report says how much): a bound for runs that cannot
 * publish everything in the time they have.
 */
public final class TeamBenchmark {

    private static final String COLLECTION = "bench";

    private TeamBenchmark() {
    }

    /** Runs the benchmark; prints a Markdown summary on stdout, progress on stderr. */
    public static void main(String[] args) throws Exception {
        java.util.logging.Logger.getLogger("io.github.jbellis").setLevel(java.util.logging.Level.SEVERE);
        if (args.length < 2) {
            System.err.println("usage: TeamBenchmark STORE QUERIES.jsonl [--queries N] [--warmup N] [--heap 3g]"
                    + " [--publish-seconds S] [--out FILE]");
            System.exit(2);
        }
        Path source = Path.of(args[0]);
        Path queryFile = Path.of(args[1]);
        int queries = 200;
        int warmup = 20;
        String heap = "3g";
        Path out = null;
        long publishLimit = Long.MAX_VALUE;
        for (int i = 2; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--queries" -> queries = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                case "--heap" -> heap = args[i + 1];
                case "--out" -> out = Path.of(args[i + 1]);
                case "--publish-seconds" -> publishLimit = Long.parseLong(args[i + 1]);
                default -> {
                    System.err.println("unknown option " + args[i]);
                    System.exit(2);
                }
            }
        }
        Path root = Path.of(System.getProperty("funes.root", ".")).toAbsolutePath().normalize();
        List<String> texts = queries(queryFile, warmup + queries);
        Path work = Files.createTempDirectory("funes-team-bench");
        Path copy = work.resolve("store");
        long t0 = System.nanoTime();
        copyTree(source, copy);
        System.err.printf(Locale.ROOT, "copied %s in %.0f s%n", source, seconds(t0));
        StringBuilder report = new StringBuilder();
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore local = FunesStore.open(copy, embedder, StoreOptions.defaults());
             SolrCloud cloud = SolrCloud.start(root, COLLECTION, heap);
             SolrMemoryStore team = SolrMemoryStore.open(cloud.connect(), embedder,
                     new TeamOptions(StoreOptions.defaults(), "bench", "bench"))) {
            long memories = local.stats().memories();
            System.err.printf(Locale.ROOT, "local store: %,d memories; publishing%n", memories);
            long t1 = System.nanoTime();
            long[] last = {t1};
            long[] pages = {0};
            long limit = publishLimit;
            String stopped = null;
            long read;
            try {
                TeamPublish.Report published = TeamPublish.publish(local, team, Set.of(), TeamPublish.Cursor.START,
                        "bench", c -> {
                            long now = System.nanoTime();
                            pages[0]++;
                            System.err.printf(Locale.ROOT, "  seq %,d: page in %.1f s, %.0f s in all%n", c.seq(),
                                    (now - last[0]) / 1e9, (now - t1) / 1e9);
                            last[0] = now;
                            if ((now - t1) / 1e9 > limit) {
                                throw new StopPublish();
                            }
                        });
                read = published.read();
                System.err.printf(Locale.ROOT, "published %,d (%,d added, %,d embedded)%n", read,
                        published.stored().added(), published.stored().embedded());
            } catch (StopPublish e) {
                read = -1;
                stopped = String.format(Locale.ROOT, "stopped after %,d pages (--publish-seconds %d)", pages[0], limit);
            }
            double publishSeconds = seconds(t1);
            long inTeam = team.stats().memories();
            if (read < 0) {
                read = inTeam;
            }
            System.err.printf(Locale.ROOT, "publish: %,d memories in %.0f s%s; the team holds %,d%n", read,
                    publishSeconds, stopped == null ? "" : ", " + stopped, inTeam);

            for (int i = 0; i < warmup; i++) {
                local.search(SearchRequest.of(texts.get(i)));
                team.search(SearchRequest.of(texts.get(i)));
            }
            long[] localNanos = new long[queries];
            long[] teamNanos = new long[queries];
            long[] embedNanos = new long[queries];
            for (int i = 0; i < queries; i++) {
                SearchRequest request = SearchRequest.of(texts.get(warmup + i));
                long a = System.nanoTime();
                local.search(request);
                long b = System.nanoTime();
                team.search(request);
                long c = System.nanoTime();
                embedder.embedQuery(request.query());
                embedNanos[i] = System.nanoTime() - c;
                localNanos[i] = b - a;
                teamNanos[i] = c - b;
            }
            long localBytes = sizeOf(copy);
            report.append(String.format(Locale.ROOT, "- store: %s (%,d memories), copied; model %s%n", source, memories,
                    embedder.modelId()));
            report.append(String.format(Locale.ROOT, "- machine: %d cores, load average %.1f at the end; cluster JVM -Xmx%s,"
                            + " two nodes and ZooKeeper in it; this JVM -Xmx%dm%n",
                    Runtime.getRuntime().availableProcessors(),
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), heap,
                    Runtime.getRuntime().maxMemory() >> 20));
            report.append(String.format(Locale.ROOT, "- publish: %,d memories in %.0f s: %.0f memories/s (pages of %,d,"
                            + " each looked up, sent, committed)%s; the collection holds %,d%n",
                    read, publishSeconds, read / publishSeconds, TeamPublish.PAGE,
                    stopped == null ? "" : String.format(Locale.ROOT, "; NOT COMPLETE: %s, %,d in the local store",
                            stopped, memories),
                    inTeam));
            report.append(String.format(Locale.ROOT, "- disk: local store %.1f MB; collection %.1f MB of index over its"
                            + " 4 replicas (%.1f MB a copy, %.2f KB a memory), %.1f MB with transaction logs and"
                            + " ZooKeeper%n",
                    localBytes / 1e6, cloud.indexBytes() / 1e6, cloud.indexBytes() / 2e6,
                    cloud.indexBytes() / 2.0 / Math.max(1, inTeam) / 1024, cloud.diskBytes() / 1e6));
            report.append(String.format(Locale.ROOT, "- search: %d queries after %d warm-up, alternately local and team,"
                    + " limit 10, hybrid (the default)%n%n", queries, warmup));
            report.append("| | p50 | p95 | max | mean |\n|---|---|---|---|---|\n");
            row(report, "local store search", localNanos);
            row(report, "team collection search", teamNanos);
            row(report, "the query's embedding alone", embedNanos);
        } finally {
            deleteTree(work);
        }
        System.out.print(report);
        if (out != null) {
            Files.writeString(out, report.toString(), StandardCharsets.UTF_8);
        }
    }

    /** Thrown from the publish's progress callback to end it at {@code --publish-seconds}. */
    private static final class StopPublish extends RuntimeException {
        StopPublish() {
            super(null, null, false, false);
        }
    }

    private static void row(StringBuilder report, String what, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElse(0) / 1e6;
        report.append(String.format(Locale.ROOT, "| %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms |%n", what,
                pct(sorted, 50), pct(sorted, 95), sorted[sorted.length - 1] / 1e6, mean));
    }

    /** The nearest-rank percentile, in milliseconds. */
    private static double pct(long[] sorted, int p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e6;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    private static List<String> queries(Path file, int n) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> texts = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                texts.add(json.readTree(line).get("text").asText());
            }
        }
        if (texts.size() < n) {
            throw new IllegalArgumentException(file + " has " + texts.size() + " queries; " + n + " are needed");
        }
        return texts.subList(0, n);
    }

    /** Copies a store folder, leaving out its lock file (the copy gets its own). */
    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().endsWith(".lock")) {
                    Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static long sizeOf(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
