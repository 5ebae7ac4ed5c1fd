package dev.funes.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Splits a byte stream into newline-ended lines of at most a given size, never holding more: the
 * rest of a longer line is read and dropped, and the line is reported as too long. A last line
 * without a newline still counts. A {@code \r} before the newline is not part of the line.
 */
final class McpLineReader {

    private final InputStream in;
    private final int max;
    private final byte[] chunk = new byte[8192];
    private int pos;
    private int limit;

    private byte[] line = new byte[1024];
    private int length;
    private boolean tooLong;
    private long number;

    McpLineReader(InputStream in, int max) {
        this.in = in;
        this.max = max;
    }

    /** Reads the next line; {@code false} at the end of the stream. */
    boolean next() throws IOException {
        length = 0;
        tooLong = false;
        boolean started = false;
        while (true) {
            if (pos == limit) {
                int n = in.read(chunk);
                if (n < 0) {
                    return started && ended();
                }
                pos = 0;
                limit = n;
                continue;
            }
            started = true;
            int newline = pos;
            while (newline < limit && chunk[newline] != '\n') {
                newline++;
            }
            append(pos, newline - pos);
            if (newline < limit) {
                pos = newline + 1;
                return ended();
            }
            pos = limit;
        }
    }

    private boolean ended() {
        number++;
        if (!tooLong && length > 0 && line[length - 1] == '\r') {
            length--;
        }
        return true;
    }

    private void append(int from, int n) {
        if (tooLong || n == 0) {
            return;
        }
        // One byte of slack for a \r that ends the line and is then dropped.
        if ((long) length + n > max + 1L) {
            tooLong = true;
            length = 0;
            return;
        }
        if (length + n > line.length) {
            line = Arrays.copyOf(line, Math.max(length + n, Math.min(max + 1, line.length * 2)));
        }
        System.arraycopy(chunk, from, line, length, n);
        length += n;
    }

    /** The line's bytes: valid up to {@link #length()}; empty when {@link #tooLong()}. */
    byte[] bytes() {
        return line;
    }

    int length() {
        return length;
    }

    /** Whether the line had more than the maximum; its bytes were not kept. */
    boolean tooLong() {
        return tooLong || length > max;
    }

    /** The 1-based number of the line last read. */
    long number() {
        return number;
    }

    /** Whether the line holds nothing but spaces and tabs. */
    boolean blank() {
        if (tooLong) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
                return false;
            }
        }
        return true;
    }
}
