package dev.funes.bench.eval;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.bench.SolrCloud;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import dev.funes.solr.SolrMemoryStore;
import dev.funes.solr.TeamOptions;
import dev.funes.solr.TeamPublish;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The coding set against the team collection: the fixtures indexed into a local store (the
 * default options, as {@code funes} uses them), that store published to a fresh collection of
 * 2 shards × 2 replicas on a two-node SolrCloud ({@link SolrCloud}, in a JVM of its own), then every
 * counted question searched in both with each retrieval mode and scored as {@link CodingEval}
 * scores it. Prints a Markdown table with the differences; exits 1 when the hybrid search's
 * recall at any cut-off differs by more than {@value #TOLERANCE}.
 *
 * <pre>
 * java -cp 'funes-benchmarks/target/funes-benchmarks.jar:funes-benchmarks/target/lib/*' \
 *     dev.funes.bench.eval.TeamEval [--fixtures DIR] [--out FILE]
 * </pre>
 */
public final class TeamEval {

    /** The largest difference of recall between the two stores the issue accepts. */
    static final double TOLERANCE = 0.02;

    private static final String COLLECTION = "eval";

    private TeamEval() {
    }

    /** Runs the comparison; exits 2 on bad usage, 1 when the stores differ by more than the tolerance. */
    public static void main(String[] args) throws Exception {
        java.util.logging.Logger.getLogger("io.github.jbellis").setLevel(java.util.logging.Level.SEVERE);
        Path root = Path.of(System.getProperty("funes.root", ".")).toAbsolutePath().normalize();
        Path fixtures = root.resolve("../shared/fixtures").normalize();
        // The collection is created for the default model (SolrCloud), so the local store uses it too.
        String model = BundledModel.DEFAULT.id();
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                System.err.println("usage: TeamEval [--fixtures DIR] [--out FILE]");
                System.exit(2);
            }
            switch (a) {
                case "--fixtures" -> fixtures = Path.of(args[++i]);
                case "--out" -> out = Path.of(args[++i]);
                default -> {
                    System.err.println("unknown option " + a + "; usage: TeamEval [--fixtures DIR] [--out FILE]");
                    System.exit(2);
                }
            }
        }
        List<CodingQuestions.Question> questions = Evaluate.questions(null);
        CodingEval.Prepared data = CodingEval.prepare(fixtures, questions);
        System.err.printf(Locale.ROOT, "coding: %d questions, %d counted; %d memories%n", questions.size(),
                data.counted().size(), data.memoryIds().size());
        String command = "java -cp 'funes-benchmarks/target/funes-benchmarks.jar:funes-benchmarks/target/lib/*' "
                + TeamEval.class.getName() + (args.length == 0 ? "" : " " + String.join(" ", args));
        StringBuilder report = new StringBuilder();
        boolean within;
        Path dir = Files.createTempDirectory("funes-team-eval");
        try (Embedder embedder = Embedders.forModelId(model);
             MemoryStore local = FunesStore.open(dir.resolve("store"), embedder, StoreOptions.defaults());
             SolrCloud cloud = SolrCloud.start(root, COLLECTION, "1g")) {
            long t0 = System.nanoTime();
            String indexed = Indexer.builder(local).build().index(List.of(data.fixtures())).summary();
            System.err.printf(Locale.ROOT, "local store: %s (%.0f s)%n", indexed, (System.nanoTime() - t0) / 1e9);
            try (SolrMemoryStore team = SolrMemoryStore.open(cloud.connect(), embedder,
                    new TeamOptions(StoreOptions.defaults(), "eval", "eval"))) {
                long t1 = System.nanoTime();
                TeamPublish.Report published = TeamPublish.publish(local, team, Set.of(), TeamPublish.Cursor.START,
                        "eval", c -> { });
                System.err.printf(Locale.ROOT, "published: %d read, %d added, %d embedded (%.0f s)%n",
                        published.read(), published.stored().added(), published.stored().embedded(),
                        (System.nanoTime() - t1) / 1e9);
                if (team.stats().memories() != local.stats().memories()) {
                    throw new IllegalStateException("the team collection holds " + team.stats().memories()
                            + " memories, the local store " + local.stats().memories());
                }
                within = compare(data, local, team, model, published, command, report);
            }
        } finally {
            deleteTree(dir);
        }
        System.out.print(report);
        if (out != null) {
            Files.writeString(out, report.toString(), StandardCharsets.UTF_8);
        }
        System.exit(within ? 0 : 1);
    }

    /** Scores both stores; appends the table; whether hybrid recall agrees within the tolerance. */
    static boolean compare(CodingEval.Prepared data, MemoryStore local, MemoryStore team, String model,
                           TeamPublish.Report published, String command, StringBuilder report) {
        Map<String, Retrieval> modes = new LinkedHashMap<>();
        modes.put("hybrid (default)", Retrieval.HYBRID);
        modes.put("BM25 only", Retrieval.LEXICAL);
        modes.put("dense only", Retrieval.DENSE);
        Map<Path, Path> realPaths = new HashMap<>();
        report.append("- command: `").append(command).append("`\n");
        report.append(String.format(Locale.ROOT, "- model %s; %d questions counted; %d memories published to a"
                        + " 2 × 2 collection on two nodes%n%n", model, data.counted().size(), published.read()));
        report.append("| retrieval | store | recall@1 | recall@5 | recall@10 | recall@20 | MRR | same top 5 |\n");
        report.append("|---|---|---|---|---|---|---|---|\n");
        boolean within = true;
        for (Map.Entry<String, Retrieval> mode : modes.entrySet()) {
            Metrics.Mean mine = new Metrics.Mean();
            Metrics.Mean theirs = new Metrics.Mean();
            int sameTop5 = 0;
            for (CodingQuestions.Question q : data.counted()) {
                Predicate<SearchHit> answers = h -> CodingEval.hitAnswers(data.fixtures(), q, h, realPaths);
                List<SearchHit> a = Configs.hits(local, q.question(), null, mode.getValue());
                List<SearchHit> b = Configs.hits(team, q.question(), null, mode.getValue());
                mine.add(success(a, answers), Metrics.reciprocalRank(a, answers));
                theirs.add(success(b, answers), Metrics.reciprocalRank(b, answers));
                if (ids(a, 5).equals(ids(b, 5))) {
                    sameTop5++;
                }
            }
            row(report, mode.getKey(), "local", mine, "");
            row(report, mode.getKey(), "team", theirs, sameTop5 + " of " + data.counted().size());
            StringBuilder diff = new StringBuilder("| ").append(mode.getKey()).append(" | difference |");
            for (int i = 0; i < Metrics.CUTOFFS.size(); i++) {
                double d = theirs.at(i) - mine.at(i);
                diff.append(String.format(Locale.ROOT, " %+.3f |", d));
                if (mode.getValue() == Retrieval.HYBRID && Math.abs(d) > TOLERANCE + 1e-9) {
                    within = false;
                }
            }
            diff.append(String.format(Locale.ROOT, " %+.3f | |%n", theirs.mrr() - mine.mrr()));
            report.append(diff);
        }
        report.append(String.format(Locale.ROOT, "%nhybrid recall within %.2f at every cut-off: %s%n", TOLERANCE,
                within ? "yes" : "NO"));
        return within;
    }

    private static double[] success(List<SearchHit> ranked, Predicate<SearchHit> answers) {
        double[] s = new double[Metrics.CUTOFFS.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = Metrics.successAt(ranked, answers, Metrics.CUTOFFS.get(i));
        }
        return s;
    }

    private static List<String> ids(List<SearchHit> hits, int n) {
        return hits.subList(0, Math.min(n, hits.size())).stream().map(h -> h.memory().id()).toList();
    }

    private static void row(StringBuilder report, String mode, String store, Metrics.Mean m, String same) {
        report.append(String.format(Locale.ROOT, "| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %s |%n", mode, store,
                m.at(0), m.at(1), m.at(2), m.at(3), m.mrr(), same));
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
