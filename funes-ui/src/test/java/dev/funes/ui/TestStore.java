package dev.funes.ui;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real store for the page's tests: the real model, a real Claude Code log of the shared fixtures
 * ({@code ../shared/fixtures}, the CI-debugging session of 2025-09-19) and a few small logs these
 * tests write in Claude Code's format: one whose text holds HTML and a script, one to forget, one
 * deleted after indexing.
 */
final class TestStore implements AutoCloseable {

    static final Path FIXTURES = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures");
    static final Path TINY = FIXTURES.resolve("claude-code/episodic-memory-tiny.jsonl");
    /** The session of episodic-memory-tiny.jsonl. */
    static final String TINY_SESSION = "67a8478e-78dc-44ab-82ea-f65c8ead85f6";

    static final String HOSTILE_SESSION = "0badc0de-0000-4000-8000-000000000001";
    static final String DOOMED_SESSION = "d00md00m-0000-4000-8000-000000000002";
    static final String VANISHED_SESSION = "9011e000-0000-4000-8000-000000000003";
    /** What the hostile log's user wrote: markup a page must show as text. */
    static final String HOSTILE_TEXT = "Why does the banner print <script>document.title='pwned'</script> and "
            + "<img src=x onerror=\"document.title='pwned'\"> in the zebra-quartz widget?";

    final Embedder embedder;
    final MemoryStore store;
    final Path dir;
    final Path vanishedLog;

    private TestStore(Embedder embedder, MemoryStore store, Path dir, Path vanishedLog) {
        this.embedder = embedder;
        this.store = store;
        this.dir = dir;
        this.vanishedLog = vanishedLog;
    }

    /** Indexes the logs into {@code tmp/store}; skips the calling test class when the fixtures are absent. */
    static TestStore build(Path tmp) throws IOException {
        assumeTrue(Files.isRegularFile(TINY), "skipped: " + TINY + " is absent (../shared/fixtures)");
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path hostile = write(logs.resolve("hostile.jsonl"), HOSTILE_SESSION, "/home/dev/zebra",
                HOSTILE_TEXT, "The banner template interpolates the title unescaped; escape it with the template's filter.");
        Path doomed = write(logs.resolve("doomed.jsonl"), DOOMED_SESSION, "/home/dev/quokka",
                "Should the quokka importer retry on HTTP 503 from the ledger service?",
                "Yes: retry 503 with exponential backoff, at most five times, then park the batch.");
        Path vanished = write(logs.resolve("vanished.jsonl"), VANISHED_SESSION, "/home/dev/walrus",
                "Where did the walrus migration script put the backup of the orders table?",
                "It copies orders to orders_backup_2025 before altering the column.");
        Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
        Path dir = tmp.resolve("store");
        MemoryStore store = FunesStore.open(dir, embedder);
        try {
            Indexer.builder(store).build().index(List.of(TINY, hostile, doomed, vanished));
        } catch (RuntimeException e) {
            store.close();
            embedder.close();
            throw e;
        }
        Files.delete(vanished);
        return new TestStore(embedder, store, dir, vanished);
    }

    /** A Claude Code log of one exchange: the user's request and the assistant's answer. */
    static Path write(Path file, String session, String cwd, String user, String assistant) throws IOException {
        List<String> lines = new ArrayList<>();
        String common = "\"isSidechain\": false, \"userType\": \"external\", \"cwd\": " + json(cwd) + ", \"sessionId\": "
                + json(session) + ", \"version\": \"2.0.5\", \"gitBranch\": \"main\"";
        String u1 = session.substring(0, 8) + "-0000-4000-8000-000000000001";
        String u2 = session.substring(0, 8) + "-0000-4000-8000-000000000002";
        lines.add("{\"parentUuid\": null, " + common + ", \"type\": \"user\", \"message\": {\"role\": \"user\", \"content\": "
                + json(user) + "}, \"uuid\": \"" + u1 + "\", \"timestamp\": \"2025-10-14T09:12:03.120Z\"}");
        lines.add("{\"parentUuid\": \"" + u1 + "\", " + common + ", \"type\": \"assistant\", \"message\": {\"id\": \"msg_"
                + session.substring(0, 8) + "\", \"type\": \"message\", \"role\": \"assistant\", \"model\": \"claude-sonnet-4-5\","
                + " \"content\": [{\"type\": \"text\", \"text\": " + json(assistant) + "}]}, \"uuid\": \"" + u2
                + "\", \"timestamp\": \"2025-10-14T09:12:09.450Z\", \"requestId\": \"req_1\"}");
        return Files.write(file, lines, StandardCharsets.UTF_8);
    }

    private static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    @Override
    public void close() {
        store.close();
        embedder.close();
    }
}
