package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers that cannot take the store's write lock, because another process holds it past their
 * timeout (10 s): each gives up with a clear error naming the holder, nothing is lost, and the
 * watcher tries again by itself. All are separate processes.
 */
class BusyStoreTest {

    private static final Duration PATIENCE = Duration.ofMinutes(3);

    @Test
    void writersGiveUpNamingTheHolderAndTheWatcherTriesAgainOnceItIsGone(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isDirectory(CliTest.CLAUDE_FIXTURES),
                "skipped: ../shared/fixtures/claude-code is absent (" + CliTest.CLAUDE_FIXTURES + ")");
        Path store = tmp.resolve("store");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path log = logs.resolve("session.jsonl");
        Files.copy(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-short.jsonl"), log);
        Path others = Files.createDirectories(tmp.resolve("others"));
        for (String name : List.of("episodic-memory-tiny.jsonl", "episodic-memory-medium.jsonl")) {
            Files.copy(CliTest.CLAUDE_FIXTURES.resolve(name), others.resolve(name));
        }
        String indexedLine = "indexed " + log.toRealPath() + ":";
        String noteText = "Busy store test: writers give up after the lock timeout and say who holds the lock.";

        try (FunesProcess watch = FunesProcess.start("384m", "watch", "--store", store.toString(),
                "--index-path", logs.toString());
             FunesProcess mcp = startMcpWhenWatching(watch, store)) {
            McpStdioClient client = new McpStdioClient(mcp, PATIENCE);
            client.initialize();
            try (FunesProcess holder = FunesProcess.startMain(LockHolderMain.class, "64m", store.toString())) {
                holder.awaitOut("LOCKED"::equals, PATIENCE);
                String named = "is being written by another process: pid " + holder.pid() + ", command "
                        + LockHolderMain.class.getName() + ", doing holding the lock for a test";

                ConcurrentProcessesTest.append(log, Files.readAllLines(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-tiny.jsonl")));
                FunesProcess index = FunesProcess.start("384m", "index", "--store", store.toString(),
                        "--index-path", others.toString());
                ObjectNode note = HitJson.MAPPER.createObjectNode().put("kind", "decision")
                        .put("text", noteText);
                JsonNode refused = client.callRaw("remember", note);
                assertThat(refused.path("isError").asBoolean()).as(refused.toString()).isTrue();
                assertThat(refused.toString()).contains("remember: the store " + store).contains(named)
                        .contains("gave up after waiting 10 s");

                // Two files to index, one wait: the index gives up at the first, with one clear error.
                assertThat(index.waitFor(PATIENCE)).as(index.describe("exit status")).isEqualTo(1);
                assertThat(index.err()).as(index.describe("stderr")).contains("funes: the store " + store + " " + named);
                assertThat(index.err().split("gave up after waiting", -1)).as(index.describe("one wait")).hasSize(2);

                watch.awaitErr(l -> l.contains("trying again in"), PATIENCE);
                assertThat(watch.err()).contains("funes watch: the store " + store + " " + named);
                holder.send("");
                holder.awaitOut("RELEASED"::equals, PATIENCE);
            }

            // Once the lock is free: the watcher indexes the change it could not store, by itself.
            watch.awaitErr(l -> l.startsWith(indexedLine), PATIENCE);
            assertThat(client.remember("decision", noteText).get("stored").asBoolean()).isTrue();
            JsonNode hits = client.search("what would you change in the instructions", null);
            // The answer's passage, from the file the watcher indexed once the lock was free.
            assertThat(hits.toString()).contains("I'd suggest these changes to your CLAUDE.md");
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
            watch.signal("INT");
            assertThat(watch.waitFor(PATIENCE)).as(watch.describe("exit status after Ctrl-C")).isEqualTo(130);
        }

        FunesProcess index = FunesProcess.run(PATIENCE, "384m", "index", "--store", store.toString(),
                "--index-path", others.toString());
        assertThat(index.status()).as(index.describe("exit status")).isZero();
        FunesProcess check = FunesProcess.run(PATIENCE, "384m", "check", "--store", store.toString());
        assertThat(check.status()).as(check.describe("check")).isZero();
    }

    private static FunesProcess startMcpWhenWatching(FunesProcess watch, Path store) throws Exception {
        watch.awaitErr(l -> l.startsWith("watching "), PATIENCE);
        return FunesProcess.start("384m", "mcp", "--store", store.toString());
    }
}
