package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A second writing process for {@link MultiProcessTest}: adds {@code args[2]} batches of
 * {@code args[3]} new memories of session {@code args[1]} to the store in {@code args[0]}, printing
 * {@code COMMITTED <batch>} after each.
 */
public final class WriterChild {

    private WriterChild() {
    }

    /** Runs the child. */
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        String session = args[1];
        int batches = Integer.parseInt(args[2]);
        int size = Integer.parseInt(args[3]);
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore store = FunesStore.open(dir, embedder)) {
            System.out.println("READY");
            System.out.flush();
            for (int b = 0; b < batches; b++) {
                store.addAll(batch(session, b, size));
                System.out.println("COMMITTED " + b);
                System.out.flush();
            }
        }
        System.out.println("DONE");
        System.out.flush();
    }

    /** Batch {@code b} of a session: {@code size} memories whose texts no other batch has. */
    static List<Memory> batch(String session, int b, int size) {
        String[] topics = {"the build cache", "a flaky test", "the release branch", "database migrations",
                "the login page", "memory usage", "the CI runner", "code review comments"};
        List<Memory> batch = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String text = "Session " + session + ", batch " + b + ", note " + i + ": we looked at "
                    + topics[(b * size + i) % topics.length] + " and wrote down what we decided.";
            batch.add(Memory.builder(MemoryKind.NOTE, "test-agent", text).session(session).build());
        }
        return batch;
    }
}
