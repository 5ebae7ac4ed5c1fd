package dev.funes.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.StoreStats;
import dev.funes.why.Why;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code funes stats}: counts, sizes and the model of a store. */
@Command(name = "stats", description = "Counts (per agent, per kind), sizes and model of the store.")
final class StatsCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = {"-j", "--json"}, description = "Print a JSON object.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        StoreStats stats;
        Map<String, Long> links;
        try (OpenStore open = OpenStore.existing(storeOptions.dir())) {
            stats = open.store().stats();
            links = Why.over(open.store()).linkCounts();
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectNode node = HitJson.MAPPER.createObjectNode();
            node.put("store", storeOptions.dir().toString());
            node.put("memories", stats.memories());
            node.put("sessions", stats.sessions());
            node.put("sources", stats.sources());
            node.put("vectors", stats.vectors());
            node.set("byAgent", HitJson.MAPPER.valueToTree(new TreeMap<>(stats.byAgent())));
            node.set("byKind", HitJson.MAPPER.valueToTree(new TreeMap<>(stats.byKind())));
            node.set("linksByEvidence", HitJson.MAPPER.valueToTree(new TreeMap<>(links)));
            node.put("model", stats.modelId());
            node.put("dimension", stats.dimension());
            node.put("databaseBytes", stats.databaseBytes());
            node.put("indexBytes", stats.indexBytes());
            node.set("redactions", HitJson.MAPPER.valueToTree(new TreeMap<>(stats.redactions())));
            out.println(HitJson.MAPPER.writeValueAsString(node));
            return 0;
        }
        out.println("store      " + storeOptions.dir());
        out.println("model      " + stats.modelId() + " (" + stats.dimension() + " dimensions)");
        out.println("memories   " + stats.memories() + " in " + stats.sessions() + " sessions from " + stats.sources() + " files");
        out.println("vectors    " + stats.vectors());
        printCounts("by agent", stats.byAgent(), out);
        printCounts("by kind", stats.byKind(), out);
        printCounts("links to commits, by evidence", links, out);
        long redacted = stats.redactions().values().stream().mapToLong(Long::longValue).sum();
        if (redacted > 0) {
            printCounts("secrets redacted (" + redacted + ")", stats.redactions(), out);
        }
        out.println("size       " + human(stats.databaseBytes()) + " database, " + human(stats.indexBytes()) + " index");
        return 0;
    }

    private static void printCounts(String title, Map<String, Long> counts, PrintWriter out) {
        out.println(title + ":");
        new TreeMap<>(counts).forEach((name, count) -> out.printf("  %-14s %d%n", name, count));
    }

    static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
