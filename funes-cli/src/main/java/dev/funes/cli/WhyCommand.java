package dev.funes.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Memory;
import dev.funes.SearchHit;
import dev.funes.ScoreParts;
import dev.funes.why.Why;
import dev.funes.why.WhyHit;
import dev.funes.why.WhyRequest;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code funes why}: the decisions, exchanges and sessions behind a commit, a file or a topic. */
@Command(name = "why", description = "The decisions, exchanges and sessions behind a commit (sha), a file[:line] or a topic.")
final class WhyCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = {"-n", "--limit"}, paramLabel = "K", defaultValue = "10", description = "Number of hits (default: ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = {"-j", "--json"}, description = "Print a JSON array of hits (see docs/CLI.md).")
    boolean json;

    @Parameters(arity = "1..*", paramLabel = "SHA|FILE[:LINE]|TEXT", description = "A commit, a file (optionally :line) or a question.")
    List<String> target;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        WhyRequest request;
        try {
            request = WhyRequest.of(String.join(" ", target)).withLimit(limit).withBase(ServeWire.workingDirectory());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        try (OpenStore open = OpenStore.existing(storeOptions.dir())) {
            List<WhyHit> hits = Why.over(open.store()).why(request);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                ArrayNode array = HitJson.MAPPER.createArrayNode();
                hits.forEach(h -> array.add(json(h)));
                out.println(array.toPrettyString());
            } else {
                print(hits, out);
            }
        }
        return 0;
    }

    /** A hit in the search hit form (docs/CLI.md) plus how it was linked. */
    static ObjectNode json(WhyHit hit) {
        ObjectNode node = HitJson.hit(new SearchHit(hit.memory(), hit.confidence(), new ScoreParts(0, 0, 0, 0, hit.confidence(), Double.NaN, Double.NaN, 0)));
        node.remove("scoreParts");
        node.put("evidence", hit.evidence().label());
        node.put("confidence", hit.confidence());
        node.put("commit", hit.commit());
        node.put("commitTitle", hit.commitTitle());
        node.put("stale", hit.stale());
        node.put("staleReason", hit.staleReason());
        return node;
    }

    private static void print(List<WhyHit> hits, PrintWriter out) {
        if (hits.isEmpty()) {
            out.println("no memories are linked to that, and none match it");
            return;
        }
        int rank = 1;
        for (WhyHit hit : hits) {
            Memory memory = hit.memory();
            String when = HitJson.timestamp(memory);
            out.printf(Locale.ROOT, "%d. %s  %s  %s%s  %s %.2f%s%n", rank++, memory.kind().label(), memory.agent(),
                    when == null ? "" : when.replace('T', ' ').replaceFirst("\\.\\d+Z$", "Z"),
                    memory.session() == null ? "" : "  session " + memory.session(),
                    hit.evidence().label(), hit.confidence(), hit.stale() ? "  STALE" : "");
            if (hit.commit() != null) {
                out.println("   commit " + hit.commit().substring(0, Math.min(12, hit.commit().length()))
                        + (hit.commitTitle() == null ? "" : "  " + hit.commitTitle()));
            }
            if (hit.stale()) {
                out.println("   stale: " + hit.staleReason());
            }
            if (memory.provenance() != null) {
                out.println("   " + memory.provenance());
            }
            HitText.preview(memory.text(), out);
            out.println();
        }
    }
}
