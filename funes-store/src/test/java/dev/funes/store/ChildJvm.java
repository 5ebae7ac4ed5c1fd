package dev.funes.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM running a main class of the test classpath: a real second process, for tests of
 * locks and crashes. Its stdout is read line by line on a named thread; its stderr goes to a file
 * that failures quote.
 */
final class ChildJvm implements AutoCloseable {

    /** Put in the queue when stdout ends. */
    private static final String END = "\u0000end";

    private final Process process;
    private final Path stderr;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Thread reader;
    private boolean ended;

    private ChildJvm(Process process, Path stderr) {
        this.process = process;
        this.stderr = stderr;
        this.reader = new Thread(this::readStdout, "child-" + process.pid() + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code main} with {@code args}; the child's stderr goes to {@code stderr}. Its
     * temporary folder is a new one beside that file (in the test's own temporary folder): what
     * the native libraries' loaders extract there (ONNX Runtime's 23 MB, SQLite's) is left behind
     * by a child killed before its exit hooks run, and goes away with the test's folder.
     */
    static ChildJvm start(Class<?> main, Path stderr, String... args) throws IOException {
        Path tmp = Files.createTempDirectory(stderr.toAbsolutePath().getParent(), "child-tmp-");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.io.tmpdir=" + tmp,
                "-cp", System.getProperty("java.class.path"),
                main.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                .start();
        return new ChildJvm(process, stderr);
    }

    private void readStdout() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("READ FAILED " + e);
        } finally {
            lines.add(END);
        }
    }

    long pid() {
        return process.pid();
    }

    Process process() {
        return process;
    }

    /**
     * The next stdout line; fails when the child ends first or nothing comes within {@code patience}
     * (a guard against a hung child, not a timing assertion).
     */
    String next(Duration patience) throws InterruptedException {
        String line = ended ? null : lines.poll(patience.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null || line.equals(END)) {
            ended = ended || line != null;
            throw new AssertionError("the child " + pid() + " " + (line == null ? "said nothing for " + patience
                    : "ended (exit " + exitCode() + ")") + "; its stderr:\n" + stderrText());
        }
        return line;
    }

    /** Skips lines until one starts with {@code prefix}; returns it. */
    String await(String prefix, Duration patience) throws InterruptedException {
        for (String line = next(patience); ; line = next(patience)) {
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /** The next line if one is there now, without waiting; null at the end or when none is waiting. */
    String poll() {
        if (ended) {
            return null;
        }
        String line = lines.poll();
        if (END.equals(line)) {
            ended = true;
            return null;
        }
        return line;
    }

    /** Every line the child printed that was not read yet; waits for its stdout to end. */
    List<String> rest() throws InterruptedException {
        List<String> rest = new ArrayList<>();
        while (!ended) {
            String line = lines.poll(2, TimeUnit.MINUTES);
            if (line == null) {
                throw new AssertionError("the stdout of child " + pid() + " did not end");
            }
            if (line.equals(END)) {
                ended = true;
            } else {
                rest.add(line);
            }
        }
        return rest;
    }

    /** Writes a line to the child's stdin. */
    void send(String line) throws IOException {
        Writer w = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        w.write(line + "\n");
        w.flush();
    }

    /** SIGKILL on Linux: no shutdown hook, no finally block runs in the child. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    /** Waits for the child to exit; returns its status. */
    int waitFor(Duration patience) throws InterruptedException {
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("the child " + pid() + " did not exit; its stderr:\n" + stderrText());
        }
        return process.exitValue();
    }

    private String exitCode() {
        try {
            return process.waitFor(5, TimeUnit.SECONDS) ? String.valueOf(process.exitValue()) : "still running";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    String stderrText() {
        try {
            String text = Files.readString(stderr);
            return text.length() > 8000 ? "..." + text.substring(text.length() - 8000) : text;
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
