package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;

/** A minimal MCP client speaking JSON-RPC over a {@code funes mcp} process's stdin and stdout. */
final class McpStdioClient {
    private final FunesProcess server;
    private final Duration patience;
    private int nextId = 1;

    McpStdioClient(FunesProcess server, Duration patience) {
        this.server = server;
        this.patience = patience;
    }

    /** Initializes the session and returns the server's answer ({@code serverInfo}, capabilities). */
    JsonNode initialize() throws IOException, InterruptedException {
        ObjectNode params = HitJson.MAPPER.createObjectNode();
        params.put("protocolVersion", "2025-06-18");
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "reliability-test").put("version", "1");
        JsonNode result = request("initialize", params);
        assertThat(result.path("serverInfo").path("name").asText()).isEqualTo("funes");
        ObjectNode initialized = HitJson.MAPPER.createObjectNode();
        initialized.put("jsonrpc", "2.0").put("method", "notifications/initialized");
        server.send(initialized.toString());
        return result;
    }

    JsonNode remember(String kind, String text) throws IOException, InterruptedException {
        ObjectNode args = HitJson.MAPPER.createObjectNode().put("kind", kind).put("text", text);
        return call("remember", args);
    }

    JsonNode search(String query, String session) throws IOException, InterruptedException {
        return search(query, session, null);
    }

    /** {@code search_memory} in one session (if not null), of the given kinds (if not null). */
    JsonNode search(String query, String session, String kinds) throws IOException, InterruptedException {
        ObjectNode args = HitJson.MAPPER.createObjectNode().put("query", query).put("limit", 50);
        if (session != null) {
            args.put("session", session);
        }
        if (kinds != null) {
            args.put("kind", kinds);
        }
        return call("search_memory", args);
    }

    Set<String> searchIds(String query, String session) throws IOException, InterruptedException {
        return searchIds(query, session, null);
    }

    Set<String> searchIds(String query, String session, String kinds) throws IOException, InterruptedException {
        Set<String> ids = new TreeSet<>();
        for (JsonNode hit : search(query, session, kinds).get("hits")) {
            ids.add(hit.get("id").asText());
        }
        return ids;
    }

    /** The tool's JSON answer; fails if the tool answered an error. */
    JsonNode call(String tool, ObjectNode args) throws IOException, InterruptedException {
        JsonNode result = callRaw(tool, args);
        assertThat(result.path("isError").asBoolean()).as("%s answered %s", tool, result).isFalse();
        return HitJson.MAPPER.readTree(result.get("content").get(0).get("text").asText());
    }

    /** The {@code tools/call} result as the server sent it, error or not. */
    JsonNode callRaw(String tool, ObjectNode args) throws IOException, InterruptedException {
        ObjectNode params = HitJson.MAPPER.createObjectNode().put("name", tool);
        params.set("arguments", args);
        return request("tools/call", params);
    }

    private JsonNode request(String method, ObjectNode params) throws IOException, InterruptedException {
        int id = nextId++;
        ObjectNode request = HitJson.MAPPER.createObjectNode();
        request.put("jsonrpc", "2.0").put("id", id).put("method", method);
        request.set("params", params);
        server.send(request.toString());
        String line = server.awaitOut(l -> {
            try {
                JsonNode m = HitJson.MAPPER.readTree(l);
                return m.path("id").asInt(-1) == id;
            } catch (IOException e) {
                return false;
            }
        }, patience);
        JsonNode response = HitJson.MAPPER.readTree(line);
        assertThat(response.has("error")).as("%s answered %s", method, line).isFalse();
        return response.get("result");
    }
}
