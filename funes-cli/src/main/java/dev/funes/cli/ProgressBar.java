package dev.funes.cli;

import dev.funes.ingest.IndexListener;
import dev.funes.ingest.IndexProblem;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.function.LongSupplier;

/**
 * Reports indexing progress on stderr, as the indexer reads (a big log moves it too): bytes read
 * of all the files and of the current one, memories read and their rate, and the time left at the
 * rate so far. On a terminal, one line redrawn at most {@value #REDRAW_MILLIS} ms apart;
 * otherwise a plain line now and then (when another tenth of the bytes is read, at least
 * {@value #LINE_SECONDS} s after the last line, so a short run prints none). Problems are always
 * printed, each as {@code file:line: reason}, up to a limit, then counted.
 */
final class ProgressBar implements IndexListener, AutoCloseable {

    private static final int MAX_PROBLEMS_SHOWN = 50;
    private static final int WIDTH = 20;
    static final long REDRAW_MILLIS = 100;
    static final long LINE_SECONDS = 5;

    private final PrintWriter err;
    private final boolean terminal;
    private final LongSupplier nanoTime;
    private final long start;
    private long lastShown;
    private int lastTenth;
    private int problems;
    private boolean drawn;

    ProgressBar(PrintWriter err, boolean terminal, LongSupplier nanoTime) {
        this.err = err;
        this.terminal = terminal;
        this.nanoTime = nanoTime;
        this.start = nanoTime.getAsLong();
        this.lastShown = start;
    }

    /** A redrawn line when stderr is a terminal, occasional plain lines otherwise. */
    static ProgressBar forTerminal(PrintWriter err) {
        return new ProgressBar(err, System.console() != null && System.getenv("TERM") != null
                && !"dumb".equals(System.getenv("TERM")), System::nanoTime);
    }

    @Override
    public void progress(Progress p) {
        long now = nanoTime.getAsLong();
        long size = Math.max(p.size(), 1);
        long position = Math.min(p.position(), size);
        int tenth = (int) (position * 10 / size);
        if (terminal) {
            if (now - lastShown < REDRAW_MILLIS * 1_000_000L && position < size) {
                return;
            }
            int filled = (int) (position * WIDTH / size);
            err.print("\r\033[K[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + describe(p, now, "/", " · "));
            err.flush();
            drawn = true;
        } else {
            if (tenth <= lastTenth || now - lastShown < LINE_SECONDS * 1_000_000_000L) {
                return;
            }
            err.println("indexing: " + describe(p, now, " of ", ", "));
            err.flush();
        }
        lastTenth = tenth;
        lastShown = now;
    }

    /**
     * {@code 45% of 456.7 MiB, big.jsonl 12.3 MiB of 100.0 MiB, 1234 memories (56/s), 1m05s left}, with
     * {@code of} and the commas as given.
     */
    private String describe(Progress p, long now, String of, String then) {
        long size = Math.max(p.size(), 1);
        long position = Math.min(p.position(), size);
        double seconds = (now - start) / 1e9;
        StringBuilder line = new StringBuilder();
        line.append(position * 100 / size).append("% of ").append(bytes(p.size()));
        line.append(then).append(name(p)).append(' ').append(bytes(Math.min(p.filePosition(), p.fileSize())))
                .append(of).append(bytes(p.fileSize()));
        line.append(then).append(p.memories()).append(" memories");
        if (seconds >= 1) {
            line.append(" (").append(Math.round(p.memories() / seconds)).append("/s)");
            if (position > 0 && position < size) {
                line.append(then).append(duration(Duration.ofSeconds(Math.round((size - position) * seconds / position))))
                        .append(" left");
            }
        }
        return line.toString();
    }

    private static String name(Progress p) {
        String name = p.file().getFileName().toString();
        return name.length() > 30 ? "…" + name.substring(name.length() - 29) : name;
    }

    /** Bytes in KiB under a MiB, else MiB, one decimal. */
    static String bytes(long n) {
        return n < (1 << 20) ? String.format(Locale.ROOT, "%.1f KiB", n / 1024.0)
                : String.format(Locale.ROOT, "%.1f MiB", n / (double) (1 << 20));
    }

    /** {@code 42s}, {@code 3m05s}, {@code 2h07m}. */
    static String duration(Duration d) {
        long s = d.toSeconds();
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
    }

    @Override
    public void problem(IndexProblem problem) {
        problems++;
        if (problems <= MAX_PROBLEMS_SHOWN) {
            clearLine();
            err.println("warning: " + problem);
        } else if (problems == MAX_PROBLEMS_SHOWN + 1) {
            clearLine();
            err.println("warning: more problems follow; only their count is shown in the summary");
        }
    }

    private void clearLine() {
        if (drawn) {
            err.print("\r\033[K");
            drawn = false;
        }
    }

    @Override
    public void close() {
        clearLine();
        err.flush();
    }
}
