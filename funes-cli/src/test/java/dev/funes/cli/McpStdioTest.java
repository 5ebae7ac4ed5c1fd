package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes mcp} as a separate JVM, driven line by line over its real stdin and stdout as a raw
 * client would: every kind of bad line gets its JSON-RPC error and the next request is still
 * served, and closing stdin ends the process once the calls in flight are answered.
 */
class McpStdioTest {

    /** A guard against a hang, not a timing assertion: the server answers in well under a second. */
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
            + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

    @Test
    void theIssuesPipeOfInitializeABadLineAndPingAnswersBothAndExitsZero(@TempDir Path tmp) throws Exception {
        try (FunesProcess mcp = FunesProcess.start("384m", "mcp", "--store", tmp.resolve("store").toString())) {
            // As printf ... | funes mcp: all three lines, then the end of stdin, before any answer.
            mcp.send(INITIALIZE);
            mcp.send("{oops");
            mcp.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();

            List<JsonNode> out = messages(mcp);
            assertThat(out).as(mcp.describe("stdout")).hasSize(3);
            assertThat(out.get(0).path("id").asInt()).isEqualTo(1);
            assertThat(out.get(0).path("result").path("serverInfo").path("name").asText()).isEqualTo("funes");
            assertThat(out.get(1).path("error").path("code").asInt()).isEqualTo(-32700);
            assertThat(out.get(1).has("id") && out.get(1).get("id").isNull()).as(out.get(1).toString()).isTrue();
            assertThat(out.get(2).path("id").asInt()).isEqualTo(2);
            assertThat(out.get(2).get("result").isObject()).as(out.get(2).toString()).isTrue();
            assertThat(mcp.err()).contains("stdin line 2: error -32700");
        }
    }

    @Test
    void everyBadLineGetsItsErrorAndTheNextRequestIsServedThenEndOfInputEndsTheProcess(@TempDir Path tmp)
            throws Exception {
        try (FunesProcess mcp = FunesProcess.start("384m", "mcp", "--store", tmp.resolve("store").toString())) {
            Raw client = new Raw(mcp);

            // Before initialize: ping is answered, anything else refused with its id.
            assertThat(client.request(100, "ping", null).get("result").isObject()).isTrue();
            JsonNode early = client.request(101, "tools/list", null);
            assertThat(early.path("error").path("code").asInt()).as(early.toString()).isEqualTo(-32600);
            assertThat(early.path("error").path("message").asText()).contains("initialize");

            JsonNode init = client.line(INITIALIZE);
            assertThat(init.path("result").path("serverInfo").path("name").asText()).as(init.toString()).isEqualTo("funes");
            // No notifications/initialized: the first tools/list is still served.

            Map<String, Integer> bad = new LinkedHashMap<>();
            bad.put("{oops", -32700);
            bad.put("42", -32600);
            bad.put("[]", -32600);
            bad.put("[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}]", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", -32600);
            bad.put("\"a string\"", -32600);
            bad.put("null", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"method\":7}", -32600);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"} trailing", -32700);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":9,\"id\":10,\"method\":\"ping\"}", -32700);
            bad.put("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":" + nested(1001) + "}", -32700);
            bad.put(nested(100_000), -32700);
            bad.put("{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"pad\":\"" + "x".repeat(McpFrame.MAX_BYTES) + "\"}", -32600);
            int next = 200;
            for (Map.Entry<String, Integer> frame : bad.entrySet()) {
                String shown = frame.getKey().length() > 80 ? frame.getKey().substring(0, 80) + "…" : frame.getKey();
                JsonNode error = client.line(frame.getKey());
                assertThat(error.path("error").path("code").asInt()).as("%s answered %s", shown, error)
                        .isEqualTo(frame.getValue());
                assertThat(error.has("id") && error.get("id").isNull()).as("%s answered %s", shown, error).isTrue();
                assertThat(error.path("error").path("message").asText()).isNotBlank();
                String method = next % 2 == 0 ? "ping" : "tools/list";
                JsonNode served = client.request(next, method, null);
                assertThat(served.has("result")).as("%s after %s answered %s", method, shown, served).isTrue();
                if (method.equals("tools/list")) {
                    assertThat(served.path("result").path("tools").size()).isEqualTo(4);
                }
                next++;
            }

            // Bad lines that carry a usable id are answered with it.
            JsonNode noVersion = client.line("{\"id\":\"abc\",\"method\":\"ping\"}");
            assertThat(noVersion.path("error").path("code").asInt()).as(noVersion.toString()).isEqualTo(-32600);
            assertThat(noVersion.path("id").asText()).isEqualTo("abc");
            JsonNode arrayParams = client.request(300, "tools/call", HitJson.MAPPER.createArrayNode());
            assertThat(arrayParams.path("error").path("code").asInt()).as(arrayParams.toString()).isEqualTo(-32602);
            ObjectNode stringArguments = HitJson.MAPPER.createObjectNode().put("name", "search_memory")
                    .put("arguments", "sk_live_never_echoed");
            JsonNode badCall = client.request(301, "tools/call", stringArguments);
            assertThat(badCall.path("error").path("code").asInt()).as(badCall.toString()).isEqualTo(-32602);
            assertThat(badCall.toString()).doesNotContain("sk_live_never_echoed");
            JsonNode unknown = client.request(302, "no/such/method", null);
            assertThat(unknown.path("error").path("code").asInt()).as(unknown.toString()).isEqualTo(-32601);

            // A real call still works, and an over-long argument is refused with a clear message.
            ObjectNode longNote = HitJson.MAPPER.createObjectNode();
            longNote.put("name", "remember");
            longNote.putObject("arguments").put("kind", "note").put("text", "y".repeat(McpTools.MAX_TEXT_CHARS + 1));
            JsonNode refused = client.request(303, "tools/call", longNote).path("result");
            assertThat(refused.path("isError").asBoolean()).as(refused.toString()).isTrue();
            assertThat(refused.toString()).contains("text").contains("8,000");

            // A call in flight when stdin ends is answered before the process exits.
            ObjectNode note = HitJson.MAPPER.createObjectNode();
            note.put("name", "remember");
            note.putObject("arguments").put("kind", "decision")
                    .put("text", "Decided: bad MCP lines are answered with JSON-RPC errors and the session goes on.");
            mcp.send(request(304, "tools/call", note));
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
            JsonNode remembered = messages(mcp).stream().filter(m -> m.path("id").asInt() == 304).findFirst()
                    .orElseThrow(() -> new AssertionError(mcp.describe("never answered the call in flight")));
            assertThat(remembered.path("result").path("isError").asBoolean()).as(remembered.toString()).isFalse();
            assertThat(remembered.path("result").path("structuredContent").path("stored").asBoolean()).isTrue();
            assertThat(mcp.err()).contains("error -32700").contains("error -32600").doesNotContain("sk_live_never_echoed");
        }
    }

    /**
     * A real {@code funes mcp} answers {@code initialize} before its store is open (the store, and
     * the validator of tool arguments, are made on another thread), then answers a search exactly
     * as the tools do on the store opened in this JVM; and arguments the tool's schema refuses are
     * still refused, by the validator made after the handshake.
     */
    @Test
    void aSearchAfterTheHandshakeAnswersAsInProcessAndBadArgumentsAreStillRefused(@TempDir Path tmp) throws Exception {
        String store = tmp.resolve("store").toString();
        CliTest.Result index = CliTest.funes("index", "--store", store, "--index-path", "../examples/demo-session");
        assertThat(index.status()).as(index.err()).isZero();
        JsonNode expected;
        try (OpenStore open = OpenStore.existing(Path.of(store), true)) {
            McpTools tools = new McpTools(open.store(), java.time.Clock.systemUTC(), "/work/here");
            expected = HitJson.MAPPER.valueToTree(
                    tools.call("search_memory", Map.of("query", "two-pass parser"), null).structuredContent());
        }
        try (FunesProcess mcp = FunesProcess.start("384m", "mcp", "--store", store)) {
            Raw client = new Raw(mcp);
            JsonNode init = client.line(INITIALIZE);
            assertThat(init.path("result").path("serverInfo").path("name").asText()).as(init.toString()).isEqualTo("funes");
            ObjectNode search = HitJson.MAPPER.createObjectNode().put("name", "search_memory");
            search.putObject("arguments").put("query", "two-pass parser");
            JsonNode found = client.request(2, "tools/call", search).path("result");
            assertThat(found.path("isError").asBoolean()).as(found.toString()).isFalse();
            assertThat(found.path("structuredContent")).isEqualTo(expected);
            assertThat(expected.path("hits").size()).isPositive();

            ObjectNode unknownArgument = HitJson.MAPPER.createObjectNode().put("name", "search_memory");
            unknownArgument.putObject("arguments").put("query", "parser").put("colour", "red");
            JsonNode refused = client.request(3, "tools/call", unknownArgument).path("result");
            assertThat(refused.path("isError").asBoolean()).as(refused.toString()).isTrue();
            assertThat(refused.toString()).contains("colour");
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
        }
    }

    /** Every stdout line, each of which must be a JSON-RPC 2.0 message. */
    private static List<JsonNode> messages(FunesProcess mcp) throws IOException {
        List<JsonNode> all = new ArrayList<>();
        for (String line : mcp.out().split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            JsonNode message = HitJson.MAPPER.readTree(line);
            assertThat(message.path("jsonrpc").asText()).as("stdout line %s", line).isEqualTo("2.0");
            all.add(message);
        }
        return all;
    }

    private static String nested(int depth) {
        return "[".repeat(depth) + "]".repeat(depth);
    }

    private static String request(int id, String method, JsonNode params) {
        ObjectNode request = HitJson.MAPPER.createObjectNode().put("jsonrpc", "2.0").put("id", id).put("method", method);
        if (params != null) {
            request.set("params", params);
        }
        return request.toString();
    }

    /** Sends lines and reads the next stdout line as the answer: the server answers in order here. */
    private static final class Raw {
        private final FunesProcess mcp;

        Raw(FunesProcess mcp) {
            this.mcp = mcp;
        }

        JsonNode line(String line) throws IOException, InterruptedException {
            mcp.send(line);
            return HitJson.MAPPER.readTree(mcp.awaitOut(l -> true, PATIENCE));
        }

        JsonNode request(int id, String method, JsonNode params) throws IOException, InterruptedException {
            JsonNode answer = line(McpStdioTest.request(id, method, params));
            assertThat(answer.path("id").asInt()).as(answer.toString()).isEqualTo(id);
            return answer;
        }
    }
}
