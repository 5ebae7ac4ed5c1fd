package dev.funes.examples;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Open a store, index a folder of agent logs, search it. The README's library example is the
 * part between the {@code README} markers, checked by {@code ReadmeSnippetsTest}.
 *
 * <p>Run: {@code mvn -q -pl examples -am package -DskipTests && java -cp "examples/target/classes:examples/target/lib/*" dev.funes.examples.Quickstart [LOG_FOLDER] [QUESTION]}
 */
public final class Quickstart {

    private Quickstart() {
    }

    /**
     * Indexes {@code args[0]} (default: the sample session in {@code examples/demo-session}) into
     * a temporary store and prints the best memories for {@code args[1]}.
     */
    public static void main(String[] args) throws Exception {
        Path logs = Path.of(args.length > 0 ? args[0] : "examples/demo-session");
        String question = args.length > 1 ? args[1] : "why did we move away from the streaming parser?";
        Path storeDir = Files.createTempDirectory("funes-quickstart-");

        try {
            // README:begin
            try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
                 MemoryStore store = FunesStore.open(storeDir, embedder)) {

                IndexReport report = Indexer.builder(store).build().index(List.of(logs));
                System.out.println(report.summary());

                SearchRequest request = SearchRequest.builder(question).limit(3).build();
                for (SearchHit hit : store.search(request)) {
                    System.out.printf("%.4f %s %s%n", hit.score(), hit.memory().kind().label(),
                            hit.memory().provenance());
                    System.out.println(hit.memory().text().lines().limit(3).toList());
                }
            }
            // README:end
        } finally {
            Folders.deleteTree(storeDir); // the example leaves nothing behind
        }
    }
}
