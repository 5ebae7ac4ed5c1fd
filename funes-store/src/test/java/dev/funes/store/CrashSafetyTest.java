package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.CheckReport.Finding;
import dev.funes.store.CheckReport.Status;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash-safety harness: a child JVM ({@link CrashChild}) indexes real logs with the real
 * indexer, model and store, and is killed with SIGKILL at a random moment (during start-up, model
 * loading and store opening, between and inside batches, while the ANN index is rewritten, or
 * while the store closes). Then the store must pass {@link FunesStore#check} as it was left, open,
 * hold every memory and checkpoint the child reported committed, and pass the check again after
 * closing, with an ANN index that agrees with SQLite.
 *
 * <p>Trials follow each other on one store, each resuming the indexing the last one left, until
 * a child finishes; then a new store starts. {@code -Dfunes.crash.trials=N} (default 6),
 * {@code -Dfunes.crash.seed=S} (default: random, printed), {@code -Dfunes.crash.window.ms=W}
 * (kills land up to W ms after the store opened; default 6000). docs/RELIABILITY.md has results.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CrashSafetyTest {

    private static final Path SHARED = Path.of(System.getProperty("funes.shared.dir", "../../shared"));
    private static final Path CLAUDE_FIXTURES = SHARED.resolve("fixtures/claude-code");
    private static final Path SAMPLE = Path.of("../examples/demo-session/sample-session.jsonl");
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final int BATCH_SIZE = 3;
    private static final int FRESH_LIMIT = 6;

    private Embedder embedder;

    @BeforeAll
    void loadModel() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    /** What one trial saw. */
    private record Trial(int number, String phase, int batches, boolean indexWriteCut, boolean indexRebuilt,
                         String indexReason) {
    }

    @Test
    void killedIndexersLoseNothingTheyCommittedAndLeaveAStoreThatChecksHealthy(@TempDir Path tmp) throws Exception {
        int trials = Integer.getInteger("funes.crash.trials", 6);
        long seed = Long.getLong("funes.crash.seed", System.nanoTime());
        int window = Integer.getInteger("funes.crash.window.ms", 4000);
        List<Path> logs = logs(tmp);
        System.out.printf("crash harness: %d trials, seed %d, window %d ms, batch size %d, logs %s%n",
                trials, seed, window, BATCH_SIZE, logs.stream().map(p -> p.toAbsolutePath().normalize()).toList());
        Random random = new Random(seed);

        List<Trial> done = new ArrayList<>();
        Path store = null;
        Set<String> committed = new LinkedHashSet<>();
        Set<Path> checkpointed = new LinkedHashSet<>();
        for (int t = 1; t <= trials; t++) {
            if (store == null) {
                store = tmp.resolve("store-" + t);
                committed.clear();
                checkpointed.clear();
            }
            String context = "trial " + t + " of seed " + seed + " (-Dfunes.crash.seed=" + seed + ")";
            List<String> command = new ArrayList<>(List.of(store.toString(), String.valueOf(BATCH_SIZE),
                    String.valueOf(FRESH_LIMIT)));
            logs.forEach(p -> command.add(p.toString()));
            String phase;
            int batches = 0;
            Set<Path> tempsBefore = indexTempFiles(store);
            try (ChildJvm child = ChildJvm.start(CrashChild.class, tmp.resolve("child-" + t + ".err"),
                    command.toArray(String[]::new))) {
                boolean early = random.nextInt(100) < 15; // during JVM start, model loading, store opening
                if (!early) {
                    child.await("READY", PATIENCE);
                }
                Thread.sleep(random.nextInt(early ? 3000 : window));
                child.kill();
                List<String> lines = child.rest();
                String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
                phase = lines.contains("DONE") ? "after finishing"
                        : lines.stream().anyMatch(l -> l.startsWith("INDEXED")) ? "while closing"
                        : last.equals("ADDING") ? "inside addAll"
                        : last.startsWith("COMMITTED") ? "between batches"
                        : !early || lines.contains("READY") ? "before the first batch"
                        : "during start-up";
                for (String line : lines) {
                    if (line.startsWith("COMMITTED\t")) {
                        batches++;
                        String[] parts = line.split("\t");
                        if (!parts[1].equals("-")) {
                            committed.addAll(List.of(parts[1].split(",")));
                        }
                        if (!parts[2].equals("-")) {
                            checkpointed.add(Path.of(parts[2]));
                        }
                    }
                }
            }
            Set<Path> temps = indexTempFiles(store);
            temps.removeAll(tempsBefore);
            boolean cut = !temps.isEmpty();
            Trial trial = verify(t, store, phase, batches, cut, committed, checkpointed, context);
            done.add(trial);
            System.out.printf("trial %d: killed %s%s, %d batches committed in this run; %d memories committed so far;"
                    + " index %s%n", t, phase, cut ? " (cutting an index write)" : "", batches, committed.size(),
                    !Files.exists(store.resolve(SqliteMemoryStore.DATABASE_FILE)) ? "absent, no database yet"
                            : trial.indexRebuilt() ? "rebuilt at open (" + trial.indexReason() + ")" : "loaded at open");
            if (phase.equals("after finishing")) {
                store = null; // that store is complete: the next trial starts a new one
            }
        }
        System.out.printf("crash harness: %d trials, 0 failures (seed %d): killed %d during start-up, %d before the first"
                + " batch, %d inside addAll, %d between batches, %d while closing, %d after finishing; %d cut an index"
                + " write; %d index rebuilds at open%n", done.size(), seed, count(done, "during start-up"),
                count(done, "before the first batch"), count(done, "inside addAll"),
                count(done, "between batches"), count(done, "while closing"), count(done, "after finishing"),
                done.stream().filter(Trial::indexWriteCut).count(), done.stream().filter(Trial::indexRebuilt).count());
    }

    private static long count(List<Trial> trials, String phase) {
        return trials.stream().filter(d -> d.phase().equals(phase)).count();
    }

    /** Temporary index files: a new one after a kill means the kill cut the writing of a segment or manifest. */
    private static Set<Path> indexTempFiles(Path store) throws IOException {
        Path index = store.resolve(StoreIndex.DIR);
        if (!Files.isDirectory(index)) {
            return new LinkedHashSet<>();
        }
        try (Stream<Path> files = Files.list(index)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".tmp"))
                    .collect(java.util.stream.Collectors.toCollection(LinkedHashSet::new));
        }
    }

    private Trial verify(int t, Path store, String phase, int batches, boolean cut, Set<String> committed,
                         Set<Path> checkpointed, String context) {
        if (!Files.exists(store.resolve(SqliteMemoryStore.DATABASE_FILE))) {
            assertThat(committed).as(context + ": no database, so nothing may have been committed").isEmpty();
            return new Trial(t, phase, batches, cut, false, null);
        }
        // As the kill left it: SQLite is transactional and the index file is replaced atomically,
        // so nothing may be wrong even before the store is opened again.
        CheckReport before = FunesStore.check(store, embedder, false);
        assertThat(before.problems()).as(context + ": check right after the kill: " + before).isEmpty();

        boolean rebuilt;
        String reason;
        try (MemoryStore reopened = FunesStore.open(store, embedder)) {
            OpenReport report = FunesStore.openReport(reopened);
            rebuilt = report.indexRebuilt();
            reason = report.indexReason();
            for (String id : committed) {
                assertThat(reopened.get(id)).as(context + ": memory " + id + " was reported committed").isPresent();
            }
            for (Path log : checkpointed) {
                assertThat(reopened.checkpoints().orElseThrow().source(log)).as(context + ": checkpoint of " + log).isPresent();
            }
            if (!committed.isEmpty()) {
                assertThat(reopened.search(SearchRequest.of("why did the tests fail"))).isNotEmpty();
                assertThat(reopened.stats().memories()).isGreaterThanOrEqualTo(committed.size());
            }
        }
        CheckReport after = FunesStore.check(store, embedder, false);
        assertThat(after.findings()).as(context + ": check after reopening and closing: " + after)
                .allSatisfy(f -> assertThat(f.status()).isEqualTo(Status.OK));
        Finding ann = after.findings().stream().filter(f -> f.check().equals("ann")).findFirst().orElseThrow();
        assertThat(ann.message()).as(context + ": the index covers every vector once closed")
                .contains(committed.isEmpty() ? "" : "holds").doesNotContain("newer");
        return new Trial(t, phase, batches, cut, rebuilt, reason);
    }

    /** The Claude Code fixtures when present; else the project's sample, copied under several session ids. */
    private static List<Path> logs(Path tmp) throws IOException {
        if (Files.isDirectory(CLAUDE_FIXTURES)) {
            try (Stream<Path> files = Files.list(CLAUDE_FIXTURES)) {
                return files.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList();
            }
        }
        System.out.println("crash harness: " + CLAUDE_FIXTURES + " is absent; using copies of " + SAMPLE);
        String sample = Files.readString(SAMPLE, StandardCharsets.UTF_8);
        String session = "5f0c2b9e-3d4a-4e8b-9c1d-7a6b5c4d3e2f";
        assertThat(sample).contains(session);
        Path dir = Files.createDirectories(tmp.resolve("logs"));
        List<Path> logs = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String id = String.format("5f0c2b9e-3d4a-4e8b-9c1d-%012d", i);
            Path copy = dir.resolve(id + ".jsonl");
            Files.writeString(copy, sample.replace(session, id), StandardCharsets.UTF_8);
            logs.add(copy);
        }
        return List.of(dir);
    }
}
