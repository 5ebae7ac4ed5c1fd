package dev.funes.ingest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Reads a stream as lines of bytes, keeping each line's 1-based number and byte range, without
 * ever holding more than one line (up to a limit) in memory.
 *
 * <p>A line ends after {@code '\n'}; its content excludes the newline. The last line of a stream
 * that does not end with a newline is returned with {@link #terminated()} false, so a caller can
 * tell a record still being written from a complete one. A line longer than the limit is read to
 * its end but not kept: {@link #oversize()} is true and only its length is known.
 */
final class LineReader {

    private final InputStream in;
    private final int maxLineBytes;
    private final byte[] chunk = new byte[1 << 16];
    private int chunkPos;
    private int chunkLen;
    private byte[] line = new byte[1 << 13];
    private int lineLen;
    private long offset;
    private int lines;
    private final CRC32C crc = new CRC32C();

    private int number;
    private long start;
    private long end;
    private long length;
    private boolean terminated;
    private boolean oversize;

    LineReader(InputStream in, int maxLineBytes) {
        this(in, maxLineBytes, 0, 0);
    }

    /**
     * A reader of a stream that starts at byte {@code offset} of its file, after {@code lines}
     * lines: numbers and offsets go on from there.
     */
    LineReader(InputStream in, int maxLineBytes, long offset, int lines) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
        this.offset = offset;
        this.lines = lines;
    }

    /**
     * Reads a whole file, handing each line to {@code perLine}. A file that cannot be opened or
     * read is reported to {@code problems} (with the line that failed), never thrown.
     *
     * @return whether the file was read to its end
     */
    static boolean readFile(Path file, int maxLineBytes, Problems problems, Consumer<LineReader> perLine) {
        return readFile(file, 0, 1, maxLineBytes, problems, perLine);
    }

    /**
     * Like {@link #readFile(Path, int, Problems, Consumer)}, from byte {@code offset}, which must
     * be the start of line {@code line} (1-based).
     */
    static boolean readFile(Path file, long offset, int line, int maxLineBytes, Problems problems,
                            Consumer<LineReader> perLine) {
        return readFile(file, offset, line, maxLineBytes, problems, () -> false, perLine);
    }

    /**
     * Like {@link #readFile(Path, long, int, int, Problems, Consumer)}, ending early (false) once
     * {@code stopped} says so after a line: the sink of what is read wants no more.
     */
    static boolean readFile(Path file, long offset, int line, int maxLineBytes, Problems problems,
                            BooleanSupplier stopped, Consumer<LineReader> perLine) {
        LineReader lines = null;
        try (SeekableByteChannel channel = Files.newByteChannel(file); InputStream in = Channels.newInputStream(channel)) {
            channel.position(offset);
            lines = new LineReader(in, maxLineBytes, offset, line - 1);
            while (lines.next()) {
                perLine.accept(lines);
                if (stopped.getAsBoolean()) {
                    return false;
                }
            }
            return true;
        } catch (NoSuchFileException e) {
            problems.add(0, "file not found");
        } catch (AccessDeniedException e) {
            problems.add(0, "permission denied");
        } catch (IOException e) {
            problems.add(lines == null ? 0 : lines.number() + 1L, "read failed: " + e.getMessage());
        }
        return false;
    }

    /** Advances to the next line; false at the end of the stream. */
    boolean next() throws IOException {
        lineLen = 0;
        length = 0;
        oversize = false;
        start = offset;
        crc.reset();
        boolean any = false;
        while (true) {
            if (chunkPos == chunkLen) {
                int n = in.read(chunk);
                chunkPos = 0;
                chunkLen = Math.max(n, 0);
                if (n <= 0) {
                    if (!any) {
                        return false;
                    }
                    terminated = false;
                    end = offset;
                    number = ++lines;
                    return true;
                }
            }
            any = true;
            int newline = indexOf(chunk, chunkPos, chunkLen);
            int stop = newline < 0 ? chunkLen : newline + 1;
            append(chunkPos, newline < 0 ? stop : newline);
            crc.update(chunk, chunkPos, (newline < 0 ? stop : newline) - chunkPos);
            offset += stop - chunkPos;
            chunkPos = stop;
            if (newline >= 0) {
                terminated = true;
                end = offset;
                number = ++lines;
                return true;
            }
        }
    }

    private void append(int from, int to) {
        int n = to - from;
        length += n;
        if (oversize) {
            return;
        }
        if (lineLen + n > maxLineBytes) {
            oversize = true;
            lineLen = 0;
            return;
        }
        if (lineLen + n > line.length) {
            line = Arrays.copyOf(line, Math.min(maxLineBytes, Math.max(line.length * 2, lineLen + n)));
        }
        System.arraycopy(chunk, from, line, lineLen, n);
        lineLen += n;
    }

    private static int indexOf(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    /** 1-based number of the current line. */
    int number() {
        return number;
    }

    /** Offset of the current line's first byte. */
    long start() {
        return start;
    }

    /** Offset just past the current line, newline included. */
    long end() {
        return end;
    }

    /** Bytes of content of the current line, newline excluded, even when it was not kept. */
    long length() {
        return length;
    }

    /** CRC32C of the current line's content, newline excluded, even when the content was not kept. */
    int crc() {
        return (int) crc.getValue();
    }

    /** Whether the current line ended with a newline. */
    boolean terminated() {
        return terminated;
    }

    /** Whether the current line was longer than the limit; its content is then not available. */
    boolean oversize() {
        return oversize;
    }

    /** The buffer holding the current line's content, valid until the next call to {@link #next()}. */
    byte[] bytes() {
        return line;
    }

    /** Number of content bytes in {@link #bytes()}. */
    int size() {
        return lineLen;
    }
}
