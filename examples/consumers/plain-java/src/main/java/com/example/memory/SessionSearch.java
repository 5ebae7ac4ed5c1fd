package com.example.memory;

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
 * Indexes a folder of agent session logs into a Funes store and searches it.
 *
 * <p>Run: {@code java -cp ... com.example.memory.SessionSearch LOG_FOLDER QUESTION}.
 */
public final class SessionSearch {

    private SessionSearch() {
    }

    /** Indexes {@code logs} into the store in {@code storeDir} and answers {@code question}. */
    public static List<SearchHit> indexAndSearch(Path logs, Path storeDir, String question, int limit) {
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore store = FunesStore.open(storeDir, embedder)) {
            IndexReport report = Indexer.builder(store).build().index(List.of(logs));
            System.out.println(report.summary());
            return store.search(SearchRequest.builder(question).limit(limit).build());
        }
    }

    /** {@code args[0]}: a folder of logs; {@code args[1]}: the question. */
    public static void main(String[] args) throws Exception {
        Path storeDir = Files.createTempDirectory("funes-store-");
        for (SearchHit hit : indexAndSearch(Path.of(args[0]), storeDir, args[1], 3)) {
            System.out.printf("%.3f %s %s%n", hit.score(), hit.memory().kind().label(), hit.memory().provenance());
            hit.memory().text().lines().limit(2).forEach(line -> System.out.println("    " + line));
        }
    }
}
