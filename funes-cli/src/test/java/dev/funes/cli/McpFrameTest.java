package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lines a client may send to {@code funes mcp}, and what each amounts to before the SDK sees it. */
class McpFrameTest {

    static McpFrame.Result read(String line) {
        byte[] bytes = line.getBytes(StandardCharsets.UTF_8);
        return McpFrame.read(bytes, bytes.length);
    }

    static McpFrame.Invalid invalid(String line) {
        McpFrame.Result result = read(line);
        assertThat(result).as(line).isInstanceOf(McpFrame.Invalid.class);
        return (McpFrame.Invalid) result;
    }

    static McpSchema.JSONRPCMessage message(String line) {
        McpFrame.Result result = read(line);
        assertThat(result).as(line).isInstanceOf(McpFrame.Message.class);
        return ((McpFrame.Message) result).message();
    }

    @Test
    void requestsNotificationsAndResponsesBecomeTheSdksMessages() {
        McpSchema.JSONRPCMessage request = message(
                "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"why\",\"arguments\":{\"target\":\"x\"}}}");
        assertThat(request).isInstanceOf(McpSchema.JSONRPCRequest.class);
        McpSchema.JSONRPCRequest r = (McpSchema.JSONRPCRequest) request;
        assertThat(r.id()).isEqualTo(7L);
        assertThat(r.method()).isEqualTo("tools/call");
        assertThat(r.params()).isEqualTo(Map.of("name", "why", "arguments", Map.of("target", "x")));

        McpSchema.JSONRPCMessage stringId = message("{\"jsonrpc\":\"2.0\",\"id\":\"a-1\",\"method\":\"ping\"}");
        assertThat(((McpSchema.JSONRPCRequest) stringId).id()).isEqualTo("a-1");
        assertThat(((McpSchema.JSONRPCRequest) message("{\"jsonrpc\":\"2.0\",\"id\":-3,\"method\":\"ping\"}")).id()).isEqualTo(-3L);

        McpSchema.JSONRPCMessage notification = message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        assertThat(notification).isInstanceOf(McpSchema.JSONRPCNotification.class);

        McpSchema.JSONRPCMessage result = message("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"roots\":[]}}");
        assertThat(((McpSchema.JSONRPCResponse) result).result()).isEqualTo(Map.of("roots", java.util.List.of()));
        McpSchema.JSONRPCMessage error = message("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-1,\"message\":\"no\"}}");
        assertThat(((McpSchema.JSONRPCResponse) error).error().code()).isEqualTo(-1);
    }

    @Test
    void linesThatAreNotJsonAreParseErrorsWithoutAnId() {
        for (String line : new String[] {"{oops", "{\"jsonrpc\":\"2.0\"", "{\"a\":1} {\"b\":2}", "{\"a\":1,\"a\":2}", "nul"}) {
            McpFrame.Invalid e = invalid(line);
            assertThat(e.code()).as(line).isEqualTo(-32700);
            assertThat(e.id()).as(line).isNull();
            assertThat(e.message()).as(line).startsWith("Parse error: ");
        }
        byte[] latin1 = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        McpFrame.Result notUtf8 = McpFrame.read(latin1, latin1.length);
        assertThat(((McpFrame.Invalid) notUtf8).message()).contains("UTF-8");
    }

    @Test
    void nestingIsAcceptedToOneThousandLevelsAndRefusedBeyond() {
        // The message object is the first level.
        String ok = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":" + nested(998) + "}}";
        assertThat(read(ok)).isInstanceOf(McpFrame.Message.class);
        String deep = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":" + nested(999) + "}}";
        McpFrame.Invalid e = invalid(deep);
        assertThat(e.code()).isEqualTo(-32700);
        assertThat(e.message()).contains("nested deeper than 1000 levels");
        assertThat(invalid(nested(1_000_000)).code()).isEqualTo(-32700);
    }

    @Test
    void jsonThatIsNotARequestIsAnInvalidRequest() {
        String[] lines = {
            "42", "[]", "\"text\"", "true", "null",
            "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
            "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":1e3,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,\"method\":\"ping\"}",
            "{\"jsonrpc\":\"2.0\",\"method\":7}",
            "{\"jsonrpc\":\"2.0\"}",
            "{}",
        };
        for (String line : lines) {
            McpFrame.Invalid e = invalid(line);
            assertThat(e.code()).as(line).isEqualTo(-32600);
            assertThat(e.id()).as(line).isNull();
            assertThat(e.message()).as(line).startsWith("Invalid Request: ");
        }
        assertThat(invalid("[1,2]").message()).contains("batches are not supported");
        assertThat(invalid("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}").message()).contains("'id'", "fractional");
    }

    @Test
    void aBadLineWithAUsableIdIsAnsweredWithIt() {
        McpFrame.Invalid noVersion = invalid("{\"id\":5,\"method\":\"ping\"}");
        assertThat(noVersion.code()).isEqualTo(-32600);
        assertThat(noVersion.id()).isEqualTo(5L);
        assertThat(noVersion.message()).contains("'jsonrpc'");
        assertThat(invalid("{\"jsonrpc\":\"1.0\",\"id\":\"q\",\"method\":\"ping\"}").id()).isEqualTo("q");
        assertThat(invalid("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"\"}").id()).isEqualTo(6L);
        assertThat(invalid("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":3}").code()).isEqualTo(-32600);
        assertThat(invalid("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":[1]}").code()).isEqualTo(-32602);
        assertThat(invalid("{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}").id()).isEqualTo(8L);
        assertThat(invalid("{\"jsonrpc\":\"2.0\",\"id\":8,\"error\":{\"code\":\"x\",\"message\":\"m\"}}").code()).isEqualTo(-32600);
    }

    @Test
    void aToolCallNeedsANameAndObjectArgumentsAndTheErrorDoesNotQuoteThem() {
        String secret = "ghp_" + "Zq8vX2mL4rT7wY1bN5cK9dF3hJ6gP0sA2eQx";
        for (String params : new String[] {
            "{\"name\":\"remember\",\"arguments\":\"" + secret + "\"}",
            "{\"name\":7,\"arguments\":{}}",
            "{\"arguments\":{}}",
        }) {
            McpFrame.Invalid e = invalid("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":" + params + "}");
            assertThat(e.code()).as(params).isEqualTo(-32602);
            assertThat(e.id()).isEqualTo(2L);
            assertThat(e.message()).doesNotContain(secret);
        }
        assertThat(invalid("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}").code()).isEqualTo(-32602);
        assertThat(read("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}"))
                .isInstanceOf(McpFrame.Message.class);
    }

    @Test
    void errorMessagesNeverQuoteTheLine() {
        String secret = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc";
        for (String line : new String[] {
            "{\"token\":" + secret + "}", secret, "{\"jsonrpc\":\"2.0\",\"id\":\"" + secret + "\",\"id\":1}",
            "[\"" + secret + "\"]", "\"" + secret + "\"", "{\"jsonrpc\":\"" + secret + "\",\"method\":\"m\"}",
        }) {
            assertThat(invalid(line).message()).as(line).doesNotContain(secret).doesNotContain("sk_live");
        }
    }

    @Test
    void aLineOverTheSizeCapIsAnInvalidRequest() {
        McpFrame.Invalid e = McpFrame.tooLong();
        assertThat(e.code()).isEqualTo(-32600);
        assertThat(e.id()).isNull();
        assertThat(e.message()).contains(String.valueOf(McpFrame.MAX_BYTES));
    }

    private static String nested(int depth) {
        return "[".repeat(depth) + "]".repeat(depth);
    }
}
