package dev.funes.ingest;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Something in a log that could not be read as expected: a malformed line, invalid UTF-8, an
 * unknown record type, a missing file. Problems never stop indexing; what could be read is indexed.
 *
 * @param file    absolute, normalized path of the file (or root) concerned
 * @param line    1-based line the problem is about, or 0 when it is not about one line
 * @param message what is wrong, for a person
 */
public record IndexProblem(Path file, long line, String message) {

    /** Validates the fields and normalizes the path. */
    public IndexProblem {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(message, "message");
        file = file.toAbsolutePath().normalize();
        if (line < 0) {
            throw new IllegalArgumentException("line must be >= 0, was " + line);
        }
    }

    /** {@code file:line: message}, or {@code file: message} when the problem is not about one line. */
    @Override
    public String toString() {
        return file + (line > 0 ? ":" + line : "") + ": " + message;
    }
}
