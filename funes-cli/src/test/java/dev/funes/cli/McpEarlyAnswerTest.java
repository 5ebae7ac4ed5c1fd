package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpSyncServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link McpEarlyAnswer} answers {@code initialize} exactly as the MCP SDK's server does, byte for
 * byte, for every kind of request it answers at all; leaves every line in doubt to the SDK; and
 * the transport drops the SDK's own answer to that request, saying loudly when it differs.
 */
class McpEarlyAnswerTest {

    private static final String CLIENT = "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}";

    /** Initialize requests that the early answer must answer, each as the SDK does. */
    static final List<String> ANSWERED = List.of(
            init("1", "{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{}," + CLIENT + "}"),
            init("2", "{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{}," + CLIENT + "}"),
            init("3", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"roots\":{\"listChanged\":true},"
                    + "\"sampling\":{},\"elicitation\":{}}," + CLIENT + "}"),
            init("4", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{\"form\":{},\"url\":{}},"
                    + "\"extensions\":{\"io.example/x\":{}},\"experimental\":{\"a\":{\"b\":[true,null,\"c\"]}}},"
                    + "\"clientInfo\":{\"name\":\"claude-code\",\"title\":\"Claude Code\",\"version\":\"2.0.1\","
                    + "\"description\":\"d\",\"websiteUrl\":\"https://example.org\",\"extra\":\"x\"}}"),
            // A version the SDK does not know: it answers its latest.
            init("5", "{\"protocolVersion\":\"2099-01-01\",\"capabilities\":{}," + CLIENT + "}"),
            init("6", "{\"protocolVersion\":\"\",\"capabilities\":{}," + CLIENT + "}"),
            // No clientInfo, no capabilities: the SDK fills them in and answers.
            init("7", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}"),
            init("8", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("9", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":null,\"clientInfo\":null,\"_meta\":{\"k\":\"v\"}}"),
            // Ids: strings with characters to escape and beyond ASCII, the extremes of a long, zero.
            init("\"a\\\"b\\\\c\\u0001/\\u00e9\u20ac\\ud83d\\ude00\"", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("\"\"", "{\"protocolVersion\":\"2025-06-18\"}"),
            // A lone surrogate, which Jackson writes as it can, the same way for both.
            init("\"\\ud800\"", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("-9223372036854775808", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("9223372036854775807", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("-0", "{\"protocolVersion\":\"2025-06-18\"}"),
            // Members in another order, unknown members of params, spaces.
            " { \"params\" : {\"x\":{\"y\":[]},\"protocolVersion\":\"2024-11-05\"} , \"method\":\"initialize\","
                    + "\"id\":42,\"jsonrpc\":\"2.0\" } ");

    /** An initialize the SDK answers with an error: its conversion of the capabilities fails. */
    static final String CAPABILITIES_NOT_AN_OBJECT = init("1", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":[]}");

    /** Lines left to the SDK: not an initialize, not JSON McpFrame takes, or a member in doubt. */
    static final List<String> LEFT = List.of(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
            "[" + init("1", "{\"protocolVersion\":\"2025-06-18\"}") + "]",
            "{oops",
            init("1", "{\"protocolVersion\":\"2025-06-18\"}") + " trailing",
            init("1", "{\"protocolVersion\":\"2025-06-18\"}") + "{}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"protocolVersion\":\"2024-11-05\"}"),
            init("1.5", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("null", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("9223372036854775808", "{\"protocolVersion\":\"2025-06-18\"}"),
            init("{}", "{\"protocolVersion\":\"2025-06-18\"}"),
            "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
            "{\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}",
            init("1", "null"),
            init("1", "[]"),
            init("1", "{}"),
            init("1", "{\"protocolVersion\":20250618}"),
            init("1", "{\"protocolVersion\":null}"),
            CAPABILITIES_NOT_AN_OBJECT,
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"roots\":{\"listChanged\":\"yes\"}}}"),
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"roots\":true}}"),
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"elicitation\":{\"form\":1}}}"),
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"experimental\":{\"n\":1}}}"),
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"clientInfo\":{\"name\":7,\"version\":\"1\"}}"),
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"clientInfo\":{\"name\":\"t\",\"version\":\"1\","
                    + "\"icons\":[{\"src\":\"https://example.org/i.png\"}]}}"),
            init("1", "{\"protocolVersion\":\"2025-06-18\",\"_meta\":\"m\"}"),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"},"
                    + "\"extra\":true}",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":" + "[".repeat(1001) + "]".repeat(1001) + "}");

    private static String init(String id, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"initialize\",\"params\":" + params + "}";
    }

    @Test
    void theEarlyAnswerIsTheSdksByteForByte() throws Exception {
        for (String request : ANSWERED) {
            byte[] line = request.getBytes(StandardCharsets.UTF_8);
            McpEarlyAnswer.Answered early = McpEarlyAnswer.answer(line, line.length, FunesVersion.current());
            assertThat(early).as("answered early: %s", request).isNotNull();
            List<String> sdk = sdkSession(request);
            assertThat(sdk).as("the SDK's answer to %s", request).hasSize(1);
            assertThat(new String(early.bytes(), StandardCharsets.UTF_8)).as(request).isEqualTo(sdk.get(0));
            assertThat(HitJson.MAPPER.readTree(sdk.get(0)).has("result")).as(sdk.get(0)).isTrue();
        }
    }

    @Test
    void linesInDoubtAreLeftToTheSdk() {
        for (String request : LEFT) {
            byte[] line = request.getBytes(StandardCharsets.UTF_8);
            assertThat(McpEarlyAnswer.answer(line, line.length, FunesVersion.current())).as(request).isNull();
        }
    }

    @Test
    void theProtocolVersionsAreTheSdks() {
        McpStdioTransport transport = new McpStdioTransport(new JacksonMcpJsonMapper(new ObjectMapper()),
                InputStream.nullInputStream(), OutputStream.nullOutputStream(), new PrintStream(OutputStream.nullOutputStream()));
        assertThat(McpEarlyAnswer.PROTOCOL_VERSIONS).isEqualTo(transport.protocolVersions());
        assertThat(McpEarlyAnswer.negotiate("2024-11-05")).isEqualTo("2024-11-05");
        assertThat(McpEarlyAnswer.negotiate("2099-01-01")).isEqualTo(McpEarlyAnswer.PROTOCOL_VERSIONS.get(3));
    }

    @Test
    void onlyMcpWithPlainOptionsIsAnsweredEarly() {
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp"})).isTrue();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "--store", "/s", "--team=http://h/c", "-s", "x"})).isTrue();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "--store=/s"})).isTrue();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "--help"})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "-V"})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "--store"})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "--store", "--help"})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "--store="})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "--stor", "x"})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[] {"mcp", "extra"})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[] {"search", "x"})).isFalse();
        assertThat(McpEarlyAnswer.plain(new String[0])).isFalse();
    }

    /**
     * Initialize, initialized and a request in one write: the client gets one answer to
     * initialize (the early one), and the session, which saw the initialize too, serves the rest.
     */
    @Test
    void aPipelinedSessionGetsOneAnswerToInitializeAndTheRestFromTheSession() throws Exception {
        String initialize = ANSWERED.get(2);
        String input = initialize + "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n";
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> out = earlySession(input, FunesVersion.current(), log);
        assertThat(out).as("stdout, stderr: %s", log).hasSize(2);
        assertThat(out.get(0)).isEqualTo(sdkSession(initialize).get(0));
        JsonNode tools = HitJson.MAPPER.readTree(out.get(1));
        assertThat(tools.path("id").asInt()).isEqualTo(2);
        assertThat(tools.path("result").path("tools").size()).as(out.get(1)).isEqualTo(4);
        assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain("BUG");
    }

    /** A first line in doubt is the SDK's to answer, as before. */
    @Test
    void aFirstLineInDoubtIsAnsweredByTheSessionAlone() throws Exception {
        String input = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n" + CAPABILITIES_NOT_AN_OBJECT + "\n" + ANSWERED.get(1) + "\n";
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> out = earlySession(input, FunesVersion.current(), log);
        assertThat(out).as("stderr: %s", log).hasSize(3);
        assertThat(HitJson.MAPPER.readTree(out.get(0)).path("id").asInt()).isEqualTo(7);
        assertThat(HitJson.MAPPER.readTree(out.get(1)).path("error").path("code").asInt()).as(out.get(1)).isEqualTo(-32603);
        assertThat(out.get(2)).isEqualTo(sdkSession(ANSWERED.get(1)).get(0));
    }

    /** An early answer that is not the SDK's is reported on stderr, and still sent only once. */
    @Test
    void anEarlyAnswerThatDiffersFromTheSdksIsReportedLoudly() throws Exception {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> out = earlySession(ANSWERED.get(2) + "\n", "0.0.0-another-build", log);
        assertThat(out).hasSize(1);
        assertThat(out.get(0)).contains("0.0.0-another-build");
        assertThat(log.toString(StandardCharsets.UTF_8))
                .contains("funes mcp: BUG: the initialize answer sent at start differs from the MCP SDK's")
                .contains("0.0.0-another-build").contains(FunesVersion.current());
    }

    /**
     * A {@code tools/list} after an early {@code initialize} is answered by the early reader alone
     * (no transport reads stdin here), with the bytes the SDK's server writes for it.
     */
    @Test
    void toolsListIsAnsweredAtStartAsTheSdkAnswersIt() throws Exception {
        for (String id : List.of("9", "\"list-\u00e9\"", "-9223372036854775808")) {
            String list = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/list\"}";
            String input = ANSWERED.get(2) + "\n" + list + "\n";
            java.util.concurrent.CountDownLatch twoLines = new java.util.concurrent.CountDownLatch(2);
            ByteArrayOutputStream out = new ByteArrayOutputStream() {
                @Override
                public synchronized void write(int b) {
                    super.write(b);
                    if (b == '\n') {
                        twoLines.countDown();
                    }
                }
            };
            McpEarlyAnswer early = McpEarlyAnswer.start(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                    out, new PrintStream(OutputStream.nullOutputStream()), FunesVersion.current());
            early.forwardSearches(null, () -> false);
            assertThat(twoLines.await(1, java.util.concurrent.TimeUnit.MINUTES)).as("two answers: %s", out).isTrue();
            List<String> lines = lines(out);
            assertThat(lines).hasSize(2);
            List<String> sdk = sdkSession(ANSWERED.get(2) + "\n" + list);
            assertThat(sdk).hasSize(2);
            assertThat(lines.get(1)).as("tools/list of id %s", id).isEqualTo(sdk.get(1));
        }
        for (String left : List.of(
                "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c\"}}",
                "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":[]}",
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\"}",
                "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"extra\":1}",
                "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"prompts/list\"}")) {
            byte[] line = left.getBytes(StandardCharsets.UTF_8);
            assertThat(McpEarlyAnswer.toolsListId(line, line.length)).as(left).isNull();
        }
        byte[] plain = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{}}".getBytes(StandardCharsets.UTF_8);
        assertThat(McpEarlyAnswer.toolsListId(plain, plain.length)).isEqualTo(9L);
    }

    /** Search calls whose arguments surely pass the SDK's check: forwarded while the session starts. */
    static final List<String> SURE_SEARCHES = List.of(
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"two-pass parser\"}}"),
            call("\"s-1\"", "{\"arguments\":{\"limit\":50,\"query\":\"x\",\"retrieval\":\"lexical\"},\"name\":\"search_memory\"}"),
            call("3", "{\"name\":\"search_memory\",\"_meta\":{\"progressToken\":7},\"arguments\":{\"query\":\"\u00e9\\\"q\\\"\","
                    + "\"limit\":1,\"agent\":\"codex\",\"project\":\"/p\",\"session\":\"s\",\"kind\":\"decision,convention\","
                    + "\"after\":\"2026-01-01\",\"before\":\"2027-01-01\",\"file\":\"Schema.java\",\"retrieval\":\"dense\"}}"),
            // Blank or unknown values the schema admits: the tool's own errors, answered by the tool's code.
            call("4", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\" \",\"after\":\"not a date\"}}"),
            call("5", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"" + "q".repeat(McpTools.MAX_QUERY_CHARS) + "\"}}"));

    /** Calls left to the SDK: another tool or method, or an argument the schema refuses or might refuse. */
    static final List<String> LEFT_CALLS = List.of(
            call("2", "{\"name\":\"why\",\"arguments\":{\"target\":\"x\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"limit\":3}}"),
            call("2", "{\"name\":\"search_memory\"}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"limit\":\"3\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"limit\":3.0}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"limit\":0}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"limit\":51}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"limit\":null}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":null}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":[\"x\"]}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"retrieval\":\"fuzzy\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"colour\":\"red\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"" + "q".repeat(McpTools.MAX_QUERY_CHARS + 1) + "\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"agent\":\"" + "a".repeat(McpTools.MAX_NAME_CHARS + 1) + "\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\",\"query\":\"y\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\"},\"extra\":1}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\"},\"_meta\":[]}"),
            call("null", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\"}}"),
            call("2", "{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\"}}") + " trailing",
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"search_memory\",\"arguments\":{\"query\":\"x\"}}}");

    private static String call(String id, String params) {
        return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":" + params + "}";
    }

    /** A search result as the tools write it: numbers of every kind, escapes, text beyond ASCII. */
    static final String RESULT = "{\"hits\":[{\"text\":\"Decision: \\\"two-pass\\\" parser \u00e9\u20ac \\ud83d\\ude00 \\n tab\\t\","
            + "\"score\":0.30000000000000004,\"parts\":{\"lexical\":1.0E-5,\"dense\":0.0,\"rerank\":-0.125},"
            + "\"source\":{\"path\":\"/a/b.jsonl\",\"lineStart\":1,\"lineEnd\":2147483648},\"links\":[],\"stale\":false,"
            + "\"why\":null}],\"warnings\":[\"w\"]}";

    @Test
    void searchCallsAreForwardedOnlyWhenTheSchemaSurelyAdmitsTheirArguments() throws Exception {
        var validator = new DeferredSchemaValidator();
        Map<String, Object> schema = McpTools.definitions().get(0).inputSchema();
        for (String request : SURE_SEARCHES) {
            byte[] line = request.getBytes(StandardCharsets.UTF_8);
            McpEarlyAnswer.SearchCall call = McpEarlyAnswer.searchCall(line, line.length);
            assertThat(call).as("forwarded: %s", request).isNotNull();
            JsonNode expected = HitJson.MAPPER.readTree(request).path("params").path("arguments");
            assertThat(HitJson.MAPPER.readTree(call.arguments())).as(request).isEqualTo(expected);
            Map<String, Object> arguments = HitJson.MAPPER.convertValue(expected, Map.class);
            assertThat(validator.validate(schema, arguments).valid()).as("the SDK admits %s", request).isTrue();
        }
        for (String request : LEFT_CALLS) {
            byte[] line = request.getBytes(StandardCharsets.UTF_8);
            assertThat(McpEarlyAnswer.searchCall(line, line.length)).as(request).isNull();
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> properties = (Map<String, Object>) schema.get("properties");
        assertThat(McpEarlyAnswer.SEARCH_MEMBERS).as("every member of the schema, and no other")
                .containsExactlyElementsOf(properties.keySet());
        @SuppressWarnings("unchecked")
        Map<String, Object> retrieval = (Map<String, Object>) properties.get("retrieval");
        assertThat(McpToolDefinitions.RETRIEVALS).isEqualTo(retrieval.get("enum"));
    }

    /**
     * Initialize, initialized, two searches, a line that is not JSON, a call the schema refuses
     * and tools/list in one write, with a server answering searches: the sure searches are its,
     * written byte for byte as the SDK writes the same result; everything else is the session's,
     * which reports the bad line by its number in stdin.
     */
    @Test
    void searchesAfterAnEarlyInitializeAreTheServersAndWrittenAsTheSdkWritesThem() throws Exception {
        String ok = SURE_SEARCHES.get(0);
        String failing = SURE_SEARCHES.get(3);
        String refused = LEFT_CALLS.get(3).replace("\"id\":2", "\"id\":7");
        String input = String.join("\n", ANSWERED.get(2), "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                ok, failing, "{oops", refused, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}") + "\n";
        List<String> forwarded = java.util.Collections.synchronizedList(new ArrayList<>());
        java.util.function.Function<String, java.util.Optional<McpEarlyAnswer.Served>> server = arguments -> {
            forwarded.add(arguments);
            return java.util.Optional.of(served(arguments));
        };
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> early = forwardingSession(input, server, log);
        assertThat(forwarded).as("the two sure searches, and nothing else").hasSize(2);
        assertThat(early).as("stderr: %s", log).hasSize(6);
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("stdin line 5: error -32700").doesNotContain("BUG");

        // The same input to a session that forwards nothing: its tools get the server's answers
        // through McpTools, as funes mcp's own tools do, and write them with the SDK.
        ByteArrayOutputStream sdkLog = new ByteArrayOutputStream();
        List<String> sdk = forwardingSession(input, null, sdkLog);
        assertThat(sdk).as("stderr: %s", sdkLog).hasSize(6);
        assertThat(sorted(early)).isEqualTo(sorted(sdk));
        JsonNode answer = HitJson.MAPPER.readTree(byId(early, 2));
        assertThat(answer.path("result").path("structuredContent").path("hits").get(0).path("score").asDouble())
                .isEqualTo(0.30000000000000004);
        assertThat(HitJson.MAPPER.readTree(byId(early, 4)).path("result").path("isError").asBoolean()).isTrue();
        assertThat(byId(early, 2)).isEqualTo(byId(sdk, 2));
        assertThat(byId(early, 4)).isEqualTo(byId(sdk, 4));
        assertThat(byId(early, 9)).isEqualTo(new String(McpEarlyAnswer.toolsList(9L), StandardCharsets.UTF_8));
        assertThat(HitJson.MAPPER.readTree(byId(early, 7)).path("result").path("content").get(0).path("text").asText())
                .as("the SDK's check").contains("validation failed");
    }

    /** A server that does not answer (gone, another build) leaves the search to the session. */
    @Test
    void aSearchNoServerAnswersIsTheSessions() throws Exception {
        String input = ANSWERED.get(2) + "\n" + SURE_SEARCHES.get(0) + "\n";
        List<String> asked = java.util.Collections.synchronizedList(new ArrayList<>());
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        List<String> out = forwardingSession(input, arguments -> {
            asked.add(arguments);
            return java.util.Optional.empty();
        }, log);
        assertThat(asked).hasSize(1);
        assertThat(out).as("stderr: %s", log).hasSize(2);
        assertThat(byId(out, 2)).isEqualTo(byId(forwardingSession(input, null, new ByteArrayOutputStream()), 2));
    }

    /** What the test's server answers: the result above, or the tool's error for a blank query. */
    private static McpEarlyAnswer.Served served(String arguments) {
        return arguments.contains("\"query\":\" \"") ? new McpEarlyAnswer.Served("search_memory: 'query' is required", true)
                : new McpEarlyAnswer.Served(RESULT, false);
    }

    private static String byId(List<String> lines, int id) throws Exception {
        for (String line : lines) {
            if (HitJson.MAPPER.readTree(line).path("id").asInt() == id) {
                return line;
            }
        }
        throw new AssertionError("no answer to " + id + " in " + lines);
    }

    private static List<String> sorted(List<String> lines) {
        List<String> copy = new ArrayList<>(lines);
        java.util.Collections.sort(copy);
        return copy;
    }

    /**
     * A session whose initialize may be answered early and whose searches go to {@code server}
     * while the SDK's session is not ready (here: never), or, with a null {@code server}, to the
     * tools, which ask the same answers of a server as {@code funes mcp}'s do.
     */
    private static List<String> forwardingSession(String input,
                                                  java.util.function.Function<String, java.util.Optional<McpEarlyAnswer.Served>> server,
                                                  ByteArrayOutputStream log) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(log, true, StandardCharsets.UTF_8);
        McpEarlyAnswer early = McpEarlyAnswer.start(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                out, err, FunesVersion.current());
        early.forwardSearches(server, () -> false);
        McpTools tools = new McpTools(() -> {
            throw new AssertionError("the store is not asked: the server answers");
        }, Clock.systemUTC(), "/work/here").untilOpen(() -> false, arguments -> {
            McpEarlyAnswer.Served answer = served(McpTools.json(arguments));
            return java.util.Optional.of(McpTools.searchResult(answer.text(), answer.error()));
        });
        McpStdioTransport transport = new McpStdioTransport(new JacksonMcpJsonMapper(new ObjectMapper()), early, out, err);
        McpSyncServer sdkServer = McpCommand.start(tools, transport);
        try {
            transport.serve();
        } finally {
            sdkServer.closeGracefully();
        }
        return lines(out);
    }

    /** The SDK's server alone, on {@code request}: its stdout lines. */
    static List<String> sdkSession(String request) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        McpStdioTransport transport = new McpStdioTransport(new JacksonMcpJsonMapper(new ObjectMapper()),
                new ByteArrayInputStream((request + "\n").getBytes(StandardCharsets.UTF_8)), out,
                new PrintStream(OutputStream.nullOutputStream()));
        run(transport);
        return lines(out);
    }

    private static List<String> earlySession(String input, String version, ByteArrayOutputStream log) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream err = new PrintStream(log, true, StandardCharsets.UTF_8);
        McpEarlyAnswer early = McpEarlyAnswer.start(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
                out, err, version);
        McpStdioTransport transport = new McpStdioTransport(new JacksonMcpJsonMapper(new ObjectMapper()), early, out, err);
        run(transport);
        return lines(out);
    }

    private static void run(McpStdioTransport transport) throws InterruptedException {
        McpTools tools = new McpTools(() -> {
            throw new AssertionError("initialize and tools/list need no store");
        }, Clock.systemUTC(), "/work/here");
        McpSyncServer server = McpCommand.start(tools, transport);
        try {
            transport.serve();
        } finally {
            server.closeGracefully();
        }
    }

    private static List<String> lines(ByteArrayOutputStream out) {
        List<String> lines = new ArrayList<>();
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty()) {
                lines.add(line);
            }
        }
        return lines;
    }
}
