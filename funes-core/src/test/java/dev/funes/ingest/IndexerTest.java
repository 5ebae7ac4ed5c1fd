package dev.funes.ingest;

import java.util.Optional;
import java.util.Collection;
import dev.funes.StoreStats;
import dev.funes.SessionInfo;
import dev.funes.SearchRequest;
import dev.funes.SearchHit;
import dev.funes.MemoryStore;
import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.SourceState;
import dev.funes.StoreBusyException;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

import static dev.funes.ingest.Records.answer;
import static dev.funes.ingest.Records.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Indexer's own logic: walking, format detection, skipping by checkpoint, batching and
 * failures, against {@link InMemoryStore} (the SQLite store is tested with the Indexer in
 * funes-store).
 */
class IndexerTest {

    private static final Instant NOW = Instant.parse("2025-11-01T12:00:00Z");
    private static final int MAIN_MEMORIES = 7;

    @TempDir
    Path tmp;
    Path projects;
    Path main;
    Path subagent;
    InMemoryStore store;

    /** The sample logs copied into a fresh ~/.claude/projects, with a hidden folder and a non-log file. */
    @BeforeEach
    void copySamples() throws IOException {
        projects = tmp.resolve("projects");
        try (Stream<Path> files = Files.walk(Logs.samples())) {
            for (Path from : files.toList()) {
                Path to = projects.resolve(Logs.samples().relativize(from).toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(from, to);
                }
            }
        }
        main = projects.resolve("-home-dev-acme").resolve(Logs.SESSION + ".jsonl").toRealPath();
        subagent = projects.resolve("-home-dev-acme").resolve(Logs.SESSION).resolve("subagents")
                .resolve("agent-a1b2c3d.jsonl").toRealPath();
        Files.copy(main, Files.createDirectories(projects.resolve(".trash")).resolve("old.jsonl"));
        Files.writeString(projects.resolve("-home-dev-acme").resolve("notes.txt"), "not a log\n");
        store = new InMemoryStore();
    }

    /** Without passages: these tests count exchanges and batches; PassagesTest covers passages. */
    private Indexer.Builder indexer() {
        return Indexer.builder(store).clock(Clock.fixed(NOW, ZoneOffset.UTC)).passages(false);
    }

    /** Records listener calls as strings. */
    private static final class Events implements IndexListener {
        final List<String> seen = new ArrayList<>();

        @Override
        public void filesFound(int total) {
            seen.add("found " + total);
        }

        @Override
        public void fileStarted(Path file, int number, int total) {
            seen.add("start " + number + "/" + total + " " + file.getFileName());
        }

        @Override
        public void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
            seen.add(outcome + " " + file.getFileName() + " " + memories + " +" + stored.added());
        }

        @Override
        public void problem(IndexProblem problem) {
            seen.add("problem " + problem.line() + " " + problem.file().getFileName());
        }
    }

    @Test
    void indexesATreeThenSkipsWhatDidNotChange() throws IOException {
        Events events = new Events();

        IndexReport first = indexer().listener(events).build().index(List.of(projects));

        assertThat(first.filesSeen()).isEqualTo(3); // hidden .trash is not walked
        assertThat(first.filesIndexed()).isEqualTo(2);
        assertThat(first.filesIgnored()).isEqualTo(1);
        assertThat(first.filesUnchanged()).isZero();
        assertThat(first.filesFailed()).isZero();
        assertThat(first.memoriesAdded()).isEqualTo(MAIN_MEMORIES + 1);
        assertThat(first.textsEmbedded()).isEqualTo(MAIN_MEMORIES + 1);
        assertThat(first.recordsSkipped()).isEqualTo(1);
        assertThat(first.problems()).extracting(IndexProblem::line).containsExactly(32L);
        assertThat(events.seen).containsExactly(
                "found 3",
                "start 1/3 5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17.jsonl",
                "problem 32 5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17.jsonl",
                "INDEXED 5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17.jsonl 7 +7",
                "start 2/3 agent-a1b2c3d.jsonl",
                "INDEXED agent-a1b2c3d.jsonl 1 +1",
                "start 3/3 notes.txt",
                "IGNORED notes.txt 0 +0");
        SourceState state = store.sources().get(main);
        assertThat(state.size()).isEqualTo(Files.size(main));
        assertThat(state.indexedBytes()).isEqualTo(Files.size(main));
        assertThat(state.indexedLines()).isEqualTo(36);
        assertThat(state.format()).isEqualTo("claude-code");
        assertThat(state.indexedAt()).isEqualTo(NOW);
        assertThat(state.lastModified()).isEqualTo(Files.getLastModifiedTime(main).toInstant().truncatedTo(java.time.temporal.ChronoUnit.MILLIS));
        assertThat(state.headFingerprint()).matches("4096:[0-9a-f]{32}");
        assertThat(store.sources()).containsKey(subagent);

        int callsBefore = store.calls.size();
        IndexReport second = indexer().build().index(List.of(projects));

        assertThat(second.filesUnchanged()).isEqualTo(2);
        assertThat(second.filesIndexed()).isZero();
        assertThat(second.memoriesAdded()).isZero();
        assertThat(second.problems()).isEmpty();
        assertThat(store.calls).hasSize(callsBefore);
    }

    @Test
    void anAppendedFileIsReadAgainAndOnlyItsNewMemoriesAreAdded() throws java.io.IOException {
        indexer().build().index(List.of(projects));

        Records.append(main, request(900, "and add a test for ShippingClient") + "\n"
                + answer(901, "msg_new", "Added ShippingClientTest.givesUpAfterThreeAttempts.") + "\n");
        IndexReport report = indexer().build().index(List.of(projects));

        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(report.filesUnchanged()).isEqualTo(1);
        assertThat(report.memoriesAdded()).isEqualTo(1);
        // Read on from the exchange that was still open: the earlier ones are not read again.
        assertThat(report.filesResumed()).isEqualTo(1);
        assertThat(report.memoriesUnchanged()).isBetween(1L, MAIN_MEMORIES - 1L);
        assertThat(report.bytesRead()).isLessThan(java.nio.file.Files.size(main));
        assertThat(store.all()).filteredOn(m -> m.text().contains("ShippingClientTest.givesUpAfterThreeAttempts"))
                .singleElement().satisfies(m -> assertThat(m.provenance().lineStart()).isEqualTo(37));
    }

    @Test
    void memoriesGoInBatchesAndTheCheckpointWithTheLastOne() {
        indexer().batchSize(2).build().index(List.of(main));

        assertThat(store.calls).extracting(InMemoryStore.Call::memories).containsExactly(2, 2, 2, 1);
        assertThat(store.calls.subList(0, 3)).allSatisfy(c -> assertThat(c.source()).isNull());
        assertThat(store.calls.get(3).source().path()).isEqualTo(main);
    }

    @Test
    void theFirstBatchesOfACallAreSmallSoThatEmbeddingStartsEarly() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            lines.add(request(2 * i + 1, "request number " + i + " about the shipping client"));
            lines.add(answer(2 * i + 2, "msg_" + i, "answer number " + i + ": retried the call " + i + " times"));
        }
        Path log = Records.write(projects.resolve("long").resolve("s.jsonl"), lines);

        IndexReport report = indexer().classify(false).batchSize(20).build().index(List.of(log, main));

        // 8, then twice as many up to the batch size; the next file goes on at the batch size.
        assertThat(store.calls).extracting(InMemoryStore.Call::memories).containsExactly(8, 16, 20, 16, 7);
        assertThat(report.memoriesAdded()).isEqualTo(60 + MAIN_MEMORIES);
        assertThat(store.calls.get(3).source().path()).isEqualTo(log);
    }

    @Test
    void aFileWithNoMemoryStillGetsItsCheckpoint() throws IOException {
        Path empty = Records.write(projects.resolve("p").resolve("only-snapshots.jsonl"), List.of(Records.snapshot(), Records.snapshot()));

        IndexReport report = indexer().build().index(List.of(empty));

        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(store.calls).singleElement().satisfies(c -> {
            assertThat(c.memories()).isZero();
            assertThat(c.source().indexedBytes()).isEqualTo(Files.size(empty));
        });
        assertThat(indexer().build().index(List.of(empty)).filesUnchanged()).isEqualTo(1);
    }

    @Test
    void aStoreFailureMidFileLeavesNoCheckpointAndTheRetryStoresNothingTwice() {
        store.failOnCall = 2;

        IndexReport failed = indexer().batchSize(2).build().index(List.of(main, subagent));

        assertThat(failed.filesFailed()).isEqualTo(1);
        assertThat(failed.filesIndexed()).isEqualTo(1); // the other file goes on
        assertThat(failed.problems()).extracting(IndexProblem::toString)
                .contains(main + ": could not be stored: disk full (simulated)");
        assertThat(store.sources()).doesNotContainKey(main).containsKey(subagent);
        assertThat(failed.memoriesAdded()).isEqualTo(2 + 1);

        IndexReport retry = indexer().batchSize(2).build().index(List.of(main, subagent));

        assertThat(retry.filesIndexed()).isEqualTo(1);
        assertThat(retry.filesUnchanged()).isEqualTo(1);
        assertThat(retry.memoriesAdded()).isEqualTo(MAIN_MEMORIES - 2);
        assertThat(retry.memoriesUnchanged()).isEqualTo(2);
        assertThat(store.all()).hasSize(MAIN_MEMORIES + 1);
        assertThat(store.sources()).containsKey(main);
    }

    @Test
    void theNextFileIsReadWhileTheStoreWritesTheLastOne() {
        CountDownLatch readingSubagent = new CountDownLatch(1);
        store.beforeSource = file -> {
            if (file.equals(subagent)) {
                readingSubagent.countDown();
            }
        };
        List<Boolean> overlapped = new ArrayList<>();
        store.beforeAdd = batch -> {
            if (overlapped.isEmpty()) {
                // Read one by one, the second file is looked up only after this write returns:
                // the wait then runs out and the test fails.
                try {
                    overlapped.add(readingSubagent.await(30, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    overlapped.add(false);
                }
            }
        };
        Events events = new Events();

        IndexReport report = indexer().listener(events).build().index(List.of(main, subagent));

        assertThat(overlapped).containsExactly(true);
        assertThat(report.filesIndexed()).isEqualTo(2);
        assertThat(report.memoriesAdded()).isEqualTo(MAIN_MEMORIES + 1);
        // The listener still hears each file's events together and in order.
        assertThat(events.seen).containsExactly(
                "found 2",
                "start 1/2 5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17.jsonl",
                "problem 32 5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17.jsonl",
                "INDEXED 5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17.jsonl 7 +7",
                "start 2/2 agent-a1b2c3d.jsonl",
                "INDEXED agent-a1b2c3d.jsonl 1 +1");
    }

    @Test
    void aStoreFailureThatEndsTheRunKeepsEveryCommittedBatchAndTheRetryResumes() {
        store.failOnCall = 2;
        store.failure = () -> new StoreBusyException("the store is busy (simulated)");
        Events events = new Events();

        assertThatThrownBy(() -> indexer().batchSize(2).listener(events).build().index(List.of(main, subagent)))
                .isInstanceOf(StoreBusyException.class);

        // The first batch was committed and stays; nothing after the failed one was written,
        // not even the next file, which was already being read.
        assertThat(store.all()).hasSize(2);
        assertThat(store.sources()).isEmpty();
        assertThat(store.calls).hasSize(2);
        // Whether the reader's problem on line 32 was met before the failure stopped the read depends
        // on the threads; that no file is told finished, and the second not even started, does not.
        assertThat(events.seen).startsWith("found 2", "start 1/2 5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17.jsonl")
                .allMatch(e -> e.startsWith("found") || e.startsWith("start 1/2") || e.startsWith("problem 32"));

        IndexReport retry = indexer().batchSize(2).build().index(List.of(main, subagent));

        assertThat(retry.filesIndexed()).isEqualTo(2);
        assertThat(retry.memoriesAdded()).isEqualTo(MAIN_MEMORIES + 1 - 2);
        assertThat(retry.memoriesUnchanged()).isEqualTo(2);
        assertThat(store.all()).hasSize(MAIN_MEMORIES + 1);
        assertThat(store.sources()).containsKeys(main, subagent);
    }

    @Test
    void aFileStillBeingWrittenIsReadAgainUntilItsLastLineIsComplete() throws IOException {
        Path live = projects.resolve("p").resolve("live.jsonl");
        String second = request(3, "second request");
        Records.write(live, request(1, "first request") + "\n" + answer(2, "msg_a", "first answer") + "\n" + second.substring(0, 30));

        IndexReport first = indexer().build().index(List.of(live));
        SourceState state = store.sources().get(live.toRealPath());

        assertThat(first.filesIndexed()).isEqualTo(1);
        assertThat(first.problems()).isEmpty();
        assertThat(state.indexedBytes()).isLessThan(state.size());
        assertThat(state.indexedLines()).isEqualTo(2);
        assertThat(indexer().build().index(List.of(live)).filesIndexed()).isEqualTo(1);

        Records.append(live, second.substring(30) + "\n");
        IndexReport done = indexer().build().index(List.of(live));

        assertThat(done.memoriesAdded()).isEqualTo(1);
        assertThat(store.sources().get(live.toRealPath()).indexedBytes()).isEqualTo(Files.size(live));
        assertThat(indexer().build().index(List.of(live)).filesUnchanged()).isEqualTo(1);
    }

    @Test
    void aiderHistoriesAreReadThoughTheirNameIsHidden() throws IOException {
        Path project = Files.createDirectories(tmp.resolve("acme-shop"));
        Path history = Files.copy(AiderSampleTest.sample(), project.resolve(".aider.chat.history.md")).toRealPath();
        Files.copy(AiderSampleTest.sample(), Files.createDirectories(project.resolve(".git")).resolve(".aider.chat.history.md"));

        IndexReport report = indexer().build().index(List.of(project));

        assertThat(report.filesSeen()).isEqualTo(1);
        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(store.sources().get(history).format()).isEqualTo("aider");
        assertThat(store.all()).hasSize(4).allSatisfy(m -> assertThat(m.agent()).isEqualTo("aider"));
    }

    @Test
    void aMissingRootIsAProblemAndTheOtherRootsAreIndexed() {
        Path missing = tmp.resolve("no-such-folder");

        IndexReport report = indexer().build().index(List.of(missing, main));

        assertThat(report.problems()).extracting(IndexProblem::toString).contains(missing + ": no such file or folder");
        assertThat(report.filesIndexed()).isEqualTo(1);
    }

    @Test
    void anExplicitFileInNoKnownFormatIsReportedButAnEmptyOneIsNot() throws IOException {
        Path notes = projects.resolve("-home-dev-acme").resolve("notes.txt").toRealPath();
        Path empty = Files.createFile(tmp.resolve("empty.jsonl")).toRealPath();

        IndexReport report = indexer().build().index(List.of(notes, empty));

        assertThat(report.filesIgnored()).isEqualTo(2);
        assertThat(report.problems()).extracting(IndexProblem::toString)
                .containsExactly(notes + ": not in a log format Funes reads (known: claude-code, codex, aider, gemini, cline, openhands, swe-agent, test-notes, generic)");
    }

    @Test
    void aFileReachedTwiceIsReadOnce() {
        IndexReport report = indexer().build().index(List.of(projects, main, projects.resolve("-home-dev-acme")));

        assertThat(report.filesSeen()).isEqualTo(3);
        assertThat(report.filesIndexed()).isEqualTo(2);
    }

    @Test
    void symbolicLinkLoopsAreNotFollowedForever() throws IOException {
        Path loop = projects.resolve("-home-dev-acme").resolve("loop");
        try {
            Files.createSymbolicLink(loop, projects);
        } catch (IOException | UnsupportedOperationException e) {
            assumeTrue(false, "symbolic links not supported here: " + e);
        }

        IndexReport report = indexer().build().index(List.of(projects));

        assertThat(report.filesIndexed()).isEqualTo(2);
        assertThat(report.problems()).extracting(IndexProblem::line).containsExactly(32L);
    }

    @Test
    void aLinkedFolderIsWalkedAndItsFilesKeyedByRealPath() throws IOException {
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
        Path log = Records.write(elsewhere.resolve("s.jsonl"), List.of(request(1, "via a link"), answer(2, "msg_a", "ok")));
        Path link = projects.resolve("linked");
        try {
            Files.createSymbolicLink(link, elsewhere);
        } catch (IOException | UnsupportedOperationException e) {
            assumeTrue(false, "symbolic links not supported here: " + e);
        }

        indexer().build().index(List.of(projects));

        assertThat(store.sources()).containsKey(log.toRealPath());
        assertThat(store.all()).filteredOn(m -> m.text().contains("via a link"))
                .singleElement().satisfies(m -> assertThat(m.provenance().source()).isEqualTo(log.toRealPath()));
    }

    @Test
    void pluginFormatsAreFoundThroughServiceLoaderAndUsedPerFile() throws IOException {
        Path notes = Records.write(projects.resolve("team").resolve("decisions.notes"),
                TestNotesFormat.MAGIC + "\nWe keep SQLite as the source of truth.\n\nJVector is derived.\n");

        assertThat(AgentLogs.formats()).extracting(LogFormat::name).containsExactly("claude-code", "codex", "aider", "gemini", "cline", "openhands", "swe-agent", "test-notes", "generic");
        IndexReport report = indexer().build().index(List.of(projects));

        assertThat(report.filesIndexed()).isEqualTo(3);
        assertThat(store.all()).filteredOn(m -> m.kind() == MemoryKind.NOTE).extracting(Memory::text)
                .containsExactly("We keep SQLite as the source of truth.", "JVector is derived.");
        assertThat(store.sources().get(notes.toRealPath()).format()).isEqualTo("test-notes");
    }

    @Test
    void aFormatThatThrowsFailsOnlyItsFile() {
        LogFormat broken = new LogFormat() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public boolean canRead(Path file, byte[] head) {
                return file.getFileName().toString().startsWith("agent-");
            }

            @Override
            public ParseResult parse(Path file, Consumer<Memory> sink) {
                throw new IllegalStateException("bug in a plug-in");
            }
        };

        IndexReport report = indexer().formats(List.of(broken, AgentLogs.claudeCode())).build().index(List.of(projects));

        assertThat(report.filesFailed()).isEqualTo(1);
        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(report.problems()).extracting(IndexProblem::toString)
                .contains(subagent + ": the broken reader failed: java.lang.IllegalStateException: bug in a plug-in");
    }

    @Test
    void aClosedStoreEndsIndexing() {
        store.close();

        assertThatThrownBy(() -> indexer().build().index(List.of(main))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void builderRejectsBadOptions() {
        assertThatThrownBy(() -> indexer().batchSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> indexer().formats(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> indexer().formats(List.of(AgentLogs.claudeCode(), AgentLogs.claudeCode())))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(indexer().build().formats()).extracting(LogFormat::name).containsExactly("claude-code", "codex", "aider", "gemini", "cline", "openhands", "swe-agent", "test-notes", "generic");
    }

    @Test
    void reportSummaryIsOneLine() {
        IndexReport report = new IndexReport(12, 3, 8, 1, 0, 140, 20, 150, 2, Map.of(),
                List.of(new IndexProblem(tmp, 0, "x")), java.time.Duration.ofMillis(1234), 0, 0, 0, 0, 0, 0, List.of());

        assertThat(report.summary()).isEqualTo("12 files: 3 indexed, 8 unchanged, 1 failed; "
                + "140 memories added, 20 unchanged, 150 embedded; 2 records skipped; 1 problem; 1.2 s");
    }

    @Test
    void aStoreWithoutCheckpointsIsRefusedByName() {
        MemoryStore plain = new MemoryStore() {
            @Override
            public AddResult addAll(Collection<Memory> memories) {
                return store.addAll(memories);
            }

            @Override
            public List<SearchHit> search(SearchRequest request) {
                return store.search(request);
            }

            @Override
            public List<SessionInfo> recentSessions(int limit) {
                return store.recentSessions(limit);
            }

            @Override
            public Optional<Memory> get(String id) {
                return store.get(id);
            }

            @Override
            public boolean delete(String id) {
                return store.delete(id);
            }

            @Override
            public StoreStats stats() {
                return store.stats();
            }

            @Override
            public void close() {
                store.close();
            }
        };
        assertThat(plain.checkpoints()).isEmpty();
        assertThatThrownBy(() -> Indexer.builder(plain).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("source checkpoints").hasMessageContaining("keeps none");
        assertThat(store.checkpoints()).containsSame(store);
    }
}
