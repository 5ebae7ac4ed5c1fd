package dev.funes.bench.eval;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.Embedders;
import dev.funes.ingest.AgentLogs;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.ingest.LogFormat;
import dev.funes.ingest.ParseResult;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The coding-session evaluation: the fixture logs are indexed with the real {@link Indexer} into
 * one store per model, every question is searched over the whole store (no filter, as a user
 * would), and a result answers when it cites the expected file, its range overlaps the expected
 * range, and it cites at most {@value #MAX_CITED_LINES} lines (DESIGN.md: a hit counts only when
 * the cited range is that focused).
 *
 * <p>Questions about files that no log format reads, or that yield no memory, are skipped and
 * counted: the set already covers formats whose readers are still being written.
 */
final class CodingEval {

    /** The most lines a hit may cite and still count. */
    static final int MAX_CITED_LINES = 100;
    /** The most lines a hit may cite and count for the strict recall@5. */
    static final int STRICT_CITED_LINES = 20;

    private static final Set<String> STOPWORDS = Set.of("the", "and", "for", "that", "this", "with", "was", "were",
            "what", "why", "how", "did", "does", "where", "which", "who", "when", "are", "our", "you", "your", "its",
            "from", "into", "about", "had", "has", "have", "not", "but", "can", "could", "would", "should", "there",
            "then", "than", "they", "them", "their", "any", "all", "been", "being", "done", "use",
            "used", "using", "get", "got", "one", "out", "way", "also", "just", "over", "after", "before", "again");
    private static final Pattern WORDS = Pattern.compile("[^\\p{L}\\p{N}]+");

    private CodingEval() {
    }

    /**
     * What the fixtures hold for the questions.
     *
     * @param fixtures   the fixtures folder, absolute
     * @param counted    questions with at least one expected file that yields memories
     * @param skipped    the other questions
     * @param files      memories per fixture file (relative path), for every file a format reads
     * @param memoryIds  the ids of all memories the fixtures yield
     * @param overlap    mean share of a question's content words found in its expected lines,
     *                   keyed {@code paraphrased} and {@code literal}, over counted questions
     */
    record Prepared(Path fixtures, List<CodingQuestions.Question> counted, List<CodingQuestions.Question> skipped,
                    Map<String, Integer> files, List<String> memoryIds, Map<String, Double> overlap) {
    }

    /**
     * Reads every fixture with the formats the ingest knows, checks every expected range against
     * its file, and splits the questions into counted and skipped.
     *
     * @throws IllegalArgumentException if an expected file does not exist or a range runs past
     *                                  its end; the message names the question
     */
    static Prepared prepare(Path fixtures, List<CodingQuestions.Question> questions) throws IOException {
        Path root = fixtures.toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("the fixtures folder " + root + " does not exist");
        }
        List<LogFormat> formats = AgentLogs.formats();
        Map<String, Integer> files = new TreeMap<>();
        List<String> ids = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path file : walk.filter(Files::isRegularFile).sorted().toList()) {
                if (root.relativize(file).toString().startsWith(".")) {
                    continue;
                }
                byte[] head;
                try (InputStream in = Files.newInputStream(file)) {
                    head = in.readNBytes(Indexer.HEAD_BYTES);
                }
                for (LogFormat format : formats) {
                    if (format.canRead(file, head)) {
                        List<Memory> memories = new ArrayList<>();
                        ParseResult result = format.parse(file, memories::add);
                        if (!result.complete()) {
                            throw new IOException("cannot read " + file + ": " + result.problems());
                        }
                        memories.forEach(m -> ids.add(m.id()));
                        files.put(relative(root, file), memories.size());
                        break;
                    }
                }
            }
        }
        List<CodingQuestions.Question> counted = new ArrayList<>();
        List<CodingQuestions.Question> skipped = new ArrayList<>();
        Map<Boolean, double[]> overlaps = new HashMap<>();
        for (CodingQuestions.Question q : questions) {
            StringBuilder expectedText = new StringBuilder();
            for (CodingQuestions.Range r : q.expected()) {
                expectedText.append(check(root, q, r)).append('\n');
            }
            boolean readable = q.expected().stream().anyMatch(r -> files.getOrDefault(r.file(), 0) > 0);
            (readable ? counted : skipped).add(q);
            if (readable) {
                double[] sum = overlaps.computeIfAbsent(q.paraphrased(), p -> new double[2]);
                sum[0] += overlap(q.question(), expectedText.toString());
                sum[1]++;
            }
        }
        Map<String, Double> overlap = new LinkedHashMap<>();
        for (boolean p : new boolean[] {true, false}) {
            double[] sum = overlaps.get(p);
            overlap.put(p ? "paraphrased" : "literal", sum == null ? Double.NaN : sum[0] / sum[1]);
        }
        return new Prepared(root, List.copyOf(counted), List.copyOf(skipped), files, List.copyOf(ids), overlap);
    }

    private static String relative(Path root, Path file) {
        return root.relativize(file).toString().replace('\\', '/');
    }

    /** Checks that the range lies inside its file; returns the lines. */
    private static String check(Path root, CodingQuestions.Question q, CodingQuestions.Range r) throws IOException {
        Path file = root.resolve(r.file());
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("question " + q.id() + " (line " + q.line() + "): no fixture " + file);
        }
        List<String> lines;
        try (Stream<String> all = Files.lines(file, StandardCharsets.UTF_8)) {
            lines = all.toList();
        } catch (UncheckedIOException e) {
            throw new IOException("cannot read " + file + " as UTF-8", e);
        }
        if (r.end() > lines.size()) {
            throw new IllegalArgumentException("question " + q.id() + " (line " + q.line() + "): " + r.file()
                    + " has " + lines.size() + " lines, the range ends at " + r.end());
        }
        return String.join("\n", lines.subList(r.start() - 1, r.end()));
    }

    /** The share of the question's content words (3+ characters, not stop words) found in the text. */
    static double overlap(String question, String text) {
        Set<String> words = new HashSet<>(List.of(WORDS.split(text.toLowerCase(Locale.ROOT))));
        long content = 0;
        long found = 0;
        for (String w : new LinkedHashSet<>(List.of(WORDS.split(question.toLowerCase(Locale.ROOT))))) {
            if (w.length() >= 3 && !STOPWORDS.contains(w)) {
                content++;
                if (words.contains(w)) {
                    found++;
                }
            }
        }
        return content == 0 ? 0 : (double) found / content;
    }

    /**
     * Scores per configuration.
     *
     * @param all         every counted question
     * @param paraphrased the paraphrased ones
     * @param literal     the others
     * @param misses      per configuration, the ids of the questions not answered in the first 5,
     *                    with the rank of the first answer in the first 20 (0 for none)
     * @param runs        what building and searching each store took
     */
    record Result(Map<String, Metrics.Mean> all, Map<String, Metrics.Mean> paraphrased,
                  Map<String, Metrics.Mean> literal, Map<String, Map<String, Integer>> misses, List<Run> runs,
                  Map<String, Metrics.Mean> strict, Map<String, List<Integer>> tokens,
                  Map<String, Map<String, Metrics.Mean>> bySet) {

        /** The median over questions of the estimated tokens of the first 5 hits' returned text. */
        int medianTokens(String config) {
            List<Integer> t = new ArrayList<>(tokens.get(config));
            if (t.isEmpty()) {
                return 0;
            }
            t.sort(null);
            return t.get(t.size() / 2);
        }
    }

    /**
     * One model's run; {@code report} is the indexer's summary; {@code sameFirstFive} counts the
     * questions whose default search of {@link #FEW} hits gave the first {@value #FEW} of its
     * search of {@link Metrics#DEPTH} (the same memories, scores and passages), as
     * {@code search_memory} (5 hits) and {@code funes search} (10) need for these figures to be theirs.
     */
    record Run(String modelId, Path store, String report, double buildSeconds, double searchSeconds,
               int sameFirstFive, int questions) {
    }

    /** The hits of the smaller search compared with the first of the evaluation's. */
    static final int FEW = 5;

    /**
     * Indexes the fixtures into one store per model and scores every counted question with every
     * configuration of {@link Configs}.
     *
     * @param tuned the options of {@code hybrid min-max + rerank}
     */
    static Result run(Prepared data, List<String> models, StoreDirs dirs, Path ranksFile, StoreOptions tuned,
                      PrintStream log) throws IOException {
        try (PrintStream ranks = ranksFile == null ? null
                : new PrintStream(Files.newOutputStream(ranksFile), true, StandardCharsets.UTF_8)) {
            return run(data, models, dirs, ranks, tuned, log);
        }
    }

    private static Result run(Prepared data, List<String> models, StoreDirs dirs, PrintStream ranks,
                              StoreOptions tuned, PrintStream log) throws IOException {
        List<String> configs = Configs.names(models);
        Map<String, Metrics.Mean> all = new LinkedHashMap<>();
        Map<String, Metrics.Mean> paraphrased = new LinkedHashMap<>();
        Map<String, Metrics.Mean> literal = new LinkedHashMap<>();
        Map<String, Map<String, Integer>> misses = new LinkedHashMap<>();
        Map<String, Metrics.Mean> strict = new LinkedHashMap<>();
        Map<String, List<Integer>> tokens = new LinkedHashMap<>();
        Map<String, Map<String, Metrics.Mean>> bySet = new LinkedHashMap<>();
        for (String c : configs) {
            all.put(c, new Metrics.Mean());
            paraphrased.put(c, new Metrics.Mean());
            literal.put(c, new Metrics.Mean());
            misses.put(c, new LinkedHashMap<>());
            strict.put(c, new Metrics.Mean());
            tokens.put(c, new ArrayList<>());
            bySet.put(c, new java.util.TreeMap<>());
        }
        Map<Path, Path> realPaths = new HashMap<>();
        List<Run> runs = new ArrayList<>();
        for (String model : models) {
            try (Embedder embedder = Embedders.forModelId(model)) {
                // Passages are not among the ids (the readers give them to the indexer alone): the
                // folder's name says the store holds them.
                // The store also holds what the Indexer adds (passages, derived memories): its code
                // names the folder too, so a change of passages never reuses a stale store.
                List<String> key = new ArrayList<>(data.memoryIds());
                key.add(StoreDirs.codeOf(Indexer.class));
                Path dir = dirs.dirFor("coding-passages", model, key);
                List<Configs.Group> groups = Configs.groups(model, model.equals(models.get(0)), tuned);
                String summary = "";
                double build = 0;
                double search = 0;
                int same = 0;
                for (Configs.Group group : groups) {
                    try (MemoryStore store = FunesStore.open(dir, embedder, group.options())) {
                        if (group == groups.get(0)) {
                            long t0 = System.nanoTime();
                            IndexReport report = Indexer.builder(store).build().index(List.of(data.fixtures()));
                            build = (System.nanoTime() - t0) / 1e9;
                            summary = report.summary();
                            // Besides what the readers give, the store holds what the indexer
                            // derives (decisions, conventions, lookups) and passages: it must hold
                            // at least every memory the fixtures yield.
                            long missing = data.memoryIds().stream().filter(id -> store.get(id).isEmpty()).count();
                            if (missing > 0) {
                                log.printf(Locale.ROOT, "coding %s: WARNING the store lacks %d of the %d memories"
                                        + " the fixtures yield%n", model, missing, data.memoryIds().size());
                            }
                        }
                        long t1 = System.nanoTime();
                        for (CodingQuestions.Question q : data.counted()) {
                            // A hit answers when its memory or one of its passages cites the answer
                            // (at most 100 lines); strictly, when what it cites and returns (one of
                            // its passages, else its memory) does, in at most 20 lines.
                            Predicate<SearchHit> answers = h -> hitAnswers(data.fixtures(), q, h, realPaths);
                            Predicate<SearchHit> strictly = h -> h.passage() == null
                                    ? answers(data.fixtures(), q, h.memory(), realPaths, STRICT_CITED_LINES)
                                    : h.passages().stream()
                                    .anyMatch(p -> answers(data.fixtures(), q, p, realPaths, STRICT_CITED_LINES));
                            for (Configs.Config config : group.configs()) {
                                List<SearchHit> ranked = Configs.hits(store, q.question(), null, config.mode());
                                score(q, config.name(), ranked, answers, all, paraphrased, literal, misses);
                                if (ranks != null) {
                                    ranks(ranks, q, config.name(), ranked, answers, strictly);
                                }
                                double[] strictSuccess = new double[Metrics.CUTOFFS.size()];
                                for (int i = 0; i < strictSuccess.length; i++) {
                                    strictSuccess[i] = Metrics.successAt(ranked, strictly, Metrics.CUTOFFS.get(i));
                                }
                                strict.get(config.name()).add(strictSuccess, Metrics.reciprocalRank(ranked, strictly));
                                tokens.get(config.name()).add(tokens(ranked.subList(0, Math.min(5, ranked.size()))));
                                double[] success = new double[Metrics.CUTOFFS.size()];
                                for (int i = 0; i < success.length; i++) {
                                    success[i] = Metrics.successAt(ranked, answers, Metrics.CUTOFFS.get(i));
                                }
                                bySet.get(config.name()).computeIfAbsent(q.set(), k -> new Metrics.Mean())
                                        .add(success, Metrics.reciprocalRank(ranked, answers));
                                if (group == groups.get(groups.size() - 1) && config.mode() == Retrieval.HYBRID) {
                                    List<SearchHit> few = store.search(SearchRequest.builder(q.question()).limit(FEW).build());
                                    if (shown(few).equals(shown(ranked.subList(0, Math.min(FEW, ranked.size()))))) {
                                        same++;
                                    }
                                }
                            }
                        }
                        search += (System.nanoTime() - t1) / 1e9;
                    }
                }
                log.printf(Locale.ROOT, "coding %s: %s; %d questions in %.1f s%n", model, summary,
                        data.counted().size(), search);
                runs.add(new Run(model, dir, summary, build, search, same, data.counted().size()));
            }
        }
        return new Result(all, paraphrased, literal, misses, runs, strict, tokens, bySet);
    }

    /** The hits as a caller sees them: memory, score and passages of each. */
    private static List<String> shown(List<SearchHit> hits) {
        List<String> shown = new ArrayList<>(hits.size());
        for (SearchHit h : hits) {
            StringBuilder b = new StringBuilder(h.memory().id()).append(' ').append(h.score());
            h.passages().forEach(p -> b.append(' ').append(p.id()));
            shown.add(b.toString());
        }
        return shown;
    }

    /**
     * The tokens a model would read for these hits' returned text, estimated as one per four
     * characters (what tokenizers of English and code average): what a hit costs in a context.
     */
    static int tokens(List<SearchHit> hits) {
        long chars = 0;
        for (SearchHit h : hits) {
            if (h.passage() == null) {
                chars += h.memory().text().length();
            }
            for (Memory p : h.passages()) {
                chars += p.text().length();
            }
        }
        return (int) Math.round(chars / 4.0);
    }

    /**
     * One question's line for {@code --ranks}: the id, configuration and first answering rank (0
     * for none in the first 20), then one line per hit of the first 5 with its rank (marked
     * {@code *} when it answers, {@code +} when strictly), its kind, what it cites (its best
     * passage, else its memory, and the lines of its further passages), how its score was made and
     * the start of its returned text.
     */
    private static void ranks(PrintStream out, CodingQuestions.Question q, String config, List<SearchHit> ranked,
                              Predicate<SearchHit> answers, Predicate<SearchHit> strictly) {
        double rr = Metrics.reciprocalRank(ranked, answers);
        out.printf(Locale.ROOT, "%s\t%s\t%d\t%s%n", q.id(), config, rr == 0 ? 0 : Math.round(1 / rr), q.question());
        for (int i = 0; i < Math.min(5, ranked.size()); i++) {
            SearchHit h = ranked.get(i);
            Memory shown = h.passage() != null ? h.passage() : h.memory();
            String oneLine = shown.text().replaceAll("\\s+", " ");
            StringBuilder more = new StringBuilder();
            for (Memory p : h.morePassages()) {
                more.append(more.length() == 0 ? " and " : ", ").append(p.provenance().lineStart()).append('-')
                        .append(p.provenance().lineEnd());
            }
            out.printf(Locale.ROOT, "\t#%d%s\t%s\t%s:%d-%d%s\t%s\t%s%n", i + 1,
                    (answers.test(h) ? "*" : "") + (strictly.test(h) ? "+" : ""),
                    h.memory().kind().label(), shown.provenance().source().getFileName(), shown.provenance().lineStart(),
                    shown.provenance().lineEnd(), more, h.parts().explain(),
                    oneLine.substring(0, Math.min(160, oneLine.length())));
        }
    }

    private static void score(CodingQuestions.Question q, String config, List<SearchHit> ranked, Predicate<SearchHit> answers,
                              Map<String, Metrics.Mean> all, Map<String, Metrics.Mean> paraphrased,
                              Map<String, Metrics.Mean> literal, Map<String, Map<String, Integer>> misses) {
        double[] success = new double[Metrics.CUTOFFS.size()];
        for (int i = 0; i < success.length; i++) {
            success[i] = Metrics.successAt(ranked, answers, Metrics.CUTOFFS.get(i));
        }
        double rr = Metrics.reciprocalRank(ranked, answers);
        all.get(config).add(success, rr);
        (q.paraphrased() ? paraphrased : literal).get(config).add(success, rr);
        if (success[Metrics.CUTOFFS.indexOf(5)] == 0) {
            misses.get(config).put(q.id(), rr == 0 ? 0 : (int) Math.round(1 / rr));
        }
    }

    /**
     * Whether a memory answers the question: it cites one of the expected files, overlaps the
     * expected range there, and cites at most {@code maxLines} lines.
     */
    static boolean answers(Path fixtures, CodingQuestions.Question q, Memory m, Map<Path, Path> realPaths) {
        return answers(fixtures, q, m, realPaths, MAX_CITED_LINES);
    }

    /**
     * Whether a hit answers the question: its memory or one of the passages it returns cites the
     * answer in at most {@value #MAX_CITED_LINES} lines.
     */
    static boolean hitAnswers(Path fixtures, CodingQuestions.Question q, SearchHit h, Map<Path, Path> realPaths) {
        return answers(fixtures, q, h.memory(), realPaths, MAX_CITED_LINES)
                || h.passages().stream().anyMatch(p -> answers(fixtures, q, p, realPaths, MAX_CITED_LINES));
    }

    /** Whether a memory answers the question citing at most {@code maxLines} lines. */
    static boolean answers(Path fixtures, CodingQuestions.Question q, Memory m, Map<Path, Path> realPaths,
                           int maxLines) {
        Provenance p = m.provenance();
        if (p == null || p.lineCount() > maxLines) {
            return false;
        }
        Path cited = realPath(p.source(), realPaths);
        for (CodingQuestions.Range r : q.expected()) {
            if (r.overlaps(p.lineStart(), p.lineEnd()) && cited.equals(realPath(fixtures.resolve(r.file()), realPaths))) {
                return true;
            }
        }
        return false;
    }

    private static Path realPath(Path path, Map<Path, Path> cache) {
        return cache.computeIfAbsent(path, p -> {
            try {
                return p.toRealPath();
            } catch (IOException e) {
                return p.toAbsolutePath().normalize();
            }
        });
    }
}
