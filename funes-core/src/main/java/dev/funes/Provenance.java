package dev.funes;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where a memory came from: the exact records of one log file.
 *
 * <p>{@code sed -n "${lineStart},${lineEnd}p" source} prints exactly the records the memory was
 * built from. Lines are 1-based and inclusive; bytes are a 0-based half-open range
 * {@code [byteStart, byteEnd)} of the same file, so the records can also be read with a seek.
 *
 * @param source    absolute, normalized path of the log file
 * @param lineStart first line, 1-based
 * @param lineEnd   last line, inclusive, {@code >= lineStart}
 * @param byteStart offset of the first byte of {@code lineStart}
 * @param byteEnd   offset just past the last byte of {@code lineEnd} (including its newline, if any)
 * @param recordIds ids of the log records inside the range (for example Claude Code {@code uuid}s),
 *                  in file order; may be empty when the format has none
 */
public record Provenance(Path source, int lineStart, int lineEnd, long byteStart, long byteEnd,
                         List<String> recordIds) {

    /** Validates the ranges and normalizes the path; copies the record ids. */
    public Provenance {
        Objects.requireNonNull(source, "source");
        source = source.toAbsolutePath().normalize();
        if (lineStart < 1) {
            throw new IllegalArgumentException("lineStart must be >= 1, was " + lineStart);
        }
        if (lineEnd < lineStart) {
            throw new IllegalArgumentException("lineEnd " + lineEnd + " < lineStart " + lineStart);
        }
        if (byteStart < 0 || byteEnd < byteStart) {
            throw new IllegalArgumentException("bad byte range [" + byteStart + ", " + byteEnd + ")");
        }
        recordIds = recordIds == null ? List.of() : List.copyOf(recordIds);
    }

    /** Number of lines cited, {@code lineEnd - lineStart + 1}. */
    public int lineCount() {
        return lineEnd - lineStart + 1;
    }

    /** {@code path:start-end}, the form used in human-readable output. */
    @Override
    public String toString() {
        return source + ":" + lineStart + (lineEnd == lineStart ? "" : "-" + lineEnd);
    }
}
