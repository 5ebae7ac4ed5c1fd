package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.ingest.Indexer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Watcher} with a real Claude Code session file being appended to, the real model, a real
 * store on disk and the real watch thread: appended exchanges become searchable, new folders and
 * files are picked up, deleted files are survived, and stopping leaves everything committed.
 */
class WatcherTest {

    private static final String SESSION = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
    private static final long GIVE_UP_NANOS = Duration.ofSeconds(10).toNanos();

    @TempDir
    Path tmp;

    private int record;

    @Test
    void appendedExchangesBecomeSearchableAndSurviveStop() throws Exception {
        Path projects = tmp.resolve("projects");
        Path session = projects.resolve("-home-dev-demo").resolve(SESSION + ".jsonl");
        Files.createDirectories(session.getParent());
        Files.writeString(session, exchange("How is the watcher named?", "It runs on a thread named funes-watch."));
        Path storeDir = tmp.resolve("store");
        List<String> lines = new CopyOnWriteArrayList<>();
        List<Long> latencies = new ArrayList<>();
        List<String> tokens = new ArrayList<>();

        try (OpenStore open = OpenStore.open(storeDir, null)) {
            Indexer indexer = Indexer.builder(open.store()).listener(new Watcher.Lines(lines::add)).build();
            // As funes watch runs it, link passes included, so the latency measured is the command's.
            Watcher watcher = new Watcher(indexer, List.of(projects), lines::add, true,
                    WatchCommand.linker(open, new java.io.PrintWriter(java.io.Writer.nullWriter())));
            assertThat(watcher.start(indexer).filesIndexed()).isEqualTo(1);
            assertThat(Thread.getAllStackTraces().keySet()).anyMatch(t -> t.getName().equals("funes-watch"));
            try {
                for (int i = 0; i < 20; i++) {
                    String token = "quokka" + (7000 + i) + "zeta";
                    tokens.add(token);
                    long start = System.nanoTime();
                    append(session, exchange("Where did we put the " + token + " setting?",
                            "The " + token + " setting lives in config/app.toml."));
                    latencies.add(awaitFound(open, token, start));
                }

                // A folder created while watching, with a session inside.
                Path other = projects.resolve("-home-dev-other").resolve("1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9.jsonl");
                Files.createDirectories(other.getParent());
                Files.writeString(other, exchange("What is the wombat4242 port?", "The wombat4242 port is 8080."));
                awaitFound(open, "wombat4242", System.nanoTime());

                // A deleted file is survived; the watcher keeps going.
                Files.delete(other);
                append(session, exchange("Any news on the okapi5151 bug?", "The okapi5151 bug is fixed."));
                awaitFound(open, "okapi5151", System.nanoTime());
                tokens.add("okapi5151");
            } finally {
                watcher.stop();
                assertThat(watcher.awaitStopped(Duration.ofSeconds(30))).as("watch thread ended").isTrue();
            }
            assertThat(watcher.changesIndexed()).isGreaterThanOrEqualTo(22);
        }
        String indexedLine = "indexed " + session.toRealPath();
        assertThat(lines).anyMatch(l -> l.startsWith(indexedLine))
                .anyMatch(l -> l.startsWith("deleted "))
                .noneMatch(l -> l.startsWith("warning"));

        // Committed: a fresh store on the same folder finds every appended exchange.
        try (OpenStore reopened = OpenStore.open(storeDir, null)) {
            for (String token : tokens) {
                assertThat(found(reopened, token)).as("%s after reopening", token).isTrue();
            }
        }
        report(latencies);
    }

    /**
     * A live file read while its last exchange was half written: once the answer arrives, the
     * shorter version is replaced, not kept beside the complete one.
     */
    @Test
    void aHalfWrittenExchangeIsReplacedByItsCompleteVersion() throws Exception {
        Path session = tmp.resolve("live").resolve(SESSION + ".jsonl");
        Files.createDirectories(session.getParent());
        Files.writeString(session, exchange("Opening question about lemurs?", "Lemurs are fine."));
        try (OpenStore open = OpenStore.open(tmp.resolve("store"), null)) {
            Indexer indexer = Indexer.builder(open.store()).build();
            Watcher watcher = new Watcher(indexer, List.of(session.getParent()), s -> { }, true);
            watcher.start(indexer);
            try {
                int n = ++record;
                append(session, user(n, "Why does the pangolin8484 job fail?") + "\n");
                awaitFound(open, "pangolin8484", System.nanoTime());
                int m = ++record;
                append(session, assistant(m, "msg_" + m, "The pangolin8484 job fails on a missing caracal9595 key.") + "\n");
                awaitFound(open, "caracal9595", System.nanoTime());
            } finally {
                watcher.stop();
                assertThat(watcher.awaitStopped(Duration.ofSeconds(30))).isTrue();
            }
            List<String> texts = open.store().search(SearchRequest.builder("pangolin8484").limit(20).build()).stream()
                    .map(h -> h.memory().text()).filter(t -> t.contains("pangolin8484")).toList();
            assertThat(texts).as("memories about the exchange").hasSize(1);
            assertThat(texts.get(0)).contains("caracal9595");
        }
    }

    /** {@code funes:ignore} added to a stored log removes it from a real store, and it is reported as skipped. */
    @Test
    void ignoreMarkerEmptiesARealStoreOfThatLog() throws Exception {
        Path session = tmp.resolve("ign").resolve(SESSION + ".jsonl");
        Files.createDirectories(session.getParent());
        Files.writeString(session, exchange("Where is the gecko2727 config?", "The gecko2727 config is in etc/."));
        Path store = tmp.resolve("ign-store");
        CliTest.Result first = CliTest.funes("index", "--index-path", session.toString(), "--store", store.toString());
        assertThat(first.status()).as(first.err()).isZero();
        append(session, exchange("funes:ignore please forget this session", "Forgotten."));
        CliTest.Result second = CliTest.funes("index", "--index-path", session.toString(), "--store", store.toString());
        assertThat(second.status()).as(second.err()).isZero();
        assertThat(second.out()).contains("1 skipped by request");
        try (OpenStore open = OpenStore.open(store, null)) {
            assertThat(found(open, "gecko2727")).isFalse();
            assertThat(open.store().stats().memories()).isZero();
        }
    }

    @Test
    void pollingAloneAlsoPicksUpAppends() throws Exception {
        Path session = tmp.resolve("logs").resolve(SESSION + ".jsonl");
        Files.createDirectories(session.getParent());
        Files.writeString(session, exchange("First question about tapirs?", "Tapirs are fine."));
        try (OpenStore open = OpenStore.open(tmp.resolve("store"), null)) {
            Indexer indexer = Indexer.builder(open.store()).build();
            Watcher watcher = new Watcher(indexer, List.of(session), s -> { }, false);
            watcher.start(indexer);
            try {
                append(session, exchange("Where is the narwhal3131 flag?", "The narwhal3131 flag is in main.rs."));
                awaitFound(open, "narwhal3131", System.nanoTime());
            } finally {
                watcher.stop();
                assertThat(watcher.awaitStopped(Duration.ofSeconds(30))).isTrue();
            }
        }
    }

    /**
     * The command itself in its own JVM: it prints progress on stderr only, and SIGTERM (what
     * Ctrl-C's SIGINT also triggers: the shutdown hook) leaves the store closed and complete.
     */
    @Test
    void watchCommandShutsDownCleanlyOnSignal() throws Exception {
        Path session = tmp.resolve("cmd").resolve(SESSION + ".jsonl");
        Files.createDirectories(session.getParent());
        Files.writeString(session, exchange("Which port for the ibex6262 service?", "The ibex6262 service uses 9090."));
        Path storeDir = tmp.resolve("cmd-store");
        Path errFile = tmp.resolve("err.txt");
        Path outFile = tmp.resolve("out.txt");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "watch", "--index-path", session.getParent().toString(), "--store", storeDir.toString())
                .redirectError(errFile.toFile()).redirectOutput(outFile.toFile()).start();
        try {
            awaitLine(p, errFile, "watching ");
            append(session, exchange("And the serval7373 timeout?", "The serval7373 timeout is 30 s."));
            awaitLine(p, errFile, "indexed " + session.toRealPath());
        } finally {
            p.destroy();
        }
        assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        String err = Files.readString(errFile);
        assertThat(err).contains("funes watch: stopped; 1 changes indexed");
        assertThat(Files.readString(outFile)).isEmpty();
        try (OpenStore reopened = OpenStore.open(storeDir, null)) {
            assertThat(found(reopened, "ibex6262")).isTrue();
            assertThat(found(reopened, "serval7373")).isTrue();
        }
    }

    private static void awaitLine(Process p, Path errFile, String prefix) throws Exception {
        long start = System.nanoTime();
        while (System.nanoTime() - start < Duration.ofSeconds(120).toNanos()) {
            if (Files.exists(errFile) && Files.readAllLines(errFile).stream().anyMatch(l -> l.startsWith(prefix))) {
                return;
            }
            if (!p.isAlive()) {
                fail("funes watch exited early: " + Files.readString(errFile));
            }
            Thread.sleep(50);
        }
        fail("no line starting with '" + prefix + "' on stderr: " + Files.readString(errFile));
    }

    private static long awaitFound(OpenStore open, String token, long start) throws InterruptedException {
        while (System.nanoTime() - start < GIVE_UP_NANOS) {
            if (found(open, token)) {
                return System.nanoTime() - start;
            }
            Thread.sleep(10);
        }
        return fail("'" + token + "' not searchable 10 s after it was appended");
    }

    private static boolean found(OpenStore open, String token) {
        for (SearchHit hit : open.store().search(SearchRequest.builder(token).limit(5).build())) {
            if (hit.memory().text().contains(token)) {
                return true;
            }
        }
        return false;
    }

    private static void report(List<Long> nanos) throws IOException {
        List<Long> sorted = new ArrayList<>(nanos);
        Collections.sort(sorted);
        long p50 = sorted.get((int) Math.ceil(0.50 * sorted.size()) - 1) / 1_000_000;
        long p95 = sorted.get((int) Math.ceil(0.95 * sorted.size()) - 1) / 1_000_000;
        long max = sorted.get(sorted.size() - 1) / 1_000_000;
        String line = String.format(Locale.ROOT, "watch latency over %d appends: p50 %d ms, p95 %d ms, max %d ms%n",
                sorted.size(), p50, p95, max);
        System.err.print(line);
        Path out = Path.of("target", "watch-latency.txt");
        Files.createDirectories(out.getParent());
        Files.writeString(out, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private String exchange(String question, String answer) {
        int n = ++record;
        int m = ++record;
        return user(n, question) + "\n" + assistant(m, "msg_" + m, answer) + "\n";
    }

    private static ObjectNode base(String type, int n) {
        ObjectNode r = HitJson.MAPPER.createObjectNode();
        r.put("parentUuid", n > 1 ? uuid(n - 1) : null);
        r.put("isSidechain", false);
        r.put("cwd", "/home/dev/demo");
        r.put("sessionId", SESSION);
        r.put("version", "2.0.31");
        r.put("type", type);
        r.put("uuid", uuid(n));
        r.put("timestamp", String.format(Locale.ROOT, "2025-10-14T10:%02d:%02dZ", (n / 60) % 60, n % 60));
        return r;
    }

    private static String uuid(int n) {
        return String.format(Locale.ROOT, "00000000-0000-4000-9000-%012d", n);
    }

    private static String user(int n, String text) {
        ObjectNode r = base("user", n);
        r.putObject("message").put("role", "user").put("content", text);
        return r.toString();
    }

    private static String assistant(int n, String messageId, String text) {
        ObjectNode r = base("assistant", n);
        ObjectNode m = r.putObject("message").put("id", messageId).put("role", "assistant");
        m.putArray("content").addObject().put("type", "text").put("text", text);
        return r.toString();
    }

    private static void append(Path file, String text) throws IOException {
        Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }
}
