package dev.funes.ingest;

import dev.funes.AddResult;

import java.nio.file.Path;

/**
 * Hears the progress of {@link Indexer#index}, for example to draw a progress bar. All methods
 * default to doing nothing; they are called on the indexing thread, in order, each file's events
 * together ({@link #fileStarted}, its problems, {@link #fileFinished}). A file is told finished
 * once its memories are stored, which may be after the next file began to be read; only
 * {@link #progress} is told at once, while a file is read. A listener that throws ends the
 * indexing with its exception.
 */
public interface IndexListener {

    /** A listener that does nothing. */
    IndexListener NONE = new IndexListener() {
    };

    /** What became of one file. */
    enum FileOutcome {
        /** Read and stored (possibly with problems, possibly yielding no memory). */
        INDEXED,
        /** Same size, time and checkpoint as when it was last indexed: not read again. */
        UNCHANGED,
        /** Could not be read or stored; it will be tried again next time. */
        FAILED,
        /** No log format recognised it. */
        IGNORED,
        /**
         * A request typed in it says {@code funes:ignore}: not indexed at its author's request, and what was
         * stored from it before is deleted. Not a problem.
         */
        SKIPPED_BY_REQUEST
    }

    /** All roots were walked; {@code total} files will be looked at. */
    default void filesFound(int total) {
    }

    /** File number {@code number} (1-based) of {@code total} is being looked at. */
    default void fileStarted(Path file, int number, int total) {
    }

    /**
     * A file is done; follows every {@link #fileStarted}.
     *
     * @param memories memories read from the file (0 unless indexed)
     * @param stored   what the store did with them
     */
    default void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
    }

    /**
     * What reading {@code file} did to the memories stored from it before, when it did anything;
     * told before the file's {@link #fileFinished}.
     *
     * @param removed memories deleted: earlier versions of an exchange that was still being written,
     *                which this read gave anew, or, for a file skipped by request, every memory
     *                stored from it
     * @param kept    memories the file no longer gives (it was rotated, truncated or rewritten since
     *                they were read): kept, marked {@link dev.funes.SourceState#CHANGED_KEY}
     */
    default void earlierMemories(Path file, int removed, int kept) {
    }

    /** A problem was met; it is also listed in the {@link IndexReport}. */
    default void problem(IndexProblem problem) {
    }

    /**
     * How far the call got, told at once rather than with the file's other events: while a log
     * read line by line (the JSON Lines formats and Aider's) is read, about every 256 KiB, and
     * when each file was looked at.
     */
    default void progress(Progress progress) {
    }

    /**
     * How far an {@link Indexer#index} call got.
     *
     * @param file         the file being read or just looked at
     * @param filePosition bytes of it read so far (from its start, also when a read resumes further on)
     * @param fileSize     its size when it was found
     * @param position     bytes of all the files looked at so far, {@code filePosition} included; a file
     *                     not read (unchanged, ignored, failed) counts whole once looked at
     * @param size         bytes of all the files found
     * @param memories     memories the files read so far gave, before they are stored
     */
    record Progress(Path file, long filePosition, long fileSize, long position, long size, long memories) {
    }
}
