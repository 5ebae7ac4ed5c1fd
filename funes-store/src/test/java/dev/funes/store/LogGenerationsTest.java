package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.store.CheckReport.Finding;
import dev.funes.store.CheckReport.Status;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A log replaced at the same path, through the Indexer, the real store and the real model, on the
 * real Claude Code logs of the shared fixtures (issue 22, "A log replaced at the same path
 * silently deletes its memories"). Whether the log is moved away and a new one written in its
 * place, copied and truncated (copytruncate), rewritten with other content, cut to fewer lines or
 * to nothing, it is a new generation of that log: every memory stored before is still there (by
 * id, and found by a search), unchanged but for the {@link SourceState#CHANGED_KEY} mark; what
 * the file holds now is stored beside it; the report names the file and counts what it kept;
 * {@code check} calls none of it broken. A log that grows still replaces only the exchange that
 * was being written.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LogGenerationsTest {

    private Embedder embedder;
    @TempDir
    Path tmp;
    private Path logs;
    private Path file;
    private Path dir;

    @BeforeAll
    void loadModel() {
        embedder = new RememberingEmbedder(Embedders.bundled(BundledModel.DEFAULT));
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    @BeforeEach
    void paths() throws IOException {
        logs = Files.createDirectories(tmp.resolve("ix"));
        file = logs.resolve("s.jsonl");
        dir = tmp.resolve("store");
    }

    private static Path fixture(String name) {
        Path f = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures/claude-code").resolve(name);
        assumeTrue(Files.isRegularFile(f), "shared fixtures not found at " + f.toAbsolutePath()
                + " (set -Dfunes.shared.dir); real-log test skipped");
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

    /** The reproduction: {@code mv} the indexed log away, copy another to its path. */
    @Test
    void aLogMovedAwayAndReplacedKeepsEveryMemory() throws Exception {
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        List<Memory> before = indexFirst();
        assertThat(before).hasSizeGreaterThanOrEqualTo(30);

        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.move(file, elsewhere.resolve("s.jsonl"));
        Files.copy(fixture("episodic-memory-tiny.jsonl"), file);
        IndexReport report = index();

        assertNewGeneration(before, report);
        assertFound(before);
        assertThat(search("tentative instructions clear problem")).anyMatch(h -> h.memory().text().contains("tentative")
                && !h.memory().metadata().containsKey(SourceState.CHANGED_KEY));
        assertCheckTellsTheKeptMemories(before.size());
    }

    /** logrotate's copytruncate: the log is copied away, cut to nothing in place, and written on. */
    @Test
    void aCopyTruncatedLogKeepsEveryMemory() throws Exception {
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        List<Memory> before = indexFirst();
        Object inode = Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey();

        Files.copy(file, Files.createDirectories(tmp.resolve("rotated")).resolve("s.jsonl.1"));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        Files.write(file, Files.readAllBytes(fixture("episodic-memory-tiny.jsonl")), StandardOpenOption.APPEND);
        assertThat(Files.readAttributes(file, java.nio.file.attribute.BasicFileAttributes.class).fileKey())
                .as("the same file, cut in place").isEqualTo(inode);
        IndexReport report = index();

        assertNewGeneration(before, report);
        assertFound(before);
    }

    /** Written over in place with another session (same inode, other first bytes). */
    @Test
    void aLogRewrittenWithOtherContentKeepsEveryMemory() throws Exception {
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        List<Memory> before = indexFirst();

        Files.write(file, Files.readAllBytes(fixture("episodic-memory-medium.jsonl")));
        IndexReport report = index();

        assertNewGeneration(before, report);
        assertFound(before);
    }

    /** Cut to fewer lines: what lay past the cut is kept, marked; what lies before it is as it was. */
    @Test
    void aLogTruncatedToFewerLinesKeepsEveryMemory() throws Exception {
        byte[] bytes = head("episodic-memory-long.jsonl", 120);
        Files.write(file, bytes);
        List<Memory> before = indexFirst();

        byte[] cut = head("episodic-memory-long.jsonl", 60);
        Files.write(file, cut);
        IndexReport report = index();

        assertNewGeneration(before, report);
        assertThat(before).filteredOn(m -> m.provenance().byteEnd() > cut.length).isNotEmpty().allSatisfy(m ->
                assertThat(stored(m.id()).metadata()).containsKey(SourceState.CHANGED_KEY));
        // The exchanges ended before the cut are given again: the same memories (their times and
        // the exchange a derived one came from may differ), unmarked.
        Set<String> now = new HashSet<>(fresh().stream().map(Memory::id).toList());
        assertThat(before).filteredOn(m -> now.contains(m.id())).isNotEmpty().allSatisfy(m -> {
            Memory kept = stored(m.id());
            assertThat(kept.metadata()).doesNotContainKey(SourceState.CHANGED_KEY);
            assertThat(kept.text()).isEqualTo(m.text());
            assertThat(kept.provenance()).isEqualTo(m.provenance());
        });
        assertFound(before);
    }

    /** Cut to nothing: the same as any truncation. Written on later, what it gives then is stored beside. */
    @Test
    void aLogTruncatedToNothingKeepsEveryMemory() throws Exception {
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        List<Memory> before = indexFirst();

        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        IndexReport emptied = index();
        assertThat(emptied.filesIndexed()).isEqualTo(1);
        assertNewGeneration(before, emptied);
        try (MemoryStore store = open()) {
            assertThat(store.checkpoints().orElseThrow().source(file).orElseThrow().size()).isZero();
        }
        assertThat(index().filesUnchanged()).as("still empty: not read again").isEqualTo(1);

        Files.write(file, Files.readAllBytes(fixture("episodic-memory-tiny.jsonl")));
        IndexReport refilled = index();
        assertThat(refilled.memoriesAdded()).isPositive();
        assertThat(refilled.changedFiles()).as("nothing more to keep").isEmpty();
        assertThat(refilled.memoriesReplaced()).isZero();
        assertKept(before);
        assertThat(memories()).containsAll(fresh()).hasSize(before.size() + fresh().size());
        assertFound(before);
    }

    /**
     * A log whose only exchange was still being written (no resume point: it starts at the first
     * byte) grows: read from the start, the read continues the last one, and the shorter version
     * is replaced, not kept. Nothing is marked.
     */
    @Test
    void aGrowingLogStillReplacesOnlyItsProvisionalExchange() throws Exception {
        // The request alone: its exchange has no answer yet.
        Files.write(file, head("episodic-memory-tiny.jsonl", 1));
        List<Memory> before = indexFirst();
        try (MemoryStore store = open()) {
            assertThat(store.checkpoints().orElseThrow().source(file).orElseThrow().resume()).as("no resume point: a continuation").contains("\"bound\"");
        }

        Files.write(file, Arrays.copyOfRange(Files.readAllBytes(fixture("episodic-memory-tiny.jsonl")),
                (int) Files.size(file), (int) Files.size(fixture("episodic-memory-tiny.jsonl"))), StandardOpenOption.APPEND);
        IndexReport grown = index();
        assertThat(grown.changedFiles()).isEmpty();
        assertThat(grown.earlierMemoriesKept()).isZero();
        assertThat(grown.memoriesReplaced()).as("the shorter version of the open exchange").isPositive();
        assertThat(grown.summary()).contains(grown.memoriesReplaced() + (grown.memoriesReplaced() == 1 ? " memory" : " memories")
                + " replaced by their newer version");
        List<Memory> after = memories();
        assertThat(after).containsExactlyInAnyOrderElementsOf(fresh());
        assertThat(before).anyMatch(m -> !after.contains(m));
    }

    /**
     * A log read while it held only its opening summary (a resumed Claude Code session, before the
     * first message: the summary names no session or folder yet) grows: the summary read with what
     * the later records tell is the one kept, the earlier reading replaced, nothing marked, and the
     * store is that of a fresh index.
     */
    @Test
    void aLogReadWhileItHeldOnlyItsSummaryGrowsWithoutKeepingThatReading() throws Exception {
        Files.write(file, head("episodic-memory-short.jsonl", 1));
        List<Memory> before = indexFirst();
        assertThat(before).extracting(Memory::kind).containsExactly(MemoryKind.SUMMARY);

        byte[] all = Files.readAllBytes(fixture("episodic-memory-short.jsonl"));
        Files.write(file, Arrays.copyOfRange(all, (int) Files.size(file), all.length), StandardOpenOption.APPEND);
        IndexReport grown = index();
        assertThat(grown.changedFiles()).isEmpty();
        assertThat(grown.earlierMemoriesKept()).isZero();
        assertThat(grown.memoriesReplaced()).as("the summary as read alone").isEqualTo(1);
        List<Memory> after = memories();
        assertThat(after).containsExactlyInAnyOrderElementsOf(fresh());
        assertThat(after).filteredOn(m -> m.kind() == MemoryKind.SUMMARY).hasSize(1);
    }

    /** A log with a resume point grows: read on from it, nothing marked, the result that of a fresh index. */
    @Test
    void aGrowingLogReadOnFromItsResumePointMarksNothing() throws Exception {
        byte[] all = head("episodic-memory-long.jsonl", 200);
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        indexFirst();
        Files.write(file, Arrays.copyOfRange(all, (int) Files.size(file), all.length), StandardOpenOption.APPEND);
        IndexReport resumed = index();
        assertThat(resumed.filesResumed()).isEqualTo(1);
        assertThat(resumed.changedFiles()).isEmpty();
        assertThat(resumed.earlierMemoriesKept()).isZero();
        assertThat(memories()).containsExactlyInAnyOrderElementsOf(fresh());
    }

    /**
     * A log read again in full though it did not change (what schema migration 8 asks of every
     * log): what an earlier reading of it gave and this one does not give (here, a memory as an
     * older Funes might have rendered those lines) is replaced, since every record it was read from
     * is read again; what an earlier generation of the file gave stays, marked.
     */
    @Test
    void anUnchangedLogReadAgainReplacesEarlierReadingsButKeepsEarlierGenerations() throws Exception {
        Files.write(file, head("episodic-memory-long.jsonl", 120));
        List<Memory> read = indexFirst();
        Memory model = read.get(0);
        Memory olderReading = Memory.builder(model.kind(), model.agent(), "An older rendering of these lines, zebu4141.")
                .session(model.session()).project(model.project()).time(model.startedAt(), model.endedAt())
                .provenance(model.provenance()).build();
        Memory earlierGeneration = Memory.builder(model.kind(), model.agent(), "Another session once at this path, yak5252.")
                .session("0a0b0c0d").provenance(model.provenance())
                .metadata(SourceState.CHANGED_KEY, "2026-01-02T03:04:05Z").build();
        try (MemoryStore store = open()) {
            store.addAll(List.of(olderReading, earlierGeneration));
        }
        // As migration 8 leaves every checkpoint: size, time and first bytes kept, nothing read.
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
            s.executeUpdate("UPDATE sources SET indexed_bytes = 0, indexed_lines = 0, resume = ''");
        }

        IndexReport again = index();
        assertThat(again.filesIndexed()).isEqualTo(1);
        assertThat(again.memoriesReplaced()).isEqualTo(1);
        assertThat(again.changedFiles()).isEmpty();
        assertThat(again.summary()).contains("1 memory replaced by their newer version");
        try (MemoryStore store = open()) {
            assertThat(store.get(olderReading.id())).isEmpty();
            assertThat(store.get(earlierGeneration.id())).contains(earlierGeneration);
        }
        List<Memory> now = memories();
        assertThat(now).containsAll(fresh()).contains(earlierGeneration).hasSize(fresh().size() + 1);
    }

    // ---- helpers -----------------------------------------------------------------------------

    private MemoryStore open() {
        return FunesStore.open(dir, embedder);
    }

    private IndexReport index() {
        try (MemoryStore store = open()) {
            return Indexer.builder(store).build().index(List.of(logs));
        }
    }

    private List<Memory> indexFirst() {
        IndexReport first = index();
        assertThat(first.filesIndexed()).isEqualTo(1);
        assertThat(first.changedFiles()).isEmpty();
        List<Memory> all = memories();
        assertThat(all).isNotEmpty().allSatisfy(m -> assertThat(m.metadata()).doesNotContainKey(SourceState.CHANGED_KEY));
        return all;
    }

    /** Every memory stored, as {@code get} returns it. */
    private List<Memory> memories() {
        return memories(dir);
    }

    private List<Memory> memories(Path storeDir) {
        List<String> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM memories ORDER BY seq")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
        try (MemoryStore store = FunesStore.open(storeDir, embedder)) {
            return ids.stream().map(id -> store.get(id).orElseThrow()).toList();
        }
    }

    private Memory stored(String id) {
        try (MemoryStore store = open()) {
            return store.get(id).orElseThrow(() -> new AssertionError("lost: " + id));
        }
    }

    /** What an index of the log as it is now into an empty store holds. */
    private List<Memory> fresh() throws IOException {
        Path freshDir = Files.createTempDirectory(tmp, "fresh");
        try (MemoryStore store = FunesStore.open(freshDir, embedder)) {
            Indexer.builder(store).build().index(List.of(logs));
        }
        return memories(freshDir);
    }

    /**
     * The state after a new generation's read: every memory of {@code before} the file no longer
     * gives is stored, unchanged but for the mark; what the file gives now is stored as a fresh
     * store has it; the report names the file, counts the kept memories and removed none.
     * Returns the memories marked.
     */
    private List<Memory> assertNewGeneration(List<Memory> before, IndexReport report) throws Exception {
        List<Memory> now = fresh();
        Set<String> nowIds = new HashSet<>(now.stream().map(Memory::id).toList());
        List<Memory> gone = before.stream().filter(m -> !nowIds.contains(m.id())).toList();
        assertThat(gone).isNotEmpty();
        assertThat(memories()).containsAll(now).hasSize(now.size() + gone.size());
        assertKept(gone);
        assertThat(report.changedFiles()).containsExactly(file.toRealPath());
        assertThat(report.earlierMemoriesKept()).isEqualTo(gone.size());
        assertThat(report.memoriesReplaced()).isZero();
        assertThat(report.memoriesForgotten()).isZero();
        assertThat(report.summary()).contains("1 file changed since it was read, its " + gone.size()
                + " earlier memories kept: " + file.toRealPath());
        return gone;
    }

    /** Each of {@code memories} is stored, marked {@link SourceState#CHANGED_KEY} unless the file gives it now, otherwise unchanged. */
    private void assertKept(List<Memory> memories) throws IOException {
        Set<String> now = new HashSet<>(fresh().stream().map(Memory::id).toList());
        try (MemoryStore store = open()) {
            for (Memory m : memories) {
                Memory kept = store.get(m.id()).orElseThrow(() -> new AssertionError("lost: " + m.id() + " " + m.provenance()));
                if (now.contains(m.id())) {
                    // Given again: the same memory (a derived one may now come from the new exchange).
                    assertThat(kept.metadata()).doesNotContainKey(SourceState.CHANGED_KEY);
                    assertThat(kept.text()).isEqualTo(m.text());
                    continue;
                }
                assertThat(kept.metadata().get(SourceState.CHANGED_KEY)).as("mark of %s", m.provenance()).isNotBlank();
                Map<String, String> metadata = new TreeMap<>(kept.metadata());
                metadata.remove(SourceState.CHANGED_KEY);
                assertThat(new Memory(kept.id(), kept.kind(), kept.text(), kept.startedAt(), kept.endedAt(), kept.agent(),
                        kept.project(), kept.session(), kept.provenance(), metadata)).isEqualTo(m);
            }
        }
    }

    /** Every memory of {@code before} is found by a search for the start of its text. */
    private void assertFound(List<Memory> before) {
        // Passages are found through their exchange (a hit is a memory with its best passage).
        List<Memory> memories = before.stream().filter(m -> m.kind() != MemoryKind.PASSAGE).toList();
        try (MemoryStore store = open()) {
            for (Memory m : List.of(memories.get(0), memories.get(memories.size() / 2), memories.get(memories.size() - 1))) {
                String query = String.join(" ", Arrays.asList(m.text().strip().split("\\s+")).subList(0,
                        Math.min(12, m.text().strip().split("\\s+").length)));
                List<SearchHit> hits = store.search(SearchRequest.builder(query).limit(20).build());
                assertThat(hits).as("searching %s", query).anyMatch(h -> answers(h, m));
            }
        }
    }

    static boolean answers(SearchHit hit, Memory m) {
        return hit.memory().id().equals(m.id());
    }

    private List<SearchHit> search(String query) {
        try (MemoryStore store = open()) {
            return store.search(SearchRequest.builder(query).limit(10).build());
        }
    }

    private void assertCheckTellsTheKeptMemories(int kept) {
        CheckReport check = FunesStore.check(dir, embedder, false);
        assertThat(check.healthy()).as(check.summary()).isTrue();
        Finding sources = check.findings().stream().filter(f -> f.check().equals("sources")).findFirst().orElseThrow();
        assertThat(sources.status()).isEqualTo(Status.OK);
        assertThat(sources.message()).contains(kept + " of them were read from an earlier version of 1 file");
    }
}
