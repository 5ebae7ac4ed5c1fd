package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Huge and hostile input, indexed by {@code funes index} in a child JVM limited to a 256 MB heap
 * (so an input held in memory fails the test with an {@code OutOfMemoryError}): a log of many
 * hundred MB, a 50 MB line, JSON nested 100,000 deep, a folder of many files, link loops. Each
 * must end with a clear problem naming the file and line, and what the store held before stays.
 *
 * <p>Inputs are generated from real Claude Code and Cline records in temporary folders. The two
 * large cases scale with system properties: {@code -Dfunes.huge.bytes} (default 64 MB; the
 * measurement in docs/RELIABILITY.md used 1 GB) and {@code -Dfunes.huge.files} (default 20,000).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HugeInputTest {

    private static final Duration PATIENCE = Duration.ofMinutes(30);
    private static final String HEAP = "256m";
    private static final Path CLINE_FIXTURE = CliTest.SHARED
            .resolve("fixtures/cline/online-card-architecture-1769053680585/api_conversation_history.json");
    /** A question the tiny fixture's second exchange answers. */
    private static final String TINY_QUESTION = "what would you change in the instructions";

    private Path tmp;
    private Path store;
    private Path seed;
    private List<String> tiny;
    private List<String> shortLog;
    private List<String> snapshots;
    private String tinySession;

    @BeforeAll
    void seedTheStore(@TempDir Path tmp) throws Exception {
        this.tmp = tmp;
        assumeTrue(Files.isDirectory(CliTest.CLAUDE_FIXTURES),
                "skipped: ../shared/fixtures/claude-code is absent (" + CliTest.CLAUDE_FIXTURES + ")");
        tiny = Files.readAllLines(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-tiny.jsonl"));
        shortLog = Files.readAllLines(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-short.jsonl"));
        snapshots = new ArrayList<>();
        for (String line : Files.readAllLines(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-medium.jsonl"))) {
            if ("file-history-snapshot".equals(HitJson.MAPPER.readTree(line).path("type").asText())) {
                snapshots.add(line);
            }
        }
        tinySession = HitJson.MAPPER.readTree(tiny.get(0)).get("sessionId").asText();
        store = tmp.resolve("store");
        seed = Files.createDirectories(tmp.resolve("seed")).resolve("seed.jsonl");
        Files.write(seed, tiny);
        seed = seed.toRealPath();
        FunesProcess index = FunesProcess.run(PATIENCE, HEAP, "index", "--store", store.toString(),
                "--index-path", seed.toString());
        assertThat(index.status()).as(index.describe("seed index")).isZero();
    }

    // ---- a huge log -------------------------------------------------------------------------

    @Test
    void aHugeLogIsStreamedInBoundedMemoryAndItsOversizedLinesAreSkippedByNumber() throws Exception {
        long bytes = Long.getLong("funes.huge.bytes", 64L << 20);
        Path log = Files.createDirectories(tmp.resolve("huge")).resolve("huge.jsonl");
        // Real records: a session's exchange first, then file-history snapshots (records Claude
        // Code writes by the thousand and Funes ignores) with, every 16 MB, a user record padded
        // to 5 MB (over the 4 MB line limit), and the tiny session's exchanges last.
        List<Long> oversized = new ArrayList<>();
        long line = 0;
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(log), 1 << 20)) {
            line = write(out, shortLog, line);
            byte[] big = (padded(tiny.get(0), 5 << 20) + "\n").getBytes(StandardCharsets.UTF_8);
            List<byte[]> snaps = new ArrayList<>();
            for (String s : snapshots) {
                snaps.add((s + "\n").getBytes(StandardCharsets.UTF_8));
            }
            long written = 0;
            long nextBig = 16L << 20;
            for (int i = 0; written < bytes; i++) {
                if (written >= nextBig) {
                    out.write(big);
                    oversized.add(++line);
                    written += big.length;
                    nextBig += 16L << 20;
                } else {
                    byte[] s = snaps.get(i % snaps.size());
                    out.write(s);
                    line++;
                    written += s.length;
                }
            }
            line = write(out, tiny, line);
        }
        long tailStart = line - tiny.size() + 1;
        Path real = log.toRealPath();

        long started = System.nanoTime();
        FunesProcess index = FunesProcess.run(PATIENCE, HEAP, "index", "--store", store.toString(),
                "--index-path", log.toString());
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf(Locale.ROOT, "HugeInputTest: %,d bytes, %,d lines, %d oversized: indexed in %.1f s,"
                        + " child peak RSS %,d KB (heap limit %s)%n", Files.size(log), line, oversized.size(),
                millis / 1000.0, index.peakRssKb(), HEAP);
        assertThat(index.status()).as(index.describe("index of the huge log")).isEqualTo(Main.EXIT_PARTIAL);
        assertThat(oversized).isNotEmpty();
        String limit = ": line is 5.2 MB, over the 4 MB limit for one record; skipped";
        for (long n : oversized.subList(0, Math.min(oversized.size(), 50))) {
            assertThat(index.err()).as(index.describe("oversized line " + n)).contains(real + ":" + n + limit);
        }
        assertThat(index.out()).contains("1 indexed").contains(oversized.size() + " records skipped");

        // The last records were read: the whole file went through.
        assertThat(hitLines(TINY_QUESTION, tinySession, real)).as("the tail's exchanges")
                .anySatisfy(range -> assertThat(range[0]).isGreaterThanOrEqualTo(tailStart));
        assertSeedKept();
    }

    // ---- a 50 MB line -------------------------------------------------------------------------

    @Test
    void aFiftyMegabyteLineIsSkippedWithItsNumberAndTheRecordsAfterItAreRead() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("fifty"));
        Path log = dir.resolve("fifty.jsonl");
        List<String> lines = new ArrayList<>(shortLog);
        lines.add(padded(tiny.get(0), 50_000_000));
        lines.addAll(tiny);
        Files.write(log, lines);
        // The same in a whole-file format: a Cline history (one line of JSON) with a 50 MB message.
        Path cline = null;
        if (Files.isRegularFile(CLINE_FIXTURE)) {
            ArrayNode history = (ArrayNode) HitJson.MAPPER.readTree(CLINE_FIXTURE.toFile());
            ObjectNode huge = history.get(2).deepCopy();
            ((ObjectNode) huge.get("content").get(0)).put("text", "pasted log: " + "0123456789 ".repeat(5_000_000));
            history.insert(4, huge);
            cline = Files.createDirectories(dir.resolve("tasks/1769053680585")).resolve("api_conversation_history.json");
            // One line, as Cline writes it.
            Files.writeString(cline, history.toString());
        }

        FunesProcess index = FunesProcess.run(PATIENCE, HEAP, "index", "--store", store.toString(),
                "--index-path", dir.toString());
        assertThat(index.status()).as(index.describe("index")).isEqualTo(Main.EXIT_PARTIAL);
        Path real = log.toRealPath();
        assertThat(index.err()).as(index.describe("the 50 MB line"))
                .contains(real + ":4: line is 50.0 MB, over the 4 MB limit for one record; skipped");
        assertThat(hitLines(TINY_QUESTION, tinySession, real)).as("records after the long line")
                .anySatisfy(range -> assertThat(range[0]).isGreaterThanOrEqualTo(5));
        if (cline != null) {
            assertThat(index.err()).as(index.describe("the 50 MB Cline message"))
                    .contains(cline.toRealPath() + ":1: a value is too large to read (a string of more than 20000000"
                            + " characters); the rest of the file was not read");
        }
        assertSeedKept();
    }

    // ---- deep nesting -------------------------------------------------------------------------

    @Test
    void jsonNestedAHundredThousandDeepIsRefusedByLineWithoutAStackOverflow() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("deep"));
        Path log = dir.resolve("deep.jsonl");
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        List<String> lines = new ArrayList<>(shortLog);
        lines.add(deep);
        ObjectNode record = (ObjectNode) HitJson.MAPPER.readTree(tiny.get(0));
        ((ObjectNode) record.get("message")).put("content", "@@");
        lines.add(record.toString().replace("\"@@\"", deep));
        lines.addAll(tiny);
        Files.write(log, lines);
        Path cline = null;
        if (Files.isRegularFile(CLINE_FIXTURE)) {
            String history = Files.readString(CLINE_FIXTURE);
            cline = Files.createDirectories(dir.resolve("tasks/1769053680586")).resolve("api_conversation_history.json");
            // Nested inside the last message: every message before it is read.
            int last = history.lastIndexOf("{\"role\"");
            Files.writeString(cline, history.substring(0, last) + "{\"role\":\"user\",\"content\":" + deep + "}]");
        }

        FunesProcess index = FunesProcess.run(PATIENCE, HEAP, "index", "--store", store.toString(),
                "--index-path", dir.toString());
        assertThat(index.status()).as(index.describe("index")).isEqualTo(Main.EXIT_PARTIAL);
        Path real = log.toRealPath();
        for (int n : new int[] {4, 5}) {
            assertThat(index.err()).as(index.describe("line " + n))
                    .contains(real + ":" + n + ": JSON nested more than 1000 levels deep; line skipped");
        }
        assertThat(index.err()).doesNotContain("StackOverflow");
        assertThat(hitLines(TINY_QUESTION, tinySession, real)).as("records after the deep lines")
                .anySatisfy(range -> assertThat(range[0]).isGreaterThanOrEqualTo(6));
        if (cline != null) {
            assertThat(index.err()).as(index.describe("the deep Cline message"))
                    .contains(cline.toRealPath() + ":1: JSON nested more than 200 levels deep; the rest of the file was not read");
            assertThat(index.out()).contains("2 indexed");
        }
        assertSeedKept();
    }

    // ---- many files, link loops ---------------------------------------------------------------

    @Test
    void aFolderOfManyFilesWithLinkLoopsIsWalkedOnceInBoundedMemory() throws Exception {
        int count = Integer.getInteger("funes.huge.files", 20_000);
        Path root = Files.createDirectories(tmp.resolve("many"));
        // Shaped like ~/.claude/projects: a folder per project. One file in 1,000 is a real log,
        // the others are files of no agent (notes, data), which the walk must pass over cheaply.
        List<Path> logs = new ArrayList<>();
        byte[] other = "notes, not a log\n".repeat(20).getBytes(StandardCharsets.UTF_8);
        byte[] real = (String.join("\n", shortLog) + "\n").getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < count; i++) {
            Path project = root.resolve(String.format(Locale.ROOT, "project-%03d", i % 200));
            if (i < 200) {
                Files.createDirectories(project);
            }
            if (i % 1000 == 0) {
                Path log = project.resolve("session-" + i + ".jsonl");
                Files.write(log, real);
                logs.add(log);
            } else {
                Files.write(project.resolve("file-" + i + ".txt"), other);
            }
        }
        // Links: to itself, to its parent, two links to each other, a dangling one, a named pipe.
        Path loops = Files.createDirectories(root.resolve("project-000/links"));
        Files.createSymbolicLink(loops.resolve("self"), Path.of("."));
        Files.createSymbolicLink(loops.resolve("up"), Path.of(".."));
        Files.createSymbolicLink(loops.resolve("a.jsonl"), Path.of("b.jsonl"));
        Files.createSymbolicLink(loops.resolve("b.jsonl"), Path.of("a.jsonl"));
        Files.createSymbolicLink(loops.resolve("dangling.jsonl"), Path.of("/nonexistent/funes/log.jsonl"));
        Files.createSymbolicLink(loops.resolve("root"), root);
        boolean fifo = new ProcessBuilder("mkfifo", loops.resolve("pipe.jsonl").toString()).start().waitFor() == 0;

        long started = System.nanoTime();
        FunesProcess index = FunesProcess.run(PATIENCE, HEAP, "index", "--store", store.toString(),
                "--index-path", root.toString());
        long millis = (System.nanoTime() - started) / 1_000_000;
        System.out.printf(Locale.ROOT, "HugeInputTest: %,d files (%d logs, pipe %s): indexed in %.1f s, child peak RSS %,d KB%n",
                count, logs.size(), fifo, millis / 1000.0, index.peakRssKb());
        assertThat(index.status()).as(index.describe("index of many files")).isZero();
        // Every log once, under its real path, however many links lead to it.
        assertThat(index.out()).as(index.describe("summary")).startsWith(count + " files: " + logs.size() + " indexed, 0 unchanged, 0 failed, " + (count - logs.size()) + " ignored;");
        String shortSession = HitJson.MAPPER.readTree(shortLog.get(1)).get("sessionId").asText();
        FunesProcess search = FunesProcess.run(PATIENCE, HEAP, "search", "--store", store.toString(), "--json",
                "--session", shortSession, "--limit", "1000", "summary employee");
        assertThat(search.status()).as(search.describe("search")).isZero();
        List<String> paths = new ArrayList<>();
        String under = root.toRealPath() + "/";
        for (JsonNode hit : HitJson.MAPPER.readTree(search.out())) {
            String path = hit.get("source").get("path").asText();
            if (path.startsWith(under)) { // the other tests' logs hold this session too
                paths.add(path);
            }
        }
        // As many memories from each log (each read once), none under a link's path.
        long perLog = paths.stream().filter(p -> p.equals(paths.get(0))).count();
        assertThat(perLog).isPositive();
        for (Path log : logs) {
            String file = log.toRealPath().toString();
            assertThat(paths.stream().filter(file::equals).count()).as("memories of %s", log).isEqualTo(perLog);
        }
        assertThat(paths).hasSize((int) perLog * logs.size()).noneMatch(p -> p.contains("/links/"));
        assertSeedKept();
    }

    // ---- helpers ------------------------------------------------------------------------------

    /** The seed's memories are all still there, and the store passes {@code funes check}. */
    private void assertSeedKept() throws Exception {
        assertThat(hitLines(TINY_QUESTION, tinySession, seed)).as("the seed's exchanges").hasSizeGreaterThanOrEqualTo(2);
        FunesProcess check = FunesProcess.run(PATIENCE, HEAP, "check", "--store", store.toString());
        assertThat(check.status()).as(check.describe("check")).isZero();
    }

    /** The line ranges of the hits from {@code file} for a search in {@code session}. */
    private List<long[]> hitLines(String query, String session, Path file) throws Exception {
        FunesProcess search = FunesProcess.run(PATIENCE, HEAP, "search", "--store", store.toString(), "--json",
                "--session", session, "--limit", "50", query);
        assertThat(search.status()).as(search.describe("search")).isZero();
        List<long[]> ranges = new ArrayList<>();
        for (JsonNode hit : HitJson.MAPPER.readTree(search.out())) {
            JsonNode source = hit.get("source");
            if (source.get("path").asText().equals(file.toString())) {
                ranges.add(new long[] {source.get("lineStart").asLong(), source.get("lineEnd").asLong()});
            }
        }
        return ranges;
    }

    /** A real record whose message text is padded to about {@code size} bytes with words. */
    private static String padded(String record, int size) throws IOException {
        ObjectNode node = (ObjectNode) HitJson.MAPPER.readTree(record);
        JsonNode message = node.get("message");
        String text = message.get("content").asText();
        StringBuilder s = new StringBuilder(size + 100).append(text).append("\n");
        while (s.length() < size) {
            s.append("padding words of a pasted log ");
        }
        ((ObjectNode) message).put("content", s.toString());
        return node.toString();
    }

    private static long write(OutputStream out, List<String> lines, long line) throws IOException {
        for (String l : lines) {
            out.write((l + "\n").getBytes(StandardCharsets.UTF_8));
            line++;
        }
        return line;
    }
}
