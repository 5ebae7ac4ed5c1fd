package dev.funes.ui;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One log line read for people: who speaks (user, assistant, thinking, tool call, tool result,
 * or the record's own type) and what they say, found in the JSON shapes the agents write
 * (Claude Code's {@code message.content} blocks, Codex's {@code payload} items, and the common
 * {@code role}/{@code text}/{@code content} fields of the rest). A line that is not a JSON object
 * (Aider's Markdown, a pretty-printed JSON file) is shown as it is, its speaker guessed from its
 * Markdown ({@code ####} is the user, {@code >} a tool's output).
 */
final class RecordView {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Characters of one part shown; the raw line below has everything. */
    private static final int MAX_PART = 4000;

    /** One thing said in a record. */
    record Part(String role, String text) {
    }

    private RecordView() {
    }

    static List<Part> parts(String line) {
        String t = line.strip();
        if (t.startsWith("{")) {
            try {
                JsonNode node = JSON.readTree(t);
                if (node != null && node.isObject()) {
                    List<Part> parts = new ArrayList<>();
                    walk(node, role(node, "record"), parts, 0);
                    if (parts.isEmpty()) {
                        parts.add(new Part(role(node, "record"), "(no text)"));
                    }
                    return parts;
                }
            } catch (JsonProcessingException e) {
                // not JSON after all: shown as text
            }
        }
        if (t.isEmpty()) {
            return List.of();
        }
        String role = t.startsWith("#### ") ? "user" : t.startsWith(">") ? "tool result" : "text";
        return List.of(new Part(role, clip(t)));
    }

    private static String role(JsonNode node, String fallback) {
        for (JsonNode r : List.of(node.path("message").path("role"), node.path("payload").path("role"), node.path("role"))) {
            if (r.isTextual() && !r.asText().isBlank()) {
                return r.asText();
            }
        }
        JsonNode type = node.path("payload").path("type").isTextual() ? node.path("payload").path("type") : node.path("type");
        return type.isTextual() && !type.asText().isBlank() ? type.asText() : fallback;
    }

    private static void walk(JsonNode node, String role, List<Part> parts, int depth) {
        if (depth > 8 || parts.size() > 40) {
            return;
        }
        if (node.isTextual()) {
            if (!node.asText().isBlank()) {
                parts.add(new Part(role, clip(node.asText())));
            }
            return;
        }
        if (node.isArray()) {
            node.forEach(child -> walk(child, role, parts, depth + 1));
            return;
        }
        if (!node.isObject()) {
            return;
        }
        String type = node.path("type").asText("").toLowerCase(Locale.ROOT);
        if (type.equals("tool_use") || type.equals("function_call") || type.equals("custom_tool_call")
                || type.equals("local_shell_call")) {
            JsonNode input = first(node, "input", "arguments", "action");
            parts.add(new Part("tool call", clip(node.path("name").asText(type) + " " + compact(input))));
            return;
        }
        if (type.equals("tool_result") || type.equals("function_call_output") || type.equals("custom_tool_call_output")) {
            JsonNode output = first(node, "content", "output");
            List<Part> inner = new ArrayList<>();
            walk(output, "tool result", inner, depth + 1);
            inner.forEach(p -> parts.add(new Part("tool result", p.text())));
            return;
        }
        if (type.equals("thinking") || type.equals("reasoning")) {
            JsonNode thought = first(node, "thinking", "summary", "text", "content");
            List<Part> inner = new ArrayList<>();
            walk(thought, "thinking", inner, depth + 1);
            inner.forEach(p -> parts.add(new Part("thinking", p.text())));
            return;
        }
        String here = node.path("role").isTextual() ? node.path("role").asText() : role;
        boolean found = false;
        for (String key : List.of("text", "message", "content", "payload", "summary", "output")) {
            JsonNode child = node.get(key);
            if (child != null && !child.isNull()) {
                int before = parts.size();
                walk(child, here, parts, depth + 1);
                found |= parts.size() > before;
            }
        }
        if (!found && depth == 0) {
            parts.add(new Part(here, clip(compact(node))));
        }
    }

    private static JsonNode first(JsonNode node, String... keys) {
        for (String k : keys) {
            JsonNode v = node.get(k);
            if (v != null && !v.isNull()) {
                return v;
            }
        }
        return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
    }

    private static String compact(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "";
        }
        return node.isTextual() ? node.asText() : node.toString();
    }

    private static String clip(String s) {
        return Pages.clip(s, MAX_PART);
    }
}
