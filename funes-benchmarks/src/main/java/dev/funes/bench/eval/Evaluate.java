package dev.funes.bench.eval;

import dev.funes.embed.BundledModel;
import dev.funes.store.FusionOptions;
import dev.funes.store.StoreOptions;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The retrieval-quality evaluation: LoCoMo evidence recall and the coding-session question set,
 * for every configuration of {@link Configs} (BM25 alone, each model's dense retrieval alone, and
 * each model's hybrid search with RRF, min-max fusion, and min-max fusion plus the rerank stage),
 * printed as Markdown tables. docs/EVALUATION.md explains the data, the metrics and the latest results.
 *
 * <pre>
 * funes-benchmarks/eval [--models id,id,...] [--suites locomo,coding] [--locomo FILE]
 *                       [--conversations conv-26,...] [--fixtures DIR] [--questions FILE]
 *                       [--cache DIR | --no-cache] [--lexical-only] [--split tune|heldout|all]
 *                       [--dense-weight W] [--neighbour-weight W] [--out FILE] [--ranks FILE]
 * </pre>
 *
 * <p>Paths default to {@code ../shared/eval/locomo10.json} and {@code ../shared/fixtures} relative
 * to the repository root (the system property {@code funes.root}, set by the launcher, else the
 * working directory); stores are cached in {@code funes-benchmarks/target/eval-stores} under the
 * root. Tables go to stdout (and to {@code --out}); progress to stderr.
 */
public final class Evaluate {

    private Evaluate() {
    }

    /**
     * The models measured when {@code --models} is not given: the three whose figures
     * docs/EVALUATION.md has followed from the start. Other bundled models (e5-small-v2-q) are
     * measured when named.
     */
    static final List<String> DEFAULT_MODELS = List.of(BundledModel.ALL_MINILM_L6_V2_Q.id(),
            BundledModel.ALL_MINILM_L6_V2.id(), BundledModel.BGE_SMALL_EN_V15_Q.id());

    /** Options of one run; see the class comment. */
    record Options(Path locomo, Path fixtures, Path questions, List<String> models, Set<String> suites,
                   Set<String> conversations, Path cache, boolean lexicalOnly, Path out, LocomoEval.Split split,
                   Path ranks, Double denseWeight, double neighbourWeight) {

        /**
         * The store options of the {@code hybrid min-max + rerank} configuration: the store's
         * defaults, with the dense weight (the lexical one is 1 minus it) and the neighbours' share
         * given.
         */
        StoreOptions tuned() {
            StoreOptions defaults = StoreOptions.defaults();
            FusionOptions fusion = defaults.fusion();
            if (denseWeight != null) {
                fusion = new FusionOptions(FusionOptions.Method.MINMAX, denseWeight, 1 - denseWeight, fusion.rrfK());
            }
            return StoreOptions.builder().fusion(fusion).rerank(defaults.rerank().withNeighbourWeight(neighbourWeight))
                    .build();
        }

        /** What {@link #tuned()} changes, for the report; empty for the defaults. */
        String tunedLabel() {
            List<String> changed = new ArrayList<>();
            if (denseWeight != null) {
                changed.add(String.format(Locale.ROOT, "fusion weights %s dense / %s lexical", denseWeight,
                        Math.round((1 - denseWeight) * 1e9) / 1e9));
            }
            if (neighbourWeight > 0) {
                changed.add("neighbour weight " + neighbourWeight);
            }
            return String.join(", ", changed);
        }

        static Options parse(String[] args, Path root) {
            Path locomo = root.resolve("../shared/eval/locomo10.json");
            Path fixtures = root.resolve("../shared/fixtures");
            Path questions = null;
            List<String> models = DEFAULT_MODELS;
            Set<String> suites = new LinkedHashSet<>(List.of("locomo", "coding"));
            Set<String> conversations = new LinkedHashSet<>();
            Path cache = root.resolve("funes-benchmarks/target/eval-stores");
            boolean lexicalOnly = false;
            Path out = null;
            Path ranks = null;
            LocomoEval.Split split = LocomoEval.Split.ALL;
            Double denseWeight = null;
            double neighbourWeight = StoreOptions.defaults().rerank().neighbourWeight();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--locomo" -> locomo = Path.of(value(args, ++i, a));
                    case "--fixtures" -> fixtures = Path.of(value(args, ++i, a));
                    case "--questions" -> questions = Path.of(value(args, ++i, a));
                    case "--models" -> models = list(value(args, ++i, a));
                    case "--suites" -> suites = new LinkedHashSet<>(list(value(args, ++i, a)));
                    case "--conversations" -> conversations = new LinkedHashSet<>(list(value(args, ++i, a)));
                    case "--cache" -> cache = Path.of(value(args, ++i, a));
                    case "--no-cache" -> cache = null;
                    case "--lexical-only" -> lexicalOnly = true;
                    case "--out" -> out = Path.of(value(args, ++i, a));
                    case "--ranks" -> ranks = Path.of(value(args, ++i, a));
                    case "--split" -> split = LocomoEval.Split.of(value(args, ++i, a));
                    case "--dense-weight" -> denseWeight = weight(value(args, ++i, a), a, 1);
                    case "--neighbour-weight" -> neighbourWeight = weight(value(args, ++i, a), a, Double.MAX_VALUE);
                    case "--help", "-h" -> throw new HelpRequested();
                    default -> throw new IllegalArgumentException("unknown argument " + a + "\n" + USAGE);
                }
            }
            for (String model : models) {
                BundledModel.fromId(model); // fails early, listing the valid ids
            }
            if (models.isEmpty()) {
                throw new IllegalArgumentException("--models needs at least one model id");
            }
            for (String suite : suites) {
                if (!suite.equals("locomo") && !suite.equals("coding")) {
                    throw new IllegalArgumentException("unknown suite " + suite + " (suites: locomo, coding)");
                }
            }
            if (lexicalOnly && suites.contains("coding")) {
                throw new IllegalArgumentException("--lexical-only applies to --suites locomo only");
            }
            return new Options(locomo, fixtures, questions, List.copyOf(models), Set.copyOf(suites),
                    Set.copyOf(conversations), cache, lexicalOnly, out, split, ranks, denseWeight, neighbourWeight);
        }

        private static double weight(String value, String option, double max) {
            double w;
            try {
                w = Double.parseDouble(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + " needs a number, was " + value);
            }
            if (!(w >= 0 && w <= max) || Double.isInfinite(w)) {
                throw new IllegalArgumentException(option + " must be " + (max == 1 ? "from 0 to 1" : "finite and at least 0")
                        + ", was " + value);
            }
            return w;
        }

        private static String value(String[] args, int i, String option) {
            if (i >= args.length || args[i].startsWith("--")) {
                throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
            }
            return args[i];
        }

        private static List<String> list(String value) {
            return Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
        }
    }

    /** Thrown by {@link Options#parse} for {@code --help}. */
    static final class HelpRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;

        HelpRequested() {
            super(USAGE, null, false, false);
        }
    }

    static final String USAGE = "usage: eval [--models id,id,...] [--suites locomo,coding] [--locomo FILE]"
            + " [--conversations conv-26,...] [--fixtures DIR] [--questions FILE] [--cache DIR | --no-cache]"
            + " [--lexical-only] [--split tune|heldout|all] [--dense-weight W] [--neighbour-weight W] [--out FILE]"
            + " [--ranks FILE]\n"
            + "  --models         bundled model ids, comma-separated (default: the two MiniLMs and bge-small;"
            + " e5-small-v2-q when named)\n"
            + "  --suites         locomo, coding or both (default: both)\n"
            + "  --locomo         LoCoMo data (default: ../shared/eval/locomo10.json from the repository root)\n"
            + "  --conversations  only these LoCoMo sample_ids\n"
            + "  --fixtures       agent-log fixtures (default: ../shared/fixtures from the repository root)\n"
            + "  --questions      a coding question file instead of the shipped eval/coding-questions.jsonl\n"
            + "  --cache          where stores are kept between runs (default: funes-benchmarks/target/eval-stores)\n"
            + "  --no-cache       build every store in a temporary folder and delete it afterwards\n"
            + "  --lexical-only   LoCoMo with BM25 only (the store is still built with the first model)\n"
            + "  --split          LoCoMo questions in the main tables: tune (1st, 3rd, ... question of each conversation),\n"
            + "                   heldout (2nd, 4th, ...) or all (default); a table of both halves is always printed\n"
            + "  --dense-weight   hybrid min-max + rerank: the dense side's fusion weight, 0 to 1, the lexical side's"
            + " 1 minus it\n"
            + "                   (default: the store's, 0.4)\n"
            + "  --neighbour-weight  hybrid min-max + rerank: the share of its better neighbour's score an exchange"
            + " gains\n"
            + "                   (default: the store's, 0)\n"
            + "  --out            also write the Markdown report to this file\n"
            + "  --ranks          coding: write each question's first answering rank and top 5 hits per configuration\n"
            + "                   to this file (tab-separated), to see why a question is missed";

    /** Runs the evaluation; exits with 2 on bad usage, 1 on failure. */
    public static void main(String[] args) {
        // JVector explains its SIMD choice through java.util.logging; only its errors matter here.
        java.util.logging.Logger jvector = java.util.logging.Logger.getLogger("io.github.jbellis");
        jvector.setLevel(java.util.logging.Level.SEVERE);
        Path root = Path.of(System.getProperty("funes.root", ".")).toAbsolutePath().normalize();
        Options options;
        try {
            options = Options.parse(args, root);
        } catch (HelpRequested e) {
            System.out.println(USAGE);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        String command = System.getProperty("funes.eval.command",
                "java -cp 'funes-benchmarks/target/funes-benchmarks.jar:funes-benchmarks/target/lib/*' "
                        + Evaluate.class.getName() + (args.length == 0 ? "" : " " + String.join(" ", args)));
        try {
            String markdown = run(options, command, System.err);
            System.out.print(markdown);
            if (options.out() != null) {
                Files.writeString(options.out(), markdown, StandardCharsets.UTF_8);
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("evaluation failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }
    }

    /** Runs the suites the options ask for; returns the Markdown report. */
    static String run(Options options, String command, PrintStream log) throws IOException {
        Report report = new Report();
        report.header(command, options.lexicalOnly() ? options.models().subList(0, 1) : options.models(),
                options.tunedLabel());
        try (StoreDirs dirs = new StoreDirs(options.cache())) {
            if (options.suites().contains("locomo")) {
                if (!Files.isRegularFile(options.locomo())) {
                    throw new IllegalArgumentException("no LoCoMo file at " + options.locomo().toAbsolutePath().normalize()
                            + " (give one with --locomo)");
                }
                LocomoEval.Prepared data = LocomoEval.prepare(options.locomo(), options.conversations());
                log.printf("locomo: %d conversations, %d turns, %d questions scored%n", data.conversations().size(),
                        data.memories().size(), data.items().size());
                report.locomo(data, LocomoEval.run(data, options.models(), dirs, options.split(), options.lexicalOnly(),
                        options.tuned(), log));
            }
            if (options.suites().contains("coding")) {
                List<CodingQuestions.Question> questions = questions(options.questions());
                CodingEval.Prepared data = CodingEval.prepare(options.fixtures(), questions);
                log.printf("coding: %d questions, %d counted, %d skipped; %d memories%n", questions.size(),
                        data.counted().size(), data.skipped().size(), data.memoryIds().size());
                report.coding(data, CodingEval.run(data, options.models(), dirs, options.ranks(), options.tuned(), log));
            }
        }
        return report.text();
    }

    /** The question file given, or the set shipped as a resource. */
    static List<CodingQuestions.Question> questions(Path file) throws IOException {
        if (file != null) {
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                return CodingQuestions.read(in, file.toString());
            }
        }
        String resource = "eval/coding-questions.jsonl";
        InputStream stream = Evaluate.class.getClassLoader().getResourceAsStream(resource);
        if (stream == null) {
            throw new IllegalStateException("the resource " + resource + " is missing from the class path");
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
            return CodingQuestions.read(in, resource);
        }
    }
}
