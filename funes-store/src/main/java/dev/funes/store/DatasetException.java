package dev.funes.store;

import dev.funes.FunesException;

import java.nio.file.Path;

/**
 * A dataset folder cannot be read: a shard whose checksum does not match its manifest (changed
 * after export), a malformed record, a missing or unlisted shard, a format written by a newer
 * Funes. The message names the file and, for a bad record, the line; nothing was imported.
 */
public final class DatasetException extends FunesException {

    private static final long serialVersionUID = 1L;

    /** The file at fault; not serialized. */
    private final transient Path file;
    private final long line;

    /**
     * An error about one file, or one line of it.
     *
     * @param file    the file at fault
     * @param line    the 1-based line (of the decompressed shard), or 0 for the file as a whole
     * @param message what is wrong
     * @param cause   the underlying error, or {@code null}
     */
    public DatasetException(Path file, long line, String message, Throwable cause) {
        super(file + (line > 0 ? ":" + line : "") + ": " + message, cause);
        this.file = file;
        this.line = line;
    }

    /** The file at fault. */
    public Path file() {
        return file;
    }

    /** The 1-based line of the decompressed shard at fault, or 0 when the file as a whole is. */
    public long line() {
        return line;
    }
}
