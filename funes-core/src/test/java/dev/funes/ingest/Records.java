package dev.funes.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/** Builds small Claude Code records for tests that write their own logs. */
final class Records {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final String SESSION = "0d9e8f7a-6b5c-4d3e-8f2a-1b0c9d8e7f6a";
    static final String CWD = "/work/demo";

    private Records() {
    }

    private static ObjectNode base(String type, int n) {
        ObjectNode r = JSON.createObjectNode();
        r.put("parentUuid", n > 1 ? uuid(n - 1) : null);
        r.put("isSidechain", false);
        r.put("cwd", CWD);
        r.put("sessionId", SESSION);
        r.put("version", "2.0.31");
        r.put("gitBranch", "main");
        r.put("type", type);
        r.put("uuid", uuid(n));
        r.put("timestamp", String.format("2025-10-14T10:%02d:%02dZ", (n / 60) % 60, n % 60));
        return r;
    }

    static String uuid(int n) {
        return String.format("00000000-0000-4000-9000-%012d", n);
    }

    /** A request typed by the user; {@code n} numbers the record (uuid, time). */
    static String request(int n, String text) {
        ObjectNode r = base("user", n);
        r.putObject("message").put("role", "user").put("content", text);
        return r.toString();
    }

    static String answer(int n, String messageId, String text) {
        ObjectNode r = base("assistant", n);
        ObjectNode m = r.putObject("message").put("id", messageId).put("role", "assistant");
        m.putArray("content").addObject().put("type", "text").put("text", text);
        return r.toString();
    }

    static String bash(int n, String messageId, String toolUseId, String command) {
        ObjectNode r = base("assistant", n);
        ObjectNode m = r.putObject("message").put("id", messageId).put("role", "assistant");
        ObjectNode block = m.putArray("content").addObject().put("type", "tool_use").put("id", toolUseId).put("name", "Bash");
        block.putObject("input").put("command", command);
        return r.toString();
    }

    /** A call of any tool whose input has one field. */
    static String toolUse(int n, String messageId, String toolUseId, String name, String field, String value) {
        ObjectNode r = base("assistant", n);
        ObjectNode m = r.putObject("message").put("id", messageId).put("role", "assistant");
        ObjectNode block = m.putArray("content").addObject().put("type", "tool_use").put("id", toolUseId).put("name", name);
        block.putObject("input").put(field, value);
        return r.toString();
    }

    static String result(int n, String toolUseId, String output, boolean error) {
        ObjectNode r = base("user", n);
        ArrayNode content = r.putObject("message").put("role", "user").putArray("content");
        content.addObject().put("type", "tool_result").put("tool_use_id", toolUseId).put("content", output).put("is_error", error);
        return r.toString();
    }

    static String snapshot() {
        return "{\"type\":\"file-history-snapshot\",\"messageId\":\"m\",\"snapshot\":{\"trackedFileBackups\":{}},\"isSnapshotUpdate\":false}";
    }

    /** Writes the lines, each followed by a newline. */
    static Path write(Path file, List<String> lines) {
        return write(file, String.join("\n", lines) + "\n");
    }

    static Path write(Path file, String content) {
        return write(file, content.getBytes(StandardCharsets.UTF_8));
    }

    static Path write(Path file, byte[] content) {
        try {
            Files.createDirectories(file.getParent());
            return Files.write(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void append(Path file, String content) {
        try {
            Files.writeString(file, content, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
