package dev.funes.examples;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

/**
 * An agent loop with memory: before acting on a task, recall what the store knows about it;
 * after acting, record the decision (with the provenance of the evidence it rests on), so the
 * next iteration recalls it. The agent's reasoning is a stand-in ({@link #decide}): a real agent
 * would call its model there, with the recalled memories in its prompt.
 *
 * <p>Run: {@code examples/run AgentLoop [LOG_FOLDER]} (default: {@code examples/demo-session}).
 */
public final class AgentLoop {

    private AgentLoop() {
    }

    /** Indexes {@code args[0]} into a temporary store, then runs two tasks through the loop. */
    public static void main(String[] args) throws Exception {
        Path logs = Path.of(args.length > 0 ? args[0] : "examples/demo-session");
        Path storeDir = Files.createTempDirectory("funes-agent-loop-");
        List<String> tasks = List.of(
                "The nightly ledger import fails with 'unknown account'. How should the parser read the file?",
                "Someone wants the streaming ledger parser back because it is faster. Should we switch back?");

        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore store = FunesStore.open(storeDir, embedder)) {
            System.out.println(Indexer.builder(store).build().index(List.of(logs)).summary());
            for (int i = 0; i < tasks.size(); i++) {
                String task = tasks.get(i);
                System.out.printf("%n== iteration %d: %s%n", i + 1, task);
                // README:begin
                // 1. Recall before acting.
                List<SearchHit> recalled = store.search(SearchRequest.builder(task).limit(3).build());
                for (SearchHit hit : recalled) {
                    Memory m = hit.memory();
                    System.out.printf("recalled [%s] %s%n    from %s%n", m.kind().label(),
                            m.text().lines().findFirst().orElse(""),
                            m.provenance() != null ? m.provenance() : m.agent());
                }

                // 2. Act (a real agent asks its model here, with the recalled memories in the prompt).
                String decision = decide(task, recalled);
                System.out.println("decided: " + decision);

                // 3. Record the decision, citing the log lines of the evidence it rests on.
                SearchHit evidence = recalled.get(0);
                Memory record = Memory.builder(MemoryKind.DECISION, "agent-loop", decision)
                        .project(evidence.memory().project())
                        .session("agent-loop-" + storeDir.getFileName())
                        .time(Instant.now(), Instant.now())
                        .provenance(evidence.memory().provenance())
                        .metadata("task", task)
                        .metadata("basedOn", evidence.memory().id())
                        .build();
                store.add(record);
                // README:end
                System.out.printf("recorded decision %s (evidence: %s)%n", record.id(), record.provenance());
            }
        }
        System.out.println("\nstore left at " + storeDir);
    }

    /**
     * The stand-in for the agent's model: decides from the best recalled memory, quoting what it
     * rests on. Deterministic, so the example's output can be tested.
     */
    static String decide(String task, List<SearchHit> recalled) {
        if (recalled.isEmpty()) {
            return "No memory of this; investigate from scratch: " + task;
        }
        Memory best = recalled.get(0).memory();
        if (best.kind() == MemoryKind.DECISION) {
            return "Keep the earlier decision (" + best.text().lines().findFirst().orElse("") + ")";
        }
        String joined = String.join(" ", recalled.stream().map(h -> h.memory().text()).toList());
        if (joined.contains("two-pass")) {
            return "Read the ledger in two passes (accounts first, then transfers), so forward references"
                    + " resolve; do not go back to the streaming parser.";
        }
        return "Act on the best memory: " + best.text().lines().findFirst().orElse("");
    }
}
