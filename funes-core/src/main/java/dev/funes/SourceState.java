package dev.funes;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Objects;

/**
 * How far a log file has been indexed: the checkpoint an indexer stores together with the
 * memories it read from the file, so a later run can skip an unchanged file, read only what was
 * appended, or notice that the file was truncated or replaced.
 *
 * @param path            absolute, normalized path of the log file
 * @param size            file size in bytes when it was read
 * @param lastModified    the file's modification time when it was read
 * @param indexedBytes    bytes read up to the end of the last complete record ({@code <= size})
 * @param indexedLines    lines read up to the same point
 * @param headFingerprint a hash of the file's first bytes, to recognise a replaced file
 * @param format          the name of the log format that read it, for example {@code claude-code}
 * @param indexedAt       when it was read
 * @param resume          what the indexer needs to read on from where it stopped when the file
 *                        grows (an opaque, versioned text it writes and reads back; the store
 *                        keeps it as it is); empty when the next read must start at the beginning
 */
public record SourceState(Path path, long size, Instant lastModified, long indexedBytes, long indexedLines,
                          String headFingerprint, String format, Instant indexedAt, String resume) {

    /**
     * The metadata key of a memory whose log no longer holds what it was read from: the file was
     * rotated, truncated or rewritten since (a new generation of the log at the same path). The
     * memory stays, and its {@link Provenance} cites the file as it was; the value is the time
     * (ISO-8601, UTC) of the read that found the file changed ({@link #indexedAt()} of its
     * checkpoint). Set by {@link SourceCheckpoints#updateSource}; a later read that gives the memory
     * again stores it without the key.
     */
    public static final String CHANGED_KEY = "sourceChanged";

    /** Validates the fields and normalizes the path. */
    public SourceState {
        Objects.requireNonNull(path, "path");
        path = path.toAbsolutePath().normalize();
        Objects.requireNonNull(lastModified, "lastModified");
        Objects.requireNonNull(format, "format");
        Objects.requireNonNull(indexedAt, "indexedAt");
        if (indexedBytes < 0 || indexedBytes > size) {
            throw new IllegalArgumentException("indexedBytes " + indexedBytes + " outside [0, " + size + "]");
        }
        if (indexedLines < 0) {
            throw new IllegalArgumentException("indexedLines is negative: " + indexedLines);
        }
        headFingerprint = headFingerprint == null ? "" : headFingerprint;
        resume = resume == null ? "" : resume;
    }

    /** A checkpoint with no resume point: the next read of the grown file starts at its beginning. */
    public SourceState(Path path, long size, Instant lastModified, long indexedBytes, long indexedLines,
                       String headFingerprint, String format, Instant indexedAt) {
        this(path, size, lastModified, indexedBytes, indexedLines, headFingerprint, format, indexedAt, "");
    }
}
