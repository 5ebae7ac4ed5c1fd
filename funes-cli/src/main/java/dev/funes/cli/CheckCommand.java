package dev.funes.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Embedder;
import dev.funes.FunesException;
import dev.funes.embed.Embedders;
import dev.funes.store.CheckReport;
import dev.funes.store.FunesStore;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code funes check}: verifies a store, and with {@code --repair} rebuilds its derived parts. */
@Command(name = "check", description = {
    "Check the integrity of the store: SQLite, schema, vectors and model, sessions, full-text and ANN indexes.",
    "Exit 0 when healthy, 1 when a problem remains; '--repair' is advised only for problems it fixes."})
final class CheckCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--repair",
            description = "Rebuild what is derived and found wrong (full-text index, sessions table, ANN index);"
                    + " never deletes a memory.")
    boolean repair;

    @Option(names = "--quick",
            description = "Only the cheap signs of damage search warns about (two counts and 32 vectors): no full"
                    + " scan, no model.")
    boolean quick;

    @Option(names = {"-j", "--json"}, description = "Print a JSON object.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Path dir = storeOptions.dir();
        if (!Files.exists(dir.resolve("funes.db"))) {
            throw new FunesException("no Funes store at " + dir + " (run 'funes index' first, or pass --store DIR)");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (quick) {
            if (repair) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--quick and --repair exclude each other");
            }
            return quick(dir, out, err);
        }
        CheckReport report;
        try (Embedder embedder = embedder(dir, err)) {
            report = FunesStore.check(dir, embedder, repair);
        }
        if (json) {
            ObjectNode node = HitJson.MAPPER.createObjectNode();
            node.put("store", dir.toString());
            node.put("healthy", report.healthy());
            node.put("summary", report.summary());
            ArrayNode findings = node.putArray("findings");
            for (CheckReport.Finding f : report.findings()) {
                findings.addObject().put("check", f.check())
                        .put("status", f.status().name().toLowerCase(Locale.ROOT))
                        .put("message", f.message())
                        .put("repairable", f.repairable());
            }
            out.println(HitJson.MAPPER.writeValueAsString(node));
        } else {
            out.println("store      " + dir);
            for (CheckReport.Finding f : report.findings()) {
                out.printf("%-9s %-13s %s%n", f.status().name().toLowerCase(Locale.ROOT), f.check(), f.message());
            }
            out.println(report.summary());
        }
        if (report.healthy()) {
            return 0;
        }
        // --repair is advised only when it fixes something; the other problems say what does.
        err.println("funes: the store " + dir + " has " + report.summary()
                + (!repair && report.repairable() ? "; 'funes check --repair' rebuilds what is derived"
                        : "; see the findings above for what to do"));
        return 1;
    }

    /** {@code check --quick}: the signs of {@link FunesStore#quickCheck}; none is no proof of health. */
    private int quick(Path dir, PrintWriter out, PrintWriter err) throws Exception {
        List<String> signs = FunesStore.quickCheck(dir);
        String summary = signs.isEmpty() ? "no sign of damage (quick check; 'funes check' checks everything)"
                : signs.size() + (signs.size() == 1 ? " sign" : " signs") + " of damage (quick check)";
        if (json) {
            ObjectNode node = HitJson.MAPPER.createObjectNode();
            node.put("store", dir.toString());
            node.put("healthy", signs.isEmpty());
            node.put("summary", summary);
            ArrayNode findings = node.putArray("findings");
            signs.forEach(sign -> findings.addObject().put("check", "quick").put("status", "problem")
                    .put("message", sign).put("repairable", false));
            out.println(HitJson.MAPPER.writeValueAsString(node));
        } else {
            out.println("store      " + dir);
            signs.forEach(sign -> out.printf("%-9s %-13s %s%n", "problem", "quick", sign));
            out.println(summary);
        }
        if (signs.isEmpty()) {
            return 0;
        }
        err.println("funes: the store " + dir + " shows " + summary + "; run 'funes check' to see what is wrong");
        return 1;
    }

    /**
     * The model the store was built with, to compare stored vectors with; none (the check says
     * so) when the database cannot tell or the model cannot be loaded.
     */
    private static Embedder embedder(Path dir, PrintWriter err) {
        Optional<String> model;
        try {
            model = FunesStore.recordedModelId(dir);
        } catch (FunesException e) {
            return null; // the check reports the damage
        }
        if (model.isEmpty()) {
            return null;
        }
        try {
            return Embedders.forModelId(model.get());
        } catch (FunesException e) {
            err.println("funes: cannot load the model " + model.get() + " (" + Main.oneLine(e)
                    + "); stored vectors are not compared with it");
            return null;
        }
    }
}
