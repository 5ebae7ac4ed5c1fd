package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes watch}, {@code funes mcp} and {@code funes search} as separate JVMs on one store,
 * all at once: the watcher tails a log that grows, the MCP server searches and remembers (a second
 * writer) while the watcher writes, and search processes keep reading. Every process must answer
 * and exit cleanly, no lock error may reach anyone, and every reader must see whole commits only.
 *
 * <p>A read of a log stores its memories in batches, each one transaction: the first holds at most
 * 8 memories, so a read that gives more (a resumed read gives an exchange with its passages and
 * derived memories again) commits its new memories first, then deletes the version it replaces,
 * then stores its last batch with the checkpoint. A reader may see any of these commits: what it
 * sees must be a step's state or one on the way from a step's state to the next (all the two
 * share, nothing neither holds), and readers that read one after another never go back.
 */
class ConcurrentProcessesTest {

    private static final Duration PATIENCE = Duration.ofMinutes(3);
    /** A query the appended session's memories all answer (with the session filter, all of them are hits). */
    private static final String QUERY = "instructions tentative CLAUDE.md fix";

    @Test
    void watchMcpAndSearchProcessesShareOneStoreAndReadersSeeWholeCommitsOnly(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isDirectory(CliTest.CLAUDE_FIXTURES),
                "skipped: ../shared/fixtures/claude-code is absent (" + CliTest.CLAUDE_FIXTURES + ")");
        Path logs = Files.createDirectories(tmp.resolve("logs/project"));
        Path log = logs.resolve("session.jsonl");
        Files.copy(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-short.jsonl"), log);
        // The records of another session are appended to the watched log in two steps: the second
        // completes an exchange the first left open, so the watcher replaces a memory it stored.
        List<String> appended = Files.readAllLines(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-tiny.jsonl"));
        String session = HitJson.MAPPER.readTree(appended.get(0)).get("sessionId").asText();
        Path store = tmp.resolve("store");
        String indexedLine = "indexed " + log.toRealPath() + ":";

        List<FunesProcess> all = Collections.synchronizedList(new ArrayList<>());
        try (FunesProcess watch = FunesProcess.start("384m", "watch", "--store", store.toString(),
                "--index-path", logs.toString())) {
            all.add(watch);
            watch.awaitErr(l -> l.startsWith("watching "), PATIENCE);
            try (FunesProcess mcp = FunesProcess.start("384m", "mcp", "--store", store.toString())) {
                all.add(mcp);
                McpStdioClient client = new McpStdioClient(mcp, PATIENCE);
                client.initialize();

                // Readers in other processes, one after another, for as long as the writers write.
                List<Snapshot> snapshots = Collections.synchronizedList(new ArrayList<>());
                AtomicBoolean writing = new AtomicBoolean(true);
                AtomicReference<Throwable> readerFailure = new AtomicReference<>();
                Thread readers = new Thread(() -> {
                    try {
                        for (int runs = 0; writing.get() || runs < 3; runs++) {
                            FunesProcess search = searchProcess(store, session);
                            all.add(search);
                            snapshots.add(new Snapshot("funes search process " + search.pid(), ids(search)));
                        }
                    } catch (Throwable e) {
                        readerFailure.set(e);
                    }
                }, "search-processes");
                readers.start();

                // The log grows in steps (two of them complete an exchange the step before left
                // open, so the watcher replaces a memory it stored); MCP remembers a note at each step
                // while the watcher indexes it, and searches. After the watcher reports the step
                // (its last commit), the session's state is probed: readers see these states, or
                // one on the way from one to the next, in this order.
                List<Set<String>> states = new ArrayList<>(List.of(Set.of()));
                List<JsonNode> notes = new ArrayList<>();
                int[][] steps = {{0, 2}, {2, 4}, {4, 5}, {5, 6}, {6, appended.size()}};
                for (int i = 0; i < steps.length; i++) {
                    append(log, appended.subList(steps[i][0], steps[i][1]));
                    JsonNode note = client.remember(i % 2 == 0 ? "decision" : "note", "Reliability test note " + (i + 1)
                            + ": watch and the MCP server share the store, one writer at a time through write.lock,"
                            + " and a reader never sees half a batch because each batch is one SQLite transaction.");
                    assertThat(note.get("stored").asBoolean()).as(note.toString()).isTrue();
                    notes.add(note);
                    for (int k = 0; k < 3; k++) {
                        snapshots.add(new Snapshot("MCP search_memory", client.searchIds(QUERY, session)));
                    }
                    watch.awaitErr(l -> l.startsWith(indexedLine), PATIENCE);
                    states.add(client.searchIds(QUERY, session));
                }
                Set<String> last = ids(searchProcess(store, session));
                assertThat(last).as("the last state, seen by another process").isEqualTo(states.get(states.size() - 1));
                writing.set(false);
                readers.join(PATIENCE.toMillis());
                assertThat(readers.isAlive()).as("the search processes ended").isFalse();
                if (readerFailure.get() != null) {
                    throw new AssertionError("a search process failed", readerFailure.get());
                }

                Set<String> replaced = new TreeSet<>();
                for (int i = 1; i < states.size() - 1; i++) {
                    replaced.addAll(difference(states.get(i), states.get(i + 1)));
                }
                assertThat(replaced).as("memories of open exchanges replaced by later steps").isNotEmpty();
                // The session also holds what the classifier derived from its exchanges (decisions, lookups).
                Set<String> exchanges = client.searchIds(QUERY, session, "exchange");
                assertThat(exchanges).as("both exchanges at the end").hasSize(2)
                        .doesNotContainAnyElementsOf(replaced);
                assertThat(last).containsAll(exchanges).doesNotContainAnyElementsOf(replaced);
                int lastPosition = 0;
                int processSnapshots = 0;
                synchronized (snapshots) {
                    for (Snapshot s : snapshots) {
                        List<Integer> positions = positions(states, s.ids());
                        assertThat(positions).as("%s saw %s: neither a state of the session %s after a step nor one"
                                + " on the way to the next (%s)", s.who(), s.ids(), session, states).isNotEmpty();
                        if (s.who().startsWith("funes search")) {
                            // One reader thread: its snapshots follow the commits in order.
                            assertThat(positions.get(positions.size() - 1)).as("%s saw %s, went back in time (%s)",
                                    s.who(), s.ids(), states).isGreaterThanOrEqualTo(lastPosition);
                            lastPosition = positions.get(0);
                            processSnapshots++;
                        }
                    }
                }
                assertThat(processSnapshots).as("search processes that ran").isGreaterThanOrEqualTo(3);
                System.out.printf("ConcurrentProcessesTest: %d snapshots (%d by search processes) over %d committed states%n",
                        snapshots.size(), processSnapshots, states.size());

                // Both writers' work is there, through either process.
                JsonNode noteHits = client.search("which process writes the store at a time, write.lock, watch and MCP", null);
                for (JsonNode note : notes) {
                    assertThat(noteHits.toString()).contains(note.get("id").asText());
                }
                mcp.closeStdin();
                assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
            }
            watch.signal("INT"); // Ctrl-C
            watch.awaitErr(l -> l.startsWith("funes watch: stopped;"), PATIENCE);
            assertThat(watch.waitFor(PATIENCE)).as(watch.describe("exit status after Ctrl-C")).isEqualTo(130);
        } finally {
            synchronized (all) {
                for (FunesProcess p : all) {
                    p.close();
                }
            }
        }

        FunesProcess noteSearch = FunesProcess.run(PATIENCE, "384m", "search", "--store", store.toString(), "--json",
                "--kind", "note,decision", "--agent", "reliability-test", "a reader never sees half a batch");
        assertThat(noteSearch.status()).as(noteSearch.describe("search")).isZero();
        assertThat(HitJson.MAPPER.readTree(noteSearch.out())).hasSize(5);
        FunesProcess exchangeSearch = FunesProcess.run(PATIENCE, "384m", "search", "--store", store.toString(), "--json",
                "--session", session, "--limit", "3", "what would you change in the instructions");
        assertThat(exchangeSearch.status()).as(exchangeSearch.describe("search")).isZero();
        assertThat(exchangeSearch.out()).as("the exchange completed by the last append is found")
                .contains("Here's what I'd change");
        FunesProcess check = FunesProcess.run(PATIENCE, "384m", "check", "--store", store.toString());
        assertThat(check.status()).as(check.describe("check")).isZero();

        synchronized (all) {
            for (FunesProcess p : all) {
                assertThat(p.err()).as(p.describe("stderr")).doesNotContainIgnoringCase("locked")
                        .doesNotContain("SQLITE_BUSY").doesNotContain("Exception").doesNotContain("funes: ");
            }
        }
    }

    @Test
    void aSnapshotStandsAtAStepOrOnTheWayToTheNextOnly() {
        // Step 2 replaces b with c and d: stored c first, then deleted b, then stored d.
        List<Set<String>> states = List.of(Set.of(), Set.of("a", "b"), Set.of("a", "c", "d"));
        assertThat(positions(states, Set.of())).containsExactly(0);
        assertThat(positions(states, Set.of("a"))).as("on the way to step 1, or from it to step 2").containsExactly(1, 3);
        assertThat(positions(states, Set.of("a", "b"))).containsExactly(2);
        assertThat(positions(states, Set.of("a", "b", "c"))).containsExactly(3);
        assertThat(positions(states, Set.of("a", "c"))).containsExactly(3);
        assertThat(positions(states, Set.of("a", "c", "d"))).containsExactly(4);
        assertThat(positions(states, Set.of("c", "d"))).as("a memory both steps hold is missing").isEmpty();
        assertThat(positions(states, Set.of("a", "c", "d", "e"))).as("a memory no step holds").isEmpty();
    }

    private record Snapshot(String who, Set<String> ids) {
    }

    /**
     * Where {@code ids} stands among the states after the steps, in order: {@code 2i} if it is
     * state {@code i}, {@code 2i + 1} if it lies strictly between state {@code i} and the next
     * (holds all the two share and nothing neither holds). Empty if it is none of these.
     */
    static List<Integer> positions(List<Set<String>> states, Set<String> ids) {
        List<Integer> positions = new ArrayList<>();
        for (int i = 0; i < states.size(); i++) {
            if (states.get(i).equals(ids)) {
                positions.add(2 * i);
            }
            if (i + 1 < states.size() && !states.get(i + 1).equals(ids)) {
                Set<String> both = new TreeSet<>(states.get(i));
                both.retainAll(states.get(i + 1));
                Set<String> either = new TreeSet<>(states.get(i));
                either.addAll(states.get(i + 1));
                if (!states.get(i).equals(ids) && ids.containsAll(both) && either.containsAll(ids)) {
                    positions.add(2 * i + 1);
                }
            }
        }
        return positions;
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> rest = new TreeSet<>(a);
        rest.removeAll(b);
        return rest;
    }

    /** Appends whole lines in one write, as an agent appends records. */
    static void append(Path log, List<String> lines) throws IOException {
        byte[] bytes = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(log, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        }
    }

    private static FunesProcess searchProcess(Path store, String session) throws IOException, InterruptedException {
        return FunesProcess.run(PATIENCE, "384m", "search", "--store", store.toString(), "--json",
                "--session", session, "--limit", "50", QUERY);
    }

    /** The memory ids a {@code funes search --json} process printed; it must have succeeded. */
    private static Set<String> ids(FunesProcess search) throws IOException {
        assertThat(search.status()).as(search.describe("search")).isZero();
        Set<String> ids = new TreeSet<>();
        for (JsonNode hit : HitJson.MAPPER.readTree(search.out())) {
            ids.add(hit.get("id").asText());
        }
        return ids;
    }
}
