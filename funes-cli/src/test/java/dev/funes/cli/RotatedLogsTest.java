package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.Memory;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import dev.funes.ingest.Indexer;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log replaced at the same path, under {@code funes index} and under {@code funes watch} (the
 * real watch thread, the real store and model, the real Claude Code logs of the shared fixtures):
 * moved away and replaced, copytruncated, rewritten, truncated to fewer lines or to nothing,
 * every memory stored before is still found, the new content too, and what was printed names
 * the file and the memories kept. Waits are for the store's state, never for a time.
 */
class RotatedLogsTest {

    private static final long GIVE_UP_NANOS = Duration.ofSeconds(60).toNanos();
    private static final Pattern KEPT = Pattern.compile("its (\\d+) earlier memor(?:y|ies) kept");

    @TempDir
    Path tmp;
    private Path logs;
    private Path file;
    private Path storeDir;

    @BeforeEach
    void paths() throws IOException {
        CliTest.assumeFixtures();
        logs = Files.createDirectories(tmp.resolve("ix"));
        file = logs.resolve("s.jsonl");
        storeDir = tmp.resolve("S");
    }

    /** The reproduction through the command line, and what search and check say afterwards. */
    @Test
    void indexKeepsTheMemoriesOfALogMovedAwayAndReplaced() throws Exception {
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        CliTest.Result first = CliTest.funes("index", "--store", storeDir.toString(), "--index-path", logs.toString());
        assertThat(first.status()).as(first.err()).isZero();
        List<Memory> before = memories();
        assertThat(before).hasSizeGreaterThanOrEqualTo(30);

        Files.move(file, Files.createDirectories(tmp.resolve("elsewhere")).resolve("s.jsonl"));
        Files.copy(fixture("episodic-memory-tiny.jsonl"), file);
        CliTest.Result second = CliTest.funes("index", "--store", storeDir.toString(), "--index-path", logs.toString());
        assertThat(second.status()).as(second.err()).isZero();
        assertThat(second.out()).contains("1 file changed since it was read, its " + before.size()
                + " earlier memories kept: " + file.toRealPath());

        assertStillStored(before);
        // The old session is found, and says its file changed since.
        List<Memory> exchanges = before.stream().filter(m -> m.kind() == dev.funes.MemoryKind.EXCHANGE).toList();
        Memory old = exchanges.get(exchanges.size() / 2);
        CliTest.Result search = CliTest.funes("search", "--store", storeDir.toString(), "--json", "--limit", "20",
                words(old.text(), 12));
        assertThat(search.status()).as(search.err()).isZero();
        JsonNode hit = null;
        for (JsonNode h : HitJson.MAPPER.readTree(search.out())) {
            if (h.get("id").asText().equals(old.id())) {
                hit = h;
            }
        }
        assertThat(hit).as("the old memory among the hits").isNotNull();
        assertThat(hit.get("source").get("changedSince").asText()).isNotBlank();
        CliTest.Result text = CliTest.funes("search", "--store", storeDir.toString(), "--limit", "20", words(old.text(), 12));
        String cited = file.toRealPath() + ":";
        assertThat(text.out().lines().filter(l -> l.contains(cited)
                && l.contains("  (the file changed since: seen "))).isNotEmpty();
        // The new one too.
        assertThat(found("tentative")).isTrue();

        CliTest.Result check = CliTest.funes("check", "--store", storeDir.toString());
        assertThat(check.status()).as(check.out() + check.err()).isZero();
        assertThat(check.out() + check.err()).contains(before.size() + " of them were read from an earlier version of 1 file");
    }

    @Test
    void watchKeepsTheMemoriesOfALogMovedAwayAndReplaced() throws Exception {
        watch(before -> {
            Files.move(file, Files.createDirectories(tmp.resolve("elsewhere")).resolve("s.jsonl"));
            Files.copy(fixture("episodic-memory-tiny.jsonl"), file);
        }, "tentative");
    }

    @Test
    void watchKeepsTheMemoriesOfACopyTruncatedLog() throws Exception {
        watch(before -> {
            Files.copy(file, Files.createDirectories(tmp.resolve("rotated")).resolve("s.jsonl.1"));
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
            Files.write(file, Files.readAllBytes(fixture("episodic-memory-tiny.jsonl")), StandardOpenOption.APPEND);
        }, "tentative");
    }

    @Test
    void watchKeepsTheMemoriesOfALogRewrittenWithOtherContent() throws Exception {
        watch(before -> Files.write(file, Files.readAllBytes(fixture("episodic-memory-medium.jsonl"))), null);
    }

    @Test
    void watchKeepsTheMemoriesOfALogTruncatedToFewerLines() throws Exception {
        watch(before -> Files.write(file, head("episodic-memory-long.jsonl", 60)), null);
    }

    @Test
    void watchKeepsTheMemoriesOfALogTruncatedToNothing() throws Exception {
        watch(before -> {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }
        }, null);
    }

    // ---- helpers -----------------------------------------------------------------------------

    @FunctionalInterface
    private interface Change {
        void apply(List<Memory> before) throws IOException;
    }

    /**
     * Indexes the first 120 lines of the long fixture under a running watch, applies
     * {@code change}, waits until the store's checkpoint is that of the changed file, and checks
     * that every memory stays, the new content ({@code token}, if any) is found, and the watch
     * said how many earlier memories it kept, in as many lines as it took.
     */
    private void watch(Change change, String token) throws Exception {
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        List<String> lines = new CopyOnWriteArrayList<>();
        List<Memory> before;
        try (OpenStore open = OpenStore.open(storeDir, null)) {
            Indexer indexer = Indexer.builder(open.store()).listener(new Watcher.Lines(lines::add)).build();
            Watcher watcher = new Watcher(indexer, List.of(logs), lines::add, true);
            assertThat(watcher.start(indexer).filesIndexed()).isEqualTo(1);
            try {
                before = memories(open);
                assertThat(before).hasSizeGreaterThanOrEqualTo(30);
                change.apply(before);
                awaitCheckpointOf(open, file);
            } finally {
                watcher.stop();
                assertThat(watcher.awaitStopped(Duration.ofSeconds(30))).as("watch thread ended").isTrue();
            }
            if (token != null) {
                assertThat(found(open, token)).as("the new content").isTrue();
            }
        }
        long marked = assertStillStored(before);
        assertThat(marked).isPositive();
        String indexed = "indexed " + file.toRealPath() + ": ";
        long told = 0;
        for (String line : lines) {
            Matcher m = KEPT.matcher(line);
            if (line.startsWith(indexed) && line.contains("changed since it was read") && m.find()) {
                told += Long.parseLong(m.group(1));
            }
        }
        assertThat(told).as("earlier memories the watch said it kept, in %s", lines).isEqualTo(marked);
        assertThat(lines).noneMatch(l -> l.startsWith("warning") || l.startsWith("failed"));
    }

    /** Waits until the stored checkpoint covers the file as it is now (size and time): the watch has read it. */
    private static void awaitCheckpointOf(OpenStore open, Path file) throws Exception {
        long start = System.nanoTime();
        while (System.nanoTime() - start < GIVE_UP_NANOS) {
            long size = Files.size(file);
            long modified = Files.getLastModifiedTime(file).toMillis();
            SourceState state = open.store().checkpoints().orElseThrow().source(file.toRealPath()).orElse(null);
            if (state != null && state.size() == size && state.indexedBytes() == size
                    && state.lastModified().toEpochMilli() == modified) {
                return;
            }
            Thread.sleep(20);
        }
        fail("the watch did not read " + file + " within 60 s");
    }

    /**
     * Every memory of {@code before} is still stored, unchanged but perhaps marked, and a search
     * finds some of them; returns how many are marked.
     */
    private long assertStillStored(List<Memory> before) throws Exception {
        long marked = 0;
        try (OpenStore open = OpenStore.open(storeDir, null)) {
            for (Memory m : before) {
                Memory kept = open.store().get(m.id()).orElseThrow(() -> new AssertionError("lost: " + m.provenance()));
                assertThat(kept.text()).isEqualTo(m.text());
                assertThat(kept.provenance()).isEqualTo(m.provenance());
                marked += kept.metadata().containsKey(SourceState.CHANGED_KEY) ? 1 : 0;
            }
            // Passages are found through their exchange (a hit is a memory with its best passage).
            List<Memory> memories = before.stream().filter(m -> m.kind() != dev.funes.MemoryKind.PASSAGE).toList();
            for (Memory m : List.of(memories.get(0), memories.get(memories.size() / 2), memories.get(memories.size() - 1))) {
                assertThat(open.store().search(SearchRequest.builder(words(m.text(), 12)).limit(20).build()))
                        .as("searching for %s", m.provenance()).anyMatch(h -> h.memory().id().equals(m.id()));
            }
        }
        return marked;
    }

    private boolean found(String token) {
        try (OpenStore open = OpenStore.open(storeDir, null)) {
            return found(open, token);
        }
    }

    private static boolean found(OpenStore open, String token) {
        return open.store().search(SearchRequest.builder(token).limit(10).build()).stream()
                .anyMatch(h -> h.memory().text().contains(token));
    }

    private List<Memory> memories() {
        try (OpenStore open = OpenStore.open(storeDir, null)) {
            return memories(open);
        }
    }

    private List<Memory> memories(OpenStore open) {
        List<String> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve("funes.db"));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM memories ORDER BY seq")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        } catch (java.sql.SQLException e) {
            throw new AssertionError(e);
        }
        return ids.stream().map(id -> open.store().get(id).orElseThrow()).toList();
    }

    private static String words(String text, int n) {
        String[] words = text.strip().split("\\s+");
        return String.join(" ", Arrays.asList(words).subList(0, Math.min(n, words.length)));
    }

    private static Path fixture(String name) {
        Path f = CliTest.CLAUDE_FIXTURES.resolve(name);
        assumeTrue(Files.isRegularFile(f), "skipped: " + f + " is absent");
        return f;
    }

    /** The first {@code n} lines of a fixture, as {@code head -n} gives them. */
    private static byte[] head(String name, int n) throws IOException {
        byte[] bytes = Files.readAllBytes(fixture(name));
        int at = 0;
        for (int lines = 0; lines < n && at < bytes.length; at++) {
            if (bytes[at] == '\n') {
                lines++;
            }
        }
        return Arrays.copyOf(bytes, at);
    }
}
