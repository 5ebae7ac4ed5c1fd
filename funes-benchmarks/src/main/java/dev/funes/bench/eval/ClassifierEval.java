package dev.funes.bench.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.ingest.AgentLogs;
import dev.funes.ingest.Classifier;
import dev.funes.ingest.Indexer;
import dev.funes.ingest.LogFormat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Precision and recall of the {@link Classifier} against hand labels: each label names a record
 * (a fixture file and its line range) and the kinds a person reading it found in it (decision,
 * convention, lookup, or none). The fixtures are read with the real log formats, every exchange
 * is classified, and a derived memory is credited to every labelled record its cited lines overlap
 * (a lookup: to the record of its first line, the call); memories citing only unlabelled lines are
 * not scored. A memory that cites a whole exchange instead of its record therefore counts against
 * every labelled record of that exchange.
 *
 * <pre>
 * java -cp "funes-benchmarks/target/funes-benchmarks.jar:funes-benchmarks/target/lib/*" \
 *      -Dfunes.shared.dir=../shared dev.funes.bench.eval.ClassifierEval [--errors]
 * </pre>
 */
public final class ClassifierEval {

    static final String LABELS = "/eval/classifier-labels.jsonl";
    private static final List<MemoryKind> KINDS = List.of(MemoryKind.DECISION, MemoryKind.CONVENTION, MemoryKind.LOOKUP);

    private ClassifierEval() {
    }

    /** One labelled record. */
    record Label(String file, int lineStart, int lineEnd, Set<MemoryKind> kinds, String split) {
    }

    /** True and false positives and false negatives of one kind. */
    static final class Counts {
        int tp;
        int fp;
        int fn;
        int positives;

        double precision() {
            return tp + fp == 0 ? Double.NaN : (double) tp / (tp + fp);
        }

        double recall() {
            return tp + fn == 0 ? Double.NaN : (double) tp / (tp + fn);
        }
    }

    /**
     * Runs the evaluation and prints a table per split; {@code --errors} also lists every
     * misclassified record with what was predicted; {@code --dump <fixture>} only prints what
     * one fixture file gives.
     */
    public static void main(String[] args) throws IOException {
        Path fixtures = Path.of(System.getProperty("funes.shared.dir", "../shared")).resolve("fixtures");
        boolean errors = List.of(args).contains("--errors");
        if (!Files.isDirectory(fixtures)) {
            System.err.println("No fixtures at " + fixtures.toAbsolutePath() + " (set -Dfunes.shared.dir)");
            System.exit(2);
        }
        int dump = List.of(args).indexOf("--dump");
        if (dump >= 0 && dump + 1 < args.length) {
            for (Memory m : derive(fixtures.resolve(args[dump + 1]).toAbsolutePath().normalize(), new Classifier())) {
                System.out.println(m.provenance() + " " + m.metadata().get("rule") + " files=" + m.metadata().get("files")
                        + "\n    " + m.text().replace("\n", "\n    "));
            }
            return;
        }
        List<Label> labels = labels();
        Map<String, Map<String, Counts>> table = run(fixtures, labels, errors ? System.out : null);
        print(table, System.out);
    }

    /** The labels shipped with the benchmarks. */
    static List<Label> labels() throws IOException {
        List<Label> labels = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        try (InputStream in = ClassifierEval.class.getResourceAsStream(LABELS)) {
            if (in == null) {
                throw new IOException("resource " + LABELS + " is missing");
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            int n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode node = json.readTree(line);
                Set<MemoryKind> kinds = new TreeSet<>();
                for (JsonNode k : node.path("labels")) {
                    kinds.add(MemoryKind.fromLabel(k.asText()));
                }
                JsonNode lines = node.path("lines");
                if (!node.path("file").isTextual() || lines.size() != 2) {
                    throw new IOException(LABELS + " line " + n + ": needs \"file\" and \"lines\": [start, end]");
                }
                labels.add(new Label(node.path("file").asText(), lines.get(0).asInt(), lines.get(1).asInt(), kinds,
                        node.path("split").asText("all")));
            }
        }
        return labels;
    }

    /**
     * Classifies every exchange of the labelled files and counts, per split and kind.
     *
     * @param errors where misclassified records are listed, or null
     * @return split → kind label → counts; the split {@code all} sums the others
     */
    static Map<String, Map<String, Counts>> run(Path fixtures, List<Label> labels, PrintStream errors) throws IOException {
        Map<String, List<Label>> byFile = new TreeMap<>();
        for (Label l : labels) {
            byFile.computeIfAbsent(l.file(), f -> new ArrayList<>()).add(l);
        }
        Classifier classifier = new Classifier();
        Map<String, Map<String, Counts>> table = new TreeMap<>();
        for (Map.Entry<String, List<Label>> e : byFile.entrySet()) {
            Path file = fixtures.resolve(e.getKey()).toAbsolutePath().normalize();
            List<Memory> derived = derive(file, classifier);
            Map<Label, Set<MemoryKind>> predicted = new LinkedHashMap<>();
            Map<Label, List<String>> texts = new LinkedHashMap<>();
            for (Label l : e.getValue()) {
                predicted.put(l, new TreeSet<>());
                texts.put(l, new ArrayList<>());
            }
            for (Memory m : derived) {
                int start = m.provenance().lineStart();
                // A lookup cites its call through the answer after it; the call is what was labelled.
                int end = m.kind() == MemoryKind.LOOKUP ? start : m.provenance().lineEnd();
                for (Label l : e.getValue()) {
                    if (start <= l.lineEnd() && end >= l.lineStart()) {
                        predicted.get(l).add(m.kind());
                        texts.get(l).add(m.metadata().get("rule") + " | " + m.text().replace('\n', ' '));
                    }
                }
            }
            for (Label l : e.getValue()) {
                Set<MemoryKind> got = predicted.get(l);
                for (String split : List.of(l.split(), "all")) {
                    Map<String, Counts> row = table.computeIfAbsent(split, s -> new LinkedHashMap<>());
                    for (MemoryKind k : KINDS) {
                        Counts c = row.computeIfAbsent(k.label(), x -> new Counts());
                        boolean expected = l.kinds().contains(k);
                        boolean found = got.contains(k);
                        c.positives += expected ? 1 : 0;
                        c.tp += expected && found ? 1 : 0;
                        c.fp += !expected && found ? 1 : 0;
                        c.fn += expected && !found ? 1 : 0;
                    }
                    row.computeIfAbsent("records", x -> new Counts()).positives++;
                }
                if (errors != null && !got.equals(l.kinds())) {
                    errors.printf("%s:%d-%d [%s] expected %s got %s%n", l.file(), l.lineStart(), l.lineEnd(), l.split(),
                            l.kinds(), got);
                    for (String t : texts.get(l)) {
                        errors.println("    " + (t.length() > 300 ? t.substring(0, 300) + "..." : t));
                    }
                }
            }
        }
        return table;
    }

    private static List<Memory> derive(Path file, Classifier classifier) {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(Indexer.HEAD_BYTES);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read fixture " + file, e);
        }
        for (LogFormat format : AgentLogs.formats()) {
            if (format.canRead(file, head)) {
                return classifier.classify(format, file);
            }
        }
        throw new IllegalStateException("no log format reads " + file);
    }

    static void print(Map<String, Map<String, Counts>> table, PrintStream out) {
        out.println("| split | kind | labelled | found right | found wrong | precision | recall |");
        out.println("|---|---|---:|---:|---:|---:|---:|");
        for (Map.Entry<String, Map<String, Counts>> split : table.entrySet()) {
            for (MemoryKind k : KINDS) {
                Counts c = split.getValue().get(k.label());
                out.printf(Locale.ROOT, "| %s | %s | %d | %d | %d | %s | %s |%n", split.getKey(), k.label(), c.positives,
                        c.tp, c.fp, pct(c.precision()), pct(c.recall()));
            }
        }
        for (Map.Entry<String, Map<String, Counts>> split : table.entrySet()) {
            out.printf(Locale.ROOT, "%s: %d labelled records%n", split.getKey(), split.getValue().get("records").positives);
        }
    }

    private static String pct(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.0f%%", 100 * v);
    }

}
