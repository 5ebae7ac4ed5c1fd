package dev.funes.bench.eval;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Writes the evaluation's results as Markdown. */
final class Report {

    private final StringBuilder md = new StringBuilder();

    /** The text written so far. */
    String text() {
        return md.toString();
    }

    Report line(String format, Object... args) {
        md.append(String.format(Locale.ROOT, format, args)).append('\n');
        return this;
    }

    /** The run's header: when, how, where. */
    void header(String command, List<String> models, String tuned) {
        line("# Funes retrieval evaluation").line("");
        line("- date: %s", Instant.now().truncatedTo(ChronoUnit.SECONDS));
        line("- command: `%s`", command);
        line("- machine: %s %s (%s), %d cores%s", System.getProperty("os.name"), System.getProperty("os.version"),
                System.getProperty("os.arch"), Runtime.getRuntime().availableProcessors(), cpu());
        line("- JVM: %s %s (%s), max heap %d MB", System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version", System.getProperty("java.version")),
                System.getProperty("java.vm.vendor"), Runtime.getRuntime().maxMemory() >> 20);
        line("- models: %s", String.join(", ", models));
        if (!tuned.isEmpty()) {
            line("- `hybrid min-max + rerank` with the store's defaults but %s", tuned);
        }
        line("");
    }

    private static String cpu() {
        Path info = Path.of("/proc/cpuinfo");
        if (!Files.isReadable(info)) {
            return "";
        }
        try (Stream<String> lines = Files.lines(info)) {
            return lines.filter(l -> l.startsWith("model name"))
                    .map(l -> ", " + l.substring(l.indexOf(':') + 1).trim())
                    .findFirst().orElse("");
        } catch (IOException | java.io.UncheckedIOException e) {
            return "";
        }
    }

    /** The LoCoMo tables: headline per configuration, then recall@10 per category. */
    void locomo(LocomoEval.Prepared data, LocomoEval.Result result) {
        line("## LoCoMo evidence recall").line("");
        long skipped = data.notes().stream().filter(n -> n.contains("question skipped")).count();
        long inSplit = data.items().stream().filter(result.split()::contains).count();
        line("%d conversations, %d turns (one memory each), %d questions scored (%d skipped for want of evidence),"
                        + " each searched within its own conversation. Questions in these tables: %s (%d). Headline:"
                        + " all categories, as in ../shared/eval/README.md; the last two columns leave out category 5"
                        + " (adversarial).",
                data.conversations().size(), data.memories().size(), data.items().size(), skipped,
                switch (result.split()) {
                    case ALL -> "all";
                    case TUNE -> "the tuning half (1st, 3rd, ... question of each conversation)";
                    case HELDOUT -> "the held-out half (2nd, 4th, ... question of each conversation)";
                }, inSplit);
        line("");
        line("| configuration | recall@1 | recall@5 | recall@10 | recall@20 | MRR@20 | recall@5 cat 1–4"
                + " | recall@10 cat 1–4 |");
        line("|---|---|---|---|---|---|---|---|");
        for (String config : result.scores().keySet()) {
            Metrics.Mean m = result.headline(config);
            Metrics.Mean x = result.excluding(config, LocomoEval.ADVERSARIAL);
            line("| %s | %s | %s | %s | %s | %s | %s | %s |", config, f(m.atK(1)), f(m.atK(5)), f(m.atK(10)),
                    f(m.atK(20)), f(m.mrr()), f(x.atK(5)), f(x.atK(10)));
        }
        line("");
        List<Integer> categories = result.scores().values().stream().flatMap(c -> c.keySet().stream()).distinct()
                .sorted().toList();
        line("Recall@10 (recall@5) by category; n = questions scored:").line("");
        line("| configuration | %s |", categories.stream().map(c -> "cat " + c + (c == LocomoEval.ADVERSARIAL
                ? " (adversarial)" : "") + " n=" + count(result, c)).collect(Collectors.joining(" | ")));
        line("|---|%s", "---|".repeat(categories.size()));
        for (Map.Entry<String, Map<Integer, Metrics.Mean>> e : result.scores().entrySet()) {
            line("| %s | %s |", e.getKey(), categories.stream().map(c -> {
                Metrics.Mean m = e.getValue().get(c);
                return m == null ? "–" : f(m.atK(10)) + " (" + f(m.atK(5)) + ")";
            }).collect(Collectors.joining(" | ")));
        }
        line("");
        line("Tuning half (1st, 3rd, ... question of each conversation) and held-out half (2nd, 4th, ...),"
                + " all categories:").line("");
        line("| configuration | tune recall@5 | tune recall@10 | tune MRR@20 | held-out recall@5 | held-out recall@10"
                + " | held-out MRR@20 |");
        line("|---|---|---|---|---|---|---|");
        for (Map.Entry<String, Metrics.Mean[]> e : result.halves().entrySet()) {
            Metrics.Mean t = e.getValue()[0];
            Metrics.Mean h = e.getValue()[1];
            line("| %s | %s | %s | %s | %s | %s | %s |", e.getKey(), f(t.atK(5)), f(t.atK(10)), f(t.mrr()),
                    f(h.atK(5)), f(h.atK(10)), f(h.mrr()));
        }
        line("");
        if (!data.notes().isEmpty()) {
            line("Evidence ids repaired or dropped, and questions skipped (%s):", data.file()).line("");
            data.notes().forEach(n -> line("- %s", n));
            line("");
        }
        for (LocomoEval.Run run : result.runs()) {
            line("- %s store: %d memories, %d embedded in this run, built in %.1f s; searches: %.1f s for %d searches"
                            + " (%d questions, one search per configuration)", run.modelId(), run.memories(),
                    run.embedded(), run.buildSeconds(), run.searchSeconds(), run.searches(), data.items().size());
        }
        line("");
    }

    private static int count(LocomoEval.Result result, int category) {
        return result.scores().values().stream().map(c -> c.get(category)).filter(m -> m != null)
                .mapToInt(Metrics.Mean::questions).max().orElse(0);
    }

    /** The coding-session table. */
    void coding(CodingEval.Prepared data, CodingEval.Result result) {
        line("## Coding-session questions").line("");
        long paraphrased = data.counted().stream().filter(CodingQuestions.Question::paraphrased).count();
        line("%d questions scored (%d paraphrased, %d literal), %d skipped (their fixture yields no memory"
                        + " with the formats this build reads). A result answers when it cites the expected file, overlaps"
                        + " the expected lines and cites at most %d lines. Memories: %d from %d fixture files (%s).",
                data.counted().size(), paraphrased, data.counted().size() - paraphrased, data.skipped().size(),
                CodingEval.MAX_CITED_LINES, data.memoryIds().size(), data.files().size(),
                data.files().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                        .collect(Collectors.joining(", ")));
        line("");
        line("What a hit cites and returns is its passage when it has one (the record that holds the answer),"
                + " else its memory. Strict recall@5 counts a hit only when it cites at most %d lines; tokens: the"
                + " median over questions of the first 5 hits' returned text, one token per 4 characters.",
                CodingEval.STRICT_CITED_LINES);
        line("");
        line("| configuration | recall@1 | recall@5 | recall@10 | MRR@20 | strict recall@5 | top-5 tokens"
                + " | recall@5 paraphrased | recall@5 literal |");
        line("|---|---|---|---|---|---|---|---|---|");
        for (String config : result.all().keySet()) {
            Metrics.Mean m = result.all().get(config);
            line("| %s | %s | %s | %s | %s | %s | %d | %s | %s |", config, f(m.atK(1)), f(m.atK(5)), f(m.atK(10)),
                    f(m.mrr()), f(result.strict().get(config).atK(5)), result.medianTokens(config),
                    f(result.paraphrased().get(config).atK(5)), f(result.literal().get(config).atK(5)));
        }
        line("");
        java.util.Set<String> sets = new java.util.TreeSet<>();
        result.bySet().values().forEach(m -> sets.addAll(m.keySet()));
        if (sets.size() > 1) {
            StringBuilder head = new StringBuilder("| configuration |");
            StringBuilder rule = new StringBuilder("|---|");
            for (String set : sets) {
                long n = data.counted().stream().filter(q -> q.set().equals(set)).count();
                head.append(" ").append(set).append(" (n=").append(n).append(") recall@1 | @5 | @10 |");
                rule.append("---|---|---|");
            }
            line("By question set:").line("").line(head.toString()).line(rule.toString());
            for (Map.Entry<String, Map<String, Metrics.Mean>> e : result.bySet().entrySet()) {
                StringBuilder row = new StringBuilder("| ").append(e.getKey()).append(" |");
                for (String set : sets) {
                    Metrics.Mean m = e.getValue().get(set);
                    row.append(' ').append(m == null ? "–" : f(m.atK(1))).append(" | ")
                            .append(m == null ? "–" : f(m.atK(5))).append(" | ")
                            .append(m == null ? "–" : f(m.atK(10))).append(" |");
                }
                line(row.toString());
            }
            line("");
        }
        line("Share of a question's content words found in its expected lines: paraphrased %s, literal %s.",
                f(data.overlap().get("paraphrased")), f(data.overlap().get("literal")));
        line("");
        for (Map.Entry<String, Map<String, Integer>> e : result.misses().entrySet()) {
            if (!e.getValue().isEmpty()) {
                line("- not in the first 5 with %s: %s", e.getKey(), e.getValue().entrySet().stream()
                        .map(m -> m.getKey() + (m.getValue() == 0 ? " (-)" : " (#" + m.getValue() + ")"))
                        .collect(Collectors.joining(", ")));
            }
        }
        if (!data.skipped().isEmpty()) {
            line("- skipped: %s", data.skipped().stream().map(q -> q.id()).collect(Collectors.joining(", ")));
        }
        for (CodingEval.Run run : result.runs()) {
            line("- %s store: %s; searches %.1f s; the default's first %d hits the same in a search of %d and of %d:"
                    + " %d of %d questions", run.modelId(), run.report(), run.searchSeconds(), CodingEval.FEW,
                    CodingEval.FEW, Metrics.DEPTH, run.sameFirstFive(), run.questions());
        }
        line("");
    }

    private static String f(double value) {
        return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%.3f", value);
    }
}
