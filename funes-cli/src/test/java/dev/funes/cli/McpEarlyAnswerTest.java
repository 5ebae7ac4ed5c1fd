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
