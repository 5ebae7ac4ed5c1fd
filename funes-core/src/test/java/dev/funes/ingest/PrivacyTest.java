package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static dev.funes.ingest.Records.answer;
import static dev.funes.ingest.Records.bash;
import static dev.funes.ingest.Records.request;
import static dev.funes.ingest.Records.result;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code <private>} spans, the {@code funes:ignore} marker and Funes' own outputs, on Claude
 * Code logs and Codex rollouts written here, through the real readers and the Indexer.
 */
class PrivacyTest {

    @TempDir
    Path tmp;

    private static String texts(List<Memory> memories) {
        return memories.stream().map(Memory::text).collect(Collectors.joining("\n---\n"));
    }

    @Test
    void stripDropsSpansAndAnUnclosedTail() {
        assertThat(Privacy.strip("a <private>x</private> b <PRIVATE>y</Private> c")).isEqualTo("a  b  c");
        assertThat(Privacy.strip("keep <private>secret to the end")).isEqualTo("keep ");
        assertThat(Privacy.strip("only </private> a closing tag")).isEqualTo("only </private> a closing tag");
        assertThat(Privacy.strip("nothing private")).isEqualTo("nothing private");
        assertThat(Privacy.strip(null)).isNull();
    }

    @Test
    void claudeCodePrivateSpansNeverReachMemories() {
        Path file = Records.write(tmp.resolve("p/s.jsonl"), List.of(
                request(1, "Deploy with token <private>hunter2-TOKEN</private> to staging please"),
                answer(2, "msg_1", "Deploying now. <private>the password is swordfish"),
                bash(3, "msg_2", "tu_1", "echo <private>AKIA-SECRET</private> done"),
                result(4, "tu_1", "done <private>OUTPUT-SECRET</private> ok", false),
                answer(5, "msg_3", "Deployed to staging.")));
        String all = texts(Logs.parse(file).memories());
        assertThat(all).contains("Deploy with token", "to staging please", "Deploying now.", "Deployed to staging.", "echo")
                .doesNotContain("hunter2", "swordfish", "AKIA", "OUTPUT-SECRET", "private>");
    }

    @Test
    void codexPrivateSpansNeverReachMemories() {
        Path file = Records.write(tmp.resolve("rollout-2025-08-20T14-00-00-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"),
                List.of(codexMeta(),
                        codexMessage("user", "input_text", "Rotate the key <private>sk-live-123</private> today"),
                        codexMessage("assistant", "output_text", "Rotated. <private>new key sk-live-456"),
                        codexMessage("user", "input_text", "Thanks, next question")));
        String all = texts(Logs.parse(AgentLogs.codex(), file).memories());
        assertThat(all).contains("Rotate the key", "today", "Rotated.", "next question")
                .doesNotContain("sk-live", "private>");
    }

    @Test
    void claudeCodeSelfReferenceKeepsAMentionButNotTheOutput() {
        Path file = Records.write(tmp.resolve("p/s.jsonl"), List.of(
                request(1, "What did we decide about the cache?"),
                bash(2, "msg_1", "tu_1", "funes search --limit 5 'cache eviction'"),
                result(3, "tu_1", "1. RECALLED-MEMORY-TEXT about LRU eviction", false),
                selfMcp(4, "msg_2", "tu_2", "mcp__funes__why"),
                result(5, "tu_2", "WHY-OUTPUT-TEXT from an older session", false),
                bash(6, "msg_3", "tu_3", "ls src"),
                result(7, "tu_3", "OrdinaryOutput.java", false),
                answer(8, "msg_4", "We chose LRU.")));
        String all = texts(Logs.parse(file).memories());
        assertThat(all).contains("funes search", "mcp__funes__why", Privacy.SELF_RESULT, "OrdinaryOutput.java", "We chose LRU.")
                .doesNotContain("RECALLED-MEMORY-TEXT", "WHY-OUTPUT-TEXT");
    }

    @Test
    void codexSelfReferenceKeepsAMentionButNotTheOutput() {
        Path file = Records.write(tmp.resolve("rollout-2025-08-20T14-00-00-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"),
                List.of(codexMeta(),
                        codexMessage("user", "input_text", "Recall the flag decision"),
                        "{\"timestamp\":\"2025-08-20T14:00:06.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\",\"arguments\":\"{\\\"command\\\": [\\\"bash\\\", \\\"-lc\\\", \\\"funes why abc123\\\"]}\",\"call_id\":\"call_a\"}}",
                        "{\"timestamp\":\"2025-08-20T14:00:07.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"call_a\",\"output\":\"{\\\"output\\\": \\\"RECALLED-BY-WHY verbose flag\\\\n\\\", \\\"metadata\\\": {\\\"exit_code\\\": 0}}\"}}",
                        codexMessage("assistant", "output_text", "It is -v.")));
        String all = texts(Logs.parse(AgentLogs.codex(), file).memories());
        assertThat(all).contains("funes why abc123", Privacy.SELF_RESULT, "It is -v.").doesNotContain("RECALLED-BY-WHY");
    }

    @Test
    void selfCallRecognition() {
        assertThat(Privacy.isSelfCall("Bash", "[Bash] funes search \"x\"")).isTrue();
        assertThat(Privacy.isSelfCall("Bash", "[Bash] cd /p && ./bin/funes why 12ab")).isTrue();
        assertThat(Privacy.isSelfCall("mcp__funes__search_memory", "[mcp__funes__search_memory] query: x")).isTrue();
        assertThat(Privacy.isSelfCall("recent_sessions", "[recent_sessions]")).isTrue();
        assertThat(Privacy.isSelfCall("use_mcp_tool", "[use_mcp_tool] funes why {\"id\":1}")).isTrue();
        assertThat(Privacy.isSelfCall("Bash", "[Bash] git log --grep funes")).isFalse();
        assertThat(Privacy.isSelfCall("why", "[why]")).isFalse();
        assertThat(Privacy.isSelfCall("Bash", "[Bash] funesearch x")).isFalse();
    }

    @Test
    void aLogWithTheIgnoreMarkerIsNotIndexedAndLosesWhatWasStored() throws Exception {
        Path file = Records.write(tmp.resolve("p/s.jsonl"), List.of(
                request(1, "Index this exchange about parsers"),
                answer(2, "msg_1", "Parsers are fine.")));
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        IndexReport first = indexer.index(List.of(file));
        assertThat(first.filesIndexed()).isEqualTo(1);
        assertThat(store.stats().memories()).isPositive();

        Records.append(file, request(3, "funes:ignore this session from now on") + "\n"
                + answer(4, "msg_2", "Understood.") + "\n");
        List<IndexListener.FileOutcome> outcomes = new java.util.ArrayList<>();
        Indexer listening = Indexer.builder(store).listener(new IndexListener() {
            @Override
            public void fileFinished(Path f, FileOutcome outcome, int memories, dev.funes.AddResult stored) {
                outcomes.add(outcome);
            }
        }).build();
        IndexReport second = listening.index(List.of(file));
        assertThat(second.filesSkippedByRequest()).isEqualTo(1);
        assertThat(second.filesIndexed()).isZero();
        assertThat(second.problems()).isEmpty();
        assertThat(second.summary()).contains("1 skipped by request");
        assertThat(store.stats().memories()).isZero();

        IndexReport third = listening.index(List.of(file));
        assertThat(third.filesSkippedByRequest()).isEqualTo(1);
        assertThat(outcomes).containsExactly(IndexListener.FileOutcome.SKIPPED_BY_REQUEST,
                IndexListener.FileOutcome.SKIPPED_BY_REQUEST);
        assertThat(store.stats().memories()).isZero();
    }

    @Test
    void onlyTheMarkerAsWhatThePersonSaysIsADirective() {
        assertThat(Privacy.isIgnoreDirective("funes:ignore")).isTrue();
        assertThat(Privacy.isIgnoreDirective("funes:ignore this session from now on")).isTrue();
        assertThat(Privacy.isIgnoreDirective("  funes:ignore. It holds customer data.")).isTrue();
        assertThat(Privacy.isIgnoreDirective("This one has customer data in it.\n\nfunes:ignore\n")).isTrue();
        assertThat(Privacy.isIgnoreDirective("funes:ignore\u2014please")).isTrue();

        assertThat(Privacy.isIgnoreDirective("What does `funes:ignore` do exactly?")).isFalse();
        assertThat(Privacy.isIgnoreDirective("The funes:ignore marker should skip a session")).isFalse();
        assertThat(Privacy.isIgnoreDirective("\"funes:ignore\" must be documented")).isFalse();
        assertThat(Privacy.isIgnoreDirective("Add a test for this:\n```\nfunes:ignore\n```")).isFalse();
        assertThat(Privacy.isIgnoreDirective("~~~\nfunes:ignore this\n~~~")).isFalse();
        assertThat(Privacy.isIgnoreDirective("> funes:ignore\nwhy did this skip my log?")).isFalse();
        assertThat(Privacy.isIgnoreDirective("funes:ignored files are listed where?")).isFalse();
        assertThat(Privacy.isIgnoreDirective("Rename it\nfunes:ignore-marker is clearer")).isFalse();
        assertThat(Privacy.isIgnoreDirective("FUNES:IGNORE")).isFalse();
        assertThat(Privacy.isIgnoreDirective(null)).isFalse();
    }

    /** A session about the feature itself: the marker in a question, in code, in an answer and in a tool's output. */
    @Test
    void aLogThatOnlyMentionsTheMarkerIsIndexed() {
        Path file = Records.write(tmp.resolve("p/s.jsonl"), List.of(
                request(1, "Why does the indexer skip logs that contain `funes:ignore`?"),
                answer(2, "msg_1", "funes:ignore is the opt-out marker; the Indexer looks for it."),
                bash(3, "msg_2", "tu_1", "grep -rn IGNORE_MARKER src"),
                result(4, "tu_1", "funes:ignore", false),
                request(5, "Write a test with this log line:\n```\nfunes:ignore\n```"),
                answer(6, "msg_3", "Done.")));
        InMemoryStore store = new InMemoryStore();
        IndexReport report = Indexer.builder(store).build().index(List.of(file));
        assertThat(report.filesSkippedByRequest()).isZero();
        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(texts(store.all())).contains("opt-out marker", "Write a test with this log line");
        assertThat(store.all()).allSatisfy(m -> assertThat(m.metadata()).doesNotContainKey(Privacy.DIRECTIVE_KEY));
    }

    /** The directive in a Codex rollout, typed after the marker was only discussed: the log is skipped. */
    @Test
    void aDirectiveTypedInACodexRolloutSkipsIt() {
        Path file = Records.write(tmp.resolve("rollout-2025-08-20T14-00-00-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"),
                List.of(codexMeta(),
                        codexMessage("user", "input_text", "Explain the funes:ignore marker"),
                        codexMessage("assistant", "output_text", "It keeps a log out of the store."),
                        codexMessage("user", "input_text", "Then: funes:ignore\nThis session has secrets.")));
        InMemoryStore store = new InMemoryStore();
        assertThat(Indexer.builder(store).build().index(List.of(file)).filesIndexed()).isEqualTo(1);

        Path skipped = Records.write(tmp.resolve("rollout-2025-08-21T14-00-00-1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jsonl"),
                List.of(codexMeta(),
                        codexMessage("user", "input_text", "Explain the funes:ignore marker"),
                        codexMessage("assistant", "output_text", "It keeps a log out of the store."),
                        codexMessage("user", "input_text", "funes:ignore\nThis session has secrets.")));
        IndexReport report = Indexer.builder(store).build().index(List.of(skipped));
        assertThat(report.filesSkippedByRequest()).isEqualTo(1);
        assertThat(store.all()).noneSatisfy(m -> assertThat(m.provenance().source()).isEqualTo(skipped));
    }

    @Test
    void markerAcrossABufferBoundaryIsFound() throws Exception {
        byte[] bytes = new byte[64 * 1024 + 20];
        java.util.Arrays.fill(bytes, (byte) 'x');
        byte[] marker = Privacy.IGNORE_MARKER.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(marker, 0, bytes, 64 * 1024 - 5, marker.length);
        Path file = Records.write(tmp.resolve("big.txt"), bytes);
        assertThat(IgnoreDirectives.containsIgnoreMarker(file)).isTrue();
        Path clean = Records.write(tmp.resolve("clean.txt"), "funes: ignore funes:ignor");
        assertThat(IgnoreDirectives.containsIgnoreMarker(clean)).isFalse();
    }

    private static String selfMcp(int n, String messageId, String toolUseId, String tool) {
        String bashLine = bash(n, messageId, toolUseId, "x");
        return bashLine.replace("\"name\":\"Bash\"", "\"name\":\"" + tool + "\"")
                .replace("\"input\":{\"command\":\"x\"}", "\"input\":{\"id\":\"m-42\"}");
    }

    private static String codexMeta() {
        return "{\"timestamp\":\"2025-08-20T14:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\",\"timestamp\":\"2025-08-20T14:00:00.000Z\",\"cwd\":\"/home/dev/cli\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.21.0\"}}";
    }

    private static String codexMessage(String role, String type, String text) {
        com.fasterxml.jackson.databind.node.ObjectNode r = new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
        r.put("timestamp", "2025-08-20T14:00:03.000Z").put("type", "response_item");
        com.fasterxml.jackson.databind.node.ObjectNode p = r.putObject("payload").put("type", "message").put("role", role);
        p.putArray("content").addObject().put("type", type).put("text", text);
        return r.toString();
    }
}
