package dev.funes.cli;

import dev.funes.AddResult;
import dev.funes.ingest.IndexListener;
import dev.funes.ingest.IndexProblem;
import java.io.PrintWriter;
import java.nio.file.Path;

/**
 * Reports indexing progress on stderr: a redrawn one-line bar on a terminal, nothing but the
 * problems otherwise (the command prints a summary at the end). Problems are always printed, each
 * as {@code file:line: reason}, up to a limit, then counted.
 */
final class ProgressBar implements IndexListener, AutoCloseable {

    private static final int MAX_PROBLEMS_SHOWN = 50;
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final boolean terminal;
    private int problems;
    private long memories;
    private boolean drawn;

    private ProgressBar(PrintWriter err, boolean terminal) {
        this.err = err;
        this.terminal = terminal;
    }

    /** A bar when stderr is a terminal, plain problem lines otherwise. */
    static ProgressBar forTerminal(PrintWriter err) {
        return new ProgressBar(err, System.console() != null && System.getenv("TERM") != null
                && !"dumb".equals(System.getenv("TERM")));
    }

    @Override
    public void fileStarted(Path file, int number, int total) {
        if (!terminal) {
            return;
        }
        int filled = total == 0 ? WIDTH : (int) ((long) (number - 1) * WIDTH / total);
        String name = file.getFileName().toString();
        if (name.length() > 40) {
            name = "…" + name.substring(name.length() - 39);
        }
        err.printf("\r\033[K[%s%s] %d/%d files, %d memories  %s", "#".repeat(filled), ".".repeat(WIDTH - filled),
                number, total, memories, name);
        err.flush();
        drawn = true;
    }

    @Override
    public void fileFinished(Path file, FileOutcome outcome, int count, AddResult stored) {
        memories += count;
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
