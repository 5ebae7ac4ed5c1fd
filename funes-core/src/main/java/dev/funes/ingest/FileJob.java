package dev.funes.ingest;

import dev.funes.AddResult;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * One file of an {@link Indexer#index} call: what it told the listener while it was read (kept
 * until its writes are done, so that the listener hears each file's events together, in order)
 * and what it tells once they are done.
 */
final class FileJob {
    final Path file;
    final WriteQueue.Group writes = new WriteQueue.Group();
    private final List<Consumer<IndexListener>> told = new ArrayList<>();
    /** Records what is told about the file. */
    final IndexListener events = new IndexListener() {
        @Override
        public void fileStarted(Path file, int number, int total) {
            told.add(l -> l.fileStarted(file, number, total));
        }

        @Override
        public void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
            told.add(l -> l.fileFinished(file, outcome, memories, stored));
        }

        @Override
        public void earlierMemories(Path file, int removed, int kept) {
            told.add(l -> l.earlierMemories(file, removed, kept));
        }

        @Override
        public void problem(IndexProblem problem) {
            told.add(l -> l.problem(problem));
        }
    };
    /** The reading's outcome, told once the writes succeeded; a failed write replaces it. */
    Runnable outcome = () -> {
    };
    /** The sink of the file's read, whose counts a failed write reports; null until it is read. */
    FileBatches batches;
    /** Told the offset its read reached, at once (not recorded): the listener's {@link IndexListener#progress}. */
    LongConsumer progress = offset -> {
    };

    FileJob(Path file) {
        this.file = file;
    }

    /** Tells {@code listener} what was recorded, once. */
    void replay(IndexListener listener) {
        List<Consumer<IndexListener>> all = List.copyOf(told);
        told.clear();
        for (Consumer<IndexListener> event : all) {
            event.accept(listener);
        }
    }
}
