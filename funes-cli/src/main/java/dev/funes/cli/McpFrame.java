package dev.funes.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.util.Map;

/**
 * One line a client sent to {@code funes mcp}, checked against JSON-RPC 2.0 as MCP uses it before
 * the SDK sees it: either the message it carries, or the error the client gets in reply.
 *
 * <p>The SDK's own stdio transport stops reading at the first line it cannot use, so every way a
 * line can be unusable is decided here, where it costs one error reply and nothing more. Error
 * messages describe the problem without quoting the line: a line may hold a secret, and the
 * reply and the stderr log must not repeat it.
 */
final class McpFrame {

    /** JSON-RPC 2.0's error codes for a message that is not JSON, or not a request. */
    static final int PARSE_ERROR = McpSchema.ErrorCodes.PARSE_ERROR;
    static final int INVALID_REQUEST = McpSchema.ErrorCodes.INVALID_REQUEST;
    static final int INVALID_PARAMS = McpSchema.ErrorCodes.INVALID_PARAMS;

    /**
     * Longest line accepted, in bytes. The largest legitimate message is a {@code remember} of
     * {@link McpTools#MAX_TEXT_CHARS} characters; even escaped as {@code \\uXXXX} throughout it
     * stays far below this.
     */
    static final int MAX_BYTES = 1 << 20;

    /** Deepest nesting of arrays and objects accepted: deeper lines are refused, not recursed into. */
    static final int MAX_NESTING = 1000;

    // Configured as McpEarlyAnswer's parser, which reads the first line before this class does.
    private static final ObjectMapper JSON = new ObjectMapper(McpEarlyAnswer.parsing())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private McpFrame() {
    }

    /** What a line amounts to. */
    sealed interface Result permits Message, Invalid {
    }

    /** A well-formed JSON-RPC message, ready for the SDK's session. */
    record Message(McpSchema.JSONRPCMessage message) implements Result {
    }

    /**
     * A line answered with a JSON-RPC error. {@code id} is the request's id where the line had a
     * usable one (a string or a {@code long}), else {@code null}, as JSON-RPC prescribes.
     */
    record Invalid(int code, String message, Object id) implements Result {
    }

    /** The error a line longer than {@link #MAX_BYTES} gets; its content is never parsed. */
    static Invalid tooLong() {
        return new Invalid(INVALID_REQUEST, "Invalid Request: a message may be at most " + MAX_BYTES
                + " bytes; this line is longer", null);
    }

    /** Checks one line (without its newline) of UTF-8 bytes. */
    static Result read(byte[] line, int length) {
        JsonNode node;
        try {
            node = JSON.readTree(line, 0, length);
        } catch (IOException e) {
            return new Invalid(PARSE_ERROR, "Parse error: " + parseProblem(e), null);
        }
        if (node == null || node.isMissingNode()) {
            return new Invalid(PARSE_ERROR, "Parse error: the line holds no JSON value", null);
        }
        if (!node.isObject()) {
            return new Invalid(INVALID_REQUEST, "Invalid Request: a message is one JSON object, not "
                    + (node.isArray() ? "an array (batches are not supported)" : typeName(node)), null);
        }
        Object id = null;
        JsonNode idNode = node.get("id");
        if (idNode != null) {
            id = id(idNode);
            if (id == null) {
                return new Invalid(INVALID_REQUEST, "Invalid Request: 'id' must be a string or an integer, not "
                        + typeName(idNode), null);
            }
        }
        JsonNode version = node.get("jsonrpc");
        if (version == null || !version.isTextual() || !McpSchema.JSONRPC_VERSION.equals(version.asText())) {
            return new Invalid(INVALID_REQUEST, "Invalid Request: 'jsonrpc' must be \"2.0\"", id);
        }
        JsonNode method = node.get("method");
        if (method != null) {
            return request(node, method, id);
        }
        return response(node, id);
    }

    private static Result request(JsonNode node, JsonNode method, Object id) {
        if (!method.isTextual() || method.asText().isEmpty()) {
            return new Invalid(INVALID_REQUEST, "Invalid Request: 'method' must be a non-empty string", id);
        }
        JsonNode params = node.get("params");
        Map<String, Object> paramsValue = null;
        if (params != null && !params.isNull()) {
            if (params.isArray()) {
                return new Invalid(INVALID_PARAMS, "Invalid params: MCP's 'params' is an object, not an array", id);
            }
            if (!params.isObject()) {
                return new Invalid(INVALID_REQUEST, "Invalid Request: 'params' must be an object, not "
                        + typeName(params), id);
            }
            paramsValue = object(params);
        }
        if (McpSchema.METHOD_TOOLS_CALL.equals(method.asText()) && !toolCall(params)) {
            // Checked here because the SDK's own error for these quotes the offending value.
            return new Invalid(INVALID_PARAMS, "Invalid params: tools/call takes 'name', a string, and"
                    + " 'arguments', an object", id);
        }
        return new Message(id == null
                ? new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, method.asText(), paramsValue)
                : new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, method.asText(), id, paramsValue));
    }

    private static boolean toolCall(JsonNode params) {
        if (params == null || !params.isObject()) {
            return false;
        }
        JsonNode name = params.get("name");
        JsonNode arguments = params.get("arguments");
        return name != null && name.isTextual() && (arguments == null || arguments.isNull() || arguments.isObject());
    }

    /** A message without a method is a client's answer to a request of the server. */
    private static Result response(JsonNode node, Object id) {
        if (id == null) {
            return new Invalid(INVALID_REQUEST, "Invalid Request: a message needs a 'method', or an 'id' with"
                    + " a 'result' or an 'error'", null);
        }
        JsonNode result = node.get("result");
        JsonNode error = node.get("error");
        if ((result == null) == (error == null)) {
            return new Invalid(INVALID_REQUEST, "Invalid Request: a response has either a 'result' or an"
                    + " 'error'", id);
        }
        if (result != null) {
            return new Message(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, id,
                    JSON.convertValue(result, Object.class), null));
        }
        JsonNode code = error.get("code");
        JsonNode message = error.get("message");
        if (!error.isObject() || code == null || !code.canConvertToInt() || !code.isIntegralNumber()
                || message == null || !message.isTextual()) {
            return new Invalid(INVALID_REQUEST, "Invalid Request: an 'error' is an object with an integer"
                    + " 'code' and a string 'message'", id);
        }
        JsonNode data = error.get("data");
        return new Message(new McpSchema.JSONRPCResponse(McpSchema.JSONRPC_VERSION, id, null,
                new McpSchema.JSONRPCResponse.JSONRPCError(code.intValue(), message.asText(),
                        data == null ? null : JSON.convertValue(data, Object.class))));
    }

    /** A usable id: a string, or an integer that fits a {@code long}; else {@code null}. */
    private static Object id(JsonNode id) {
        if (id.isTextual()) {
            return id.asText();
        }
        if (id.isIntegralNumber() && id.canConvertToLong()) {
            return id.longValue();
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(JsonNode node) {
        return JSON.convertValue(node, Map.class);
    }

    /** What a value is, with its article, for error messages that must not quote it. */
    private static String typeName(JsonNode node) {
        if (node.isNumber()) {
            if (!node.isIntegralNumber()) {
                return "a fractional number";
            }
            return node.canConvertToLong() ? "a number" : "an integer beyond 64 bits";
        }
        return switch (node.getNodeType()) {
            case STRING -> "a string";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            default -> "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    /** Why the line is not JSON, in words of our own: Jackson's messages quote the input. */
    private static String parseProblem(IOException e) {
        if (e instanceof StreamConstraintsException) {
            return e.getMessage() != null && e.getMessage().contains("nesting")
                    ? "nested deeper than " + MAX_NESTING + " levels"
                    : "a value exceeds the parser's limits";
        }
        String where = "";
        String original = "";
        if (e instanceof JsonProcessingException p) {
            original = p.getOriginalMessage();
            if (p.getLocation() != null && p.getLocation().getColumnNr() > 0) {
                where = " at column " + p.getLocation().getColumnNr();
            }
        }
        if (e instanceof JsonEOFException) {
            return "the JSON ends before it is complete" + where;
        }
        if (original != null && original.startsWith("Duplicate field")) {
            return "a key appears twice in one object" + where;
        }
        if (original != null && original.contains("UTF-8")) {
            return "the line is not valid UTF-8" + where;
        }
        if (original != null && original.startsWith("Trailing token")) {
            return "more than one JSON value on the line" + where;
        }
        return "not valid JSON" + where;
    }
}
