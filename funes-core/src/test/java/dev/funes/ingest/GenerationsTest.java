package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Memory;
import dev.funes.SourceState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

import static dev.funes.ingest.Growth.assertSameAsFresh;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Logs read from the beginning each time (whole documents their agent rewrites: Gemini, Cline;
 * a JSON Lines log whose only exchange is still open), on the real logs of the shared fixtures:
 * a document that grew replaces only the exchange that was being written ({@link Continuation}),
 * however it was written (in place, or renamed over the old one); another document at the same
 * path is a new generation, whose predecessor's memories all stay, marked. The store side of
 * keeping and marking is tested with the real store in funes-store ({@code LogGenerationsTest}).
 */
class GenerationsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tmp;

    /** A Gemini session saved after a request, then after its answer and more: the request-only exchange is replaced. */
    @Test
    void aGrowingGeminiSessionReplacesOnlyItsOpenExchange() throws IOException {
        ObjectNode doc = (ObjectNode) JSON.readTree(Logs.fixtures("gemini")
                .resolve("codemie-session-2025-12-01T21-45-5b959dae.json").toFile());
        Path file = tmp.resolve("session-2025-12-01T21-45-5b959dae.json");
        // Cut after the third request: the agent has not answered it yet.
        Files.writeString(file, gemini(doc, requestCut(doc.get("messages"), "type", 3)));
        file = file.toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        assertThat(Continuation.parse(store.source(file).orElseThrow().resume())).isNotNull();

        // Gemini CLI saves by writing a new file over the old one: another inode, same session.
        Path next = Files.writeString(tmp.resolve("next.json"), gemini(doc, doc.get("messages").size()));
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING);
        IndexReport report = indexer.index(List.of(file));

        assertThat(report.memoriesReplaced()).as("the request-only version of the exchange").isPositive();
        assertThat(report.changedFiles()).isEmpty();
        assertThat(report.earlierMemoriesKept()).isZero();
        assertSameAsFresh(store, file);
        assertThat(store.all()).noneMatch(m -> m.metadata().containsKey(SourceState.CHANGED_KEY));
    }

    /** Another Gemini session written at the path: every memory of the first stays, marked; the second's are stored. */
    @Test
    void anotherGeminiSessionAtThePathKeepsTheFirst() throws IOException {
        Path file = Files.copy(Logs.fixtures("gemini").resolve("codemie-session-2025-12-01T21-45-5b959dae.json"),
                tmp.resolve("session.json")).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        List<Memory> before = store.all();

        Files.copy(Logs.fixtures("gemini").resolve("codemie-session-2026-01-16T11-01-file-ops-37b7abef.json"), file,
                StandardCopyOption.REPLACE_EXISTING);
        IndexReport report = indexer.index(List.of(file));
        Growth.assertNewGeneration(store, file, before, report);
    }

    /**
     * Two sessions of one request each, the second written over the first: the first session's
     * only exchange starts at the same byte as the second's, and nothing precedes either, but it
     * is another session at another time, so it is not the exchange the first read left open.
     */
    @Test
    void anotherOneRequestSessionAtThePathIsNotTakenForItsContinuation() throws IOException {
        ObjectNode a = (ObjectNode) JSON.readTree(Logs.fixtures("gemini")
                .resolve("codemie-session-2025-12-01T21-45-5b959dae.json").toFile());
        ObjectNode b = (ObjectNode) JSON.readTree(Logs.fixtures("gemini")
                .resolve("codemie-session-2026-01-16T11-01-file-ops-37b7abef.json").toFile());
        Path file = Files.writeString(tmp.resolve("session.json"), gemini(a, 2)).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        List<Memory> before = store.all();
        Continuation c = Continuation.parse(store.source(file).orElseThrow().resume());
        assertThat(c).isNotNull();

        Files.writeString(file, gemini(b, 2));
        IndexReport report = indexer.index(List.of(file));
        assertThat(store.all()).filteredOn(m -> m.kind() == dev.funes.MemoryKind.EXCHANGE)
                .anyMatch(m -> m.provenance().byteStart() == c.bound() && !before.contains(m));
        Growth.assertNewGeneration(store, file, before, report);
    }

    /**
     * A Gemini session cut back to its first exchange with the same session and time (a restore
     * to an earlier point): the continuation does not hold (what came before the last exchange
     * is not given again), so nothing is replaced; what the file no longer gives stays, marked.
     */
    @Test
    void aGeminiSessionCutBackKeepsWhatItNoLongerGives() throws IOException {
        ObjectNode doc = (ObjectNode) JSON.readTree(Logs.fixtures("gemini")
                .resolve("codemie-session-2026-01-16T11-01-file-ops-37b7abef.json").toFile());
        Path file = Files.writeString(tmp.resolve("session.json"), gemini(doc, doc.get("messages").size())).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        List<Memory> before = store.all();

        Files.writeString(file, gemini(doc, requestCut(doc.get("messages"), "type", 2) + 1));
        IndexReport report = indexer.index(List.of(file));
        Growth.assertNewGeneration(store, file, before, report);
    }

    /** A Cline task's history (one line of JSON, rewritten as the task goes on) that grew: nothing is marked. */
    @Test
    void aGrowingClineHistoryMarksNothing() throws IOException {
        Path task = Logs.fixtures("cline").resolve("online-card-architecture-1769053680585");
        Path dir = Files.createDirectories(tmp.resolve("tasks").resolve(task.getFileName().toString()));
        for (String name : List.of("task_metadata.json", "ui_messages.json")) {
            Files.copy(task.resolve(name), dir.resolve(name));
        }
        ArrayNode messages = (ArrayNode) JSON.readTree(task.resolve("api_conversation_history.json").toFile());
        Path file = dir.resolve("api_conversation_history.json");
        Files.writeString(file, JSON.writeValueAsString(first(messages, requestCut(messages, "role", 20))));
        file = file.toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        IndexReport first = indexer.index(List.of(file));
        assertThat(first.filesIndexed()).isEqualTo(1);
        assertThat(store.all()).isNotEmpty();

        Files.writeString(file, JSON.writeValueAsString(messages));
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(report.changedFiles()).isEmpty();
        assertSameAsFresh(store, file);
    }

    /**
     * A JSON Lines log with no resume point (it begins in the middle of an agent's run: its first
     * exchange has no request), cut back inside that exchange, past its first 4 KiB: same first
     * bytes, same session, time and line for the exchange, but a truncation, not a continuation.
     * The longer version stays, marked.
     */
    @Test
    void aLogWithoutAResumePointTruncatedKeepsTheLongerVersion() throws IOException {
        byte[] large = Files.readAllBytes(Logs.fixtures("claude-code").resolve("episodic-memory-large.jsonl"));
        Path file = Files.write(tmp.resolve("s.jsonl"), java.util.Arrays.copyOf(large, lineEnd(large, 11))).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        assertThat(Continuation.parse(store.source(file).orElseThrow().resume())).isNotNull();
        List<Memory> before = store.all();

        assertThat(lineEnd(large, 8)).isGreaterThan(FileSnapshot.FINGERPRINT_BYTES);
        Files.write(file, java.util.Arrays.copyOf(large, lineEnd(large, 8)));
        IndexReport report = indexer.index(List.of(file));
        Growth.assertNewGeneration(store, file, before, report);
    }

    /** The continuation a checkpoint keeps reads back as written; a resume point's text is not one. */
    @Test
    void aContinuationReadsBackAndIsToldFromAResumePoint() {
        Continuation c = new Continuation(1234, "ab".repeat(16), "cd".repeat(16), List.of("id1", "id2"));
        assertThat(Continuation.parse(c.toText())).isEqualTo(c);
        assertThat(Continuation.isOne(c.toText())).isTrue();
        String token = new Resume.Token(new Resume.Point(10, 2, null), null, new Resume.Check(10, 5, 7), List.of("x"))
                .toText();
        assertThat(Continuation.isOne(token)).isFalse();
        assertThat(Continuation.parse(token)).isNull();
        assertThat(Continuation.parse("")).isNull();
        assertThat(Continuation.parse("{\"v\":1,\"bound\":\"x\"}")).isNull();
        assertThat(Continuation.parse("{\"v\":99,\"bound\":1,\"before\":\"a\",\"anchor\":\"b\",\"tail\":[]}")).isNull();
    }

    /** The report names what changed, and counts every memory removed. */
    @Test
    void theSummaryNamesChangedFilesAndCountsWhatWasRemoved() {
        IndexReport report = new IndexReport(7, 3, 4, 0, 0, 12, 1, 12, 0, Map.of(), List.of(),
                java.time.Duration.ofMillis(1500), 1, 0, 0, 2, 5, 41,
                List.of(Path.of("/a/1.jsonl"), Path.of("/a/2.jsonl"), Path.of("/a/3.jsonl"), Path.of("/a/4.jsonl"),
                        Path.of("/a/5.jsonl"), Path.of("/a/6.jsonl"), Path.of("/a/7.jsonl")));
        assertThat(report.summary()).isEqualTo("7 files: 3 indexed, 4 unchanged, 0 failed, 1 skipped by request;"
                + " 12 memories added, 1 unchanged, 12 embedded; 7 files changed since they were read, their 41"
                + " earlier memories kept: /a/1.jsonl, /a/2.jsonl, /a/3.jsonl, /a/4.jsonl, /a/5.jsonl and 2 more;"
                + " 2 memories replaced by their newer version; 5 memories removed by request; 0 records skipped;"
                + " 0 problems; 1.5 s");
        IndexReport one = new IndexReport(1, 1, 0, 0, 0, 4, 0, 4, 0, Map.of(), List.of(), java.time.Duration.ZERO,
                0, 0, 0, 1, 0, 1, List.of(Path.of("/ix/s.jsonl")));
        assertThat(one.summary()).contains("4 embedded; 1 file changed since it was read, its 1 earlier memory kept:"
                + " /ix/s.jsonl; 1 memory replaced by their newer version; 0 records");
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** The number of messages up to and including the {@code n}-th whose {@code field} is {@code user}. */
    private static int requestCut(JsonNode messages, String field, int n) {
        int seen = 0;
        for (int i = 0; i < messages.size(); i++) {
            if ("user".equals(messages.get(i).path(field).asText()) && ++seen == n) {
                return i + 1;
            }
        }
        throw new AssertionError("fewer than " + n + " requests");
    }

    /** The offset just past the {@code n}-th newline. */
    private static int lineEnd(byte[] bytes, int n) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n' && --n == 0) {
                return i + 1;
            }
        }
        return bytes.length;
    }

    private static ArrayNode first(ArrayNode messages, int n) {
        ArrayNode out = JSON.createArrayNode();
        for (int i = 0; i < n; i++) {
            out.add(messages.get(i));
        }
        return out;
    }

    /** The session with its first {@code n} messages, written as Gemini CLI writes it (indented). */
    private static String gemini(ObjectNode doc, int n) throws IOException {
        ObjectNode copy = doc.deepCopy();
        copy.set("messages", first((ArrayNode) doc.get("messages"), n));
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(copy);
    }
}
