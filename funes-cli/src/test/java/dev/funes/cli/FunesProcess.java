package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * {@code funes} as a real separate JVM on this module's test classpath: {@code java -cp ...
 * dev.funes.cli.Main ARGS}. Stdout and stderr are read line by line on their own threads and kept,
 * so a test can wait for a line and quote everything when it fails.
 */
final class FunesProcess implements AutoCloseable {

    /** Put in a queue when its stream ends. */
    private static final String END = "\u0000end";

    private final List<String> command;
    private final Process process;
    private final BlockingQueue<String> outLines = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> errLines = new LinkedBlockingQueue<>();
    private final StringBuffer out = new StringBuffer();
    private final StringBuffer err = new StringBuffer();
    private final Writer stdin;
    /** Counted down by each pump when its stream ended and all it read is in {@link #out} or {@link #err}. */
    private final CountDownLatch pumped = new CountDownLatch(2);
    private boolean outEnded;
    private boolean errEnded;

    private volatile long peakRssKb = -1;

    private FunesProcess(List<String> command) throws IOException {
        this(command, java.util.Map.of());
    }

    private FunesProcess(List<String> command, java.util.Map<String, String> env) throws IOException {
        this.command = command;
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(env);
        this.process = builder.start();
        sampleRss();
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        pump(process.getInputStream(), outLines, out, "out");
        pump(process.getErrorStream(), errLines, err, "err");
    }

    /** Starts {@code funes ARGS} with the given maximum heap (e.g. {@code "384m"}). */
    static FunesProcess start(String maxHeap, String... args) throws IOException {
        return startMain(Main.class, maxHeap, args);
    }

    /** Starts {@code funes ARGS} with these environment variables added to this JVM's. */
    static FunesProcess start(java.util.Map<String, String> env, String maxHeap, String... args) throws IOException {
        return new FunesProcess(command(Main.class, maxHeap, args), env);
    }

    /** Starts {@code main} of the test classpath with {@code args} and the given maximum heap. */
    static FunesProcess startMain(Class<?> main, String maxHeap, String... args) throws IOException {
        return new FunesProcess(command(main, maxHeap, args));
    }

    /**
     * The command that runs {@code main} of the test classpath: {@code java ...}, started through
     * {@code env --default-signal=INT} where the system's {@code env} has that option (GNU
     * coreutils 8.31 and later). A build started in the background of a non-interactive shell
     * ({@code mvn verify &}, as scripts and concurrent builds do) inherits SIGINT as ignored, and
     * so does every process it starts; a JVM that starts with SIGINT ignored installs no handler
     * for it, so {@code kill -INT} (Ctrl-C) would do nothing and a test waiting for
     * {@code funes watch} to stop would wait out its patience. {@code env} execs the JVM, so the
     * process's pid is the JVM's.
     */
    static List<String> command(Class<?> main, String maxHeap, String... args) {
        List<String> command = new ArrayList<>();
        if (DEFAULT_INTERRUPT) {
            command.addAll(List.of("env", "--default-signal=INT"));
        }
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + maxHeap, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + CHILD_TMP, "-cp", testClasspath(), main.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /**
     * The children's temporary folder, in this module's build folder: what the native libraries'
     * loaders extract there (ONNX Runtime's 23 MB, SQLite's) stays behind when {@link #close}
     * kills a child, and would pile up in the system's temporary folder run after run. What an
     * earlier test run left there (older than this JVM) is deleted first.
     */
    static final Path CHILD_TMP = childTmp();

    private static Path childTmp() {
        Path dir = Path.of("target", "child-tmp").toAbsolutePath();
        long started = java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
        try {
            Files.createDirectories(dir);
            try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
                for (Path entry : entries.toList()) {
                    if (Files.getLastModifiedTime(entry).toMillis() < started) {
                        try (java.util.stream.Stream<Path> tree = Files.walk(entry)) {
                            for (Path p : tree.sorted(java.util.Comparator.reverseOrder()).toList()) {
                                Files.deleteIfExists(p);
                            }
                        }
                    }
                }
            }
            return dir;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot make the child JVMs' temporary folder " + dir, e);
        }
    }

    /** Whether {@code env --default-signal=INT} works here. */
    static final boolean DEFAULT_INTERRUPT = envRestoresSignals();

    private static boolean envRestoresSignals() {
        try {
            Process p = new ProcessBuilder("env", "--default-signal=INT", "true")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts exactly {@code command} (e.g. the packaged jar's {@code java -cp ...}). */
    static FunesProcess startCommand(List<String> command) throws IOException {
        return new FunesProcess(List.copyOf(command));
    }

    /** Starts exactly {@code command} with these environment variables added to this JVM's. */
    static FunesProcess startCommand(List<String> command, java.util.Map<String, String> env) throws IOException {
        return new FunesProcess(List.copyOf(command), env);
    }

    /** Runs {@code funes ARGS} to its end (at most {@code patience}) with stdin closed. */
    static FunesProcess run(Duration patience, String maxHeap, String... args) throws IOException, InterruptedException {
        FunesProcess p = start(maxHeap, args);
        p.closeStdin();
        p.waitFor(patience);
        return p;
    }

    /** This module's classes and dependencies, as surefire gives them to the test JVM. */
    static String testClasspath() {
        String classpath = System.getProperty("java.class.path");
        if (classpath.contains("surefirebooter")) {
            classpath = System.getProperty("surefire.test.class.path", classpath);
        }
        assertThat(classpath).as("the test classpath names the CLI's classes").contains("funes-cli");
        return classpath;
    }

    private void pump(InputStream stream, BlockingQueue<String> queue, StringBuffer all, String name) {
        Thread t = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    all.append(line).append('\n');
                    queue.add(line);
                }
            } catch (IOException e) {
                all.append("READ FAILED ").append(e).append('\n');
            } finally {
                queue.add(END);
                pumped.countDown();
            }
        }, "funes-" + process.pid() + "-" + name);
        t.setDaemon(true);
        t.start();
    }

    /** Samples the peak resident set size ({@code VmHWM}) while the process runs, where /proc exists. */
    private void sampleRss() {
        Path status = Path.of("/proc", String.valueOf(process.pid()), "status");
        Thread t = new Thread(() -> {
            while (process.isAlive()) {
                try {
                    for (String line : java.nio.file.Files.readAllLines(status)) {
                        if (line.startsWith("VmHWM:")) {
                            peakRssKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                        }
                    }
                    Thread.sleep(100);
                } catch (IOException | RuntimeException e) {
                    return; // gone, or no /proc
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "funes-" + process.pid() + "-rss");
        t.setDaemon(true);
        t.start();
    }

    /** The highest resident set size seen while the process ran, in KB; -1 when unknown. */
    long peakRssKb() {
        return peakRssKb;
    }

    long pid() {
        return process.pid();
    }

    /** The next stdout line that passes {@code test}; fails if stdout ends or stays silent for {@code patience}. */
    String awaitOut(Predicate<String> test, Duration patience) throws InterruptedException {
        while (true) {
            String line = outEnded ? null : outLines.poll(patience.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null || END.equals(line)) {
                outEnded = outEnded || line != null;
                throw new AssertionError(describe(line == null ? "printed nothing more on stdout for " + patience
                        : "closed stdout"));
            }
            if (test.test(line)) {
                return line;
            }
        }
    }

    /** The next stderr line that passes {@code test}; fails if stderr ends or stays silent for {@code patience}. */
    String awaitErr(Predicate<String> test, Duration patience) throws InterruptedException {
        while (true) {
            String line = errEnded ? null : errLines.poll(patience.toMillis(), TimeUnit.MILLISECONDS);
            if (line == null || END.equals(line)) {
                errEnded = errEnded || line != null;
                throw new AssertionError(describe(line == null ? "printed nothing more on stderr for " + patience
                        : "closed stderr"));
            }
            if (test.test(line)) {
                return line;
            }
        }
    }

    /** Writes one line to the process's stdin. */
    void send(String line) throws IOException {
        stdin.write(line);
        stdin.write('\n');
        stdin.flush();
    }

    void closeStdin() throws IOException {
        stdin.close();
    }

    /** Sends a signal by name ({@code INT} is Ctrl-C) with the system's {@code kill}. */
    void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -%s %d", name, process.pid()).isZero();
    }

    /** Waits for the exit (at most {@code patience}, a guard against a hang) and returns the status. */
    int waitFor(Duration patience) throws InterruptedException {
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(describe("did not exit within " + patience));
        }
        // The pumps end with the streams (a child the process left holding them open would keep
        // them going): wait for both, so out() and err() hold everything it printed.
        if (!pumped.await(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(describe("exited, but its stdout or stderr stayed open for " + patience));
        }
        return process.exitValue();
    }

    int status() {
        return process.exitValue();
    }

    String out() {
        return out.toString();
    }

    String err() {
        return err.toString();
    }

    /** The command, the state and what it printed, for assertion messages. */
    String describe(String what) {
        String status = process.isAlive() ? "running" : "exit " + process.exitValue();
        return "funes process " + process.pid() + " (" + String.join(" ", command.subList(command.indexOf("-cp") + 2,
                command.size())) + ", " + status + ") " + what + "\n--- stdout:\n" + tail(out()) + "--- stderr:\n" + tail(err());
    }

    private static String tail(String s) {
        return s.length() > 6000 ? "..." + s.substring(s.length() - 6000) : s;
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    /**
     * The {@code funes serve} processes of {@code store} running now, from each process's
     * {@code /proc/PID/cmdline} ({@code ProcessHandle.Info} leaves out a command line as long as
     * a test JVM's class path).
     */
    static List<ProcessHandle> servers(Path store) {
        String storeArg = store.toString();
        return ProcessHandle.allProcesses().filter(p -> {
            try {
                List<String> args = List.of(new String(java.nio.file.Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")),
                        java.nio.charset.StandardCharsets.UTF_8).split(String.valueOf((char) 0)));
                return args.contains("serve") && args.contains(storeArg);
            } catch (java.io.IOException e) {
                return false; // gone, or not ours to read
            }
        }).toList();
    }

    /**
     * What a finished {@code funes} process printed (stdout and stderr together) and the classes
     * it loaded, in the order of {@code -Xlog:class+load}.
     */
    record ClassLog(String output, String classes) {
    }

    /**
     * Runs {@code funes ARGS} to its end with stdin closed and its class loading logged to
     * {@code log}; fails unless it ends within 3 minutes with status 0.
     */
    static ClassLog runLoggingClasses(Path log, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(command(Main.class, "384m", args));
        command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + log);
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("funes %s ended within 3 minutes", List.of(args)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return new ClassLog(out, java.nio.file.Files.readString(log));
    }
}
