package dev.funes.ingest;

import dev.funes.AddResult;
import dev.funes.FunesException;
import dev.funes.SourceState;
import dev.funes.StoreBusyException;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One {@link Indexer#index} call: its counters, its writes, the files whose writes may not be
 * done yet, and what it tells its listener, file by file in the order the files were read.
 */
final class IndexRun {
    final long startNanos = System.nanoTime();
    final MemoryRedactor redactor;
    /** What every read of the call shares. */
    final FileBatches.Rules rules;
    final Map<String, Long> redactions = new TreeMap<>();
    final List<IndexProblem> problems = new ArrayList<>();
    int filesSeen;
    int filesIndexed;
    int filesUnchanged;
    int filesFailed;
    int filesIgnored;
    int filesSkippedByRequest;
    int filesResumed;
    long bytesRead;
    long recordsSkipped;
    AddResult stored = AddResult.NONE;
    /** Earlier versions of exchanges still being written, deleted because a read gave them anew. */
    long memoriesReplaced;
    /** Memories deleted at their log's request ({@code funes:ignore}). */
    long memoriesForgotten;
    /** Memories of changed files kept, marked {@link SourceState#CHANGED_KEY}. */
    long earlierMemoriesKept;
    /** Files that no longer give what was read from them, in the order they were settled. */
    final List<Path> changedFiles = new ArrayList<>();
    /** The caller's listener, with every problem also listed for the report. */
    final IndexListener out;
    /** The store writes of this call. */
    WriteQueue writes;
    /** Files read whose writes may not be done yet, in the order they were read. */
    final Deque<FileJob> pending = new ArrayDeque<>();
    /** Batches of memories queued so far. */
    int batches;

    IndexRun(MemoryRedactor redactor, FileBatches.Rules rules, IndexListener listener) {
        this.redactor = redactor;
        this.rules = rules;
        this.out = new IndexListener() {
            @Override
            public void fileStarted(Path file, int number, int total) {
                listener.fileStarted(file, number, total);
            }

            @Override
            public void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
                listener.fileFinished(file, outcome, memories, stored);
            }

            @Override
            public void earlierMemories(Path file, int removed, int kept) {
                listener.earlierMemories(file, removed, kept);
            }

            @Override
            public void problem(IndexProblem problem) {
                problems.add(problem);
                listener.problem(problem);
            }
        };
    }

    /** What the call did, so far. */
    IndexReport report() {
        return new IndexReport(filesSeen, filesIndexed, filesUnchanged, filesFailed,
                filesIgnored, stored.added(), stored.unchanged(), stored.embedded(),
                recordsSkipped, redactions, problems, Duration.ofNanos(System.nanoTime() - startNanos),
                filesSkippedByRequest, filesResumed, bytesRead, memoriesReplaced,
                memoriesForgotten, earlierMemoriesKept, changedFiles);
    }

    /**
     * The size at which the pending batch goes: {@value Indexer#FIRST_BATCH} memories for the
     * run's first batch, twice as many for each next one, up to {@code batchSize}. The store
     * embeds nothing until the first batch arrives: a small one starts it after a few
     * memories rather than after reading a whole file, and with each batch twice the size of
     * the one before, reading stays ahead of embedding.
     */
    int batchLimit() {
        int batchSize = rules.batchSize();
        return batches >= 16 ? batchSize : (int) Math.min(batchSize, (long) Indexer.FIRST_BATCH << batches);
    }

    /** Redacts the problem and tells it to {@code listener} ({@link #out}, or a file's {@link FileJob#events}). */
    void problem(IndexListener listener, IndexProblem problem) {
        listener.problem(redactor.redact(problem, redactions));
    }

    // ---- what became of a file ---------------------------------------------------------------

    /** Counts and tells a file read and stored, once its writes are done. */
    void indexed(IndexListener events, Path file, FileBatches batches) {
        filesIndexed++;
        bytesRead += batches.plan().bytesRead;
        if (batches.token() != null) {
            filesResumed++;
        }
        stored = stored.plus(batches.stored);
        revised(events, file, batches);
        events.fileFinished(file, IndexListener.FileOutcome.INDEXED, batches.memories, batches.stored);
    }

    /** Counts and tells a file that failed with {@code problem}, and what its writes stored before. */
    void failed(IndexListener events, Path file, IndexProblem problem, AddResult stored, int memories) {
        problem(events, problem);
        filesFailed++;
        this.stored = this.stored.plus(stored);
        events.fileFinished(file, IndexListener.FileOutcome.FAILED, memories, stored);
    }

    /** Counts and tells a file whose read did not reach its end (its problems were told), once its writes are done. */
    void incomplete(IndexListener events, Path file, FileBatches batches) {
        filesFailed++;
        stored = stored.plus(batches.stored);
        events.fileFinished(file, IndexListener.FileOutcome.FAILED, batches.memories, batches.stored);
    }

    /** Counts and tells a file its checkpoint covers as it is. */
    void unchanged(IndexListener events, Path file) {
        filesUnchanged++;
        events.fileFinished(file, IndexListener.FileOutcome.UNCHANGED, 0, AddResult.NONE);
    }

    /** Counts and tells a file skipped at its author's request, and the memories of it deleted. */
    void skippedByRequest(IndexListener events, Path file, int forgotten) {
        filesSkippedByRequest++;
        forgotten(events, file, forgotten);
        events.fileFinished(file, IndexListener.FileOutcome.SKIPPED_BY_REQUEST, 0, AddResult.NONE);
    }

    /** Counts and tells what the writes of a file read did to what was stored from it before. */
    void revised(IndexListener events, Path file, FileBatches batches) {
        if (batches == null || batches.removed == 0 && batches.kept == 0) {
            return;
        }
        memoriesReplaced += batches.removed;
        if (batches.kept > 0) {
            earlierMemoriesKept += batches.kept;
            changedFiles.add(file);
        }
        events.earlierMemories(file, batches.removed, batches.kept);
    }

    /** Counts and tells the memories deleted at a log's request. */
    private void forgotten(IndexListener events, Path file, int deleted) {
        if (deleted > 0) {
            memoriesForgotten += deleted;
            events.earlierMemories(file, deleted, 0);
        }
    }

    // ---- writes ------------------------------------------------------------------------------

    /** Whether a store failure ends the whole run rather than failing its file (see the {@link Indexer} contract). */
    static boolean endsRun(Throwable failure) {
        return !(failure instanceof FunesException) || failure instanceof StoreBusyException;
    }

    /**
     * Tells what became of the files whose writes are done, in the order they were read; with
     * {@code wait}, waits for all of them.
     *
     * @throws RuntimeException the store failure that ended the run (see the {@link Indexer} contract)
     */
    void settle(boolean wait) {
        while (!pending.isEmpty()) {
            FileJob job = pending.peekFirst();
            if (!wait && !job.writes.done()) {
                return;
            }
            awaitWrites(job);
            pending.removeFirst();
            Throwable failure = job.writes.failure();
            if (failure == null) {
                job.outcome.run();
            } else if (!endsRun(failure)) {
                FileBatches batches = job.batches;
                // Deletions committed before the failure are told too: every memory removed is.
                revised(job.events, job.file, batches);
                failed(job.events, job.file, new IndexProblem(job.file, 0, "could not be stored: "
                        + failure.getMessage()), batches.stored, batches.memories);
            }
            job.replay(out);
            if (failure != null && endsRun(failure)) {
                if (failure instanceof RuntimeException e) {
                    throw e;
                }
                if (failure instanceof Error e) {
                    throw e;
                }
                throw new IllegalStateException(failure);
            }
        }
    }

    /** Waits until the writes of {@code job} are done, after those of the files before it. */
    static void awaitWrites(FileJob job) {
        try {
            job.writes.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while indexing; what was stored stays stored", e);
        }
    }
}
