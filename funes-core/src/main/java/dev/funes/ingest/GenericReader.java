package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.funes.Memory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Reads a generic JSON Lines chat log (one OpenAI-style message per line) into memories; one
 * instance per file and call. A line may also carry the session's fields ({@code agent},
 * {@code session_id}, {@code cwd}, a time); a line without {@code role} only sets them. See
 * docs/FORMATS.md.
 */
final class GenericReader extends JsonLinesReader {

    /** Per agent name, a chunker: one log may mix agents, each memory names its own. */
    private final Map<String, Chunker> chunkers = new HashMap<>();
    private final String stem;
    private String agent = GenericFormat.NAME;
    private String session;
    private String project;
    private Chunker current;
    private int calls;
    private final boolean passages;

    GenericReader(Path file, Consumer<Memory> sink) {
        super(file, sink);
        this.passages = PassageSink.wants(sink);
        String name = file.getFileName() == null ? "" : file.getFileName().toString();
        this.stem = name.replaceFirst("\\.jsonl$", "");
    }

    @Override
    void record(int line, long start, long end, JsonNode node) {
        String a = first(Json.nonBlank(node, "agent"), Json.nonBlank(node, "agent_name"));
        if (a != null) {
            agent = a.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9._-]+", "-");
        }
        String s = first(Json.nonBlank(node, "session_id"), first(Json.nonBlank(node, "session"),
                first(Json.nonBlank(node, "sessionId"), Json.nonBlank(node, "conversation_id"))));
        if (s != null) {
            session = s;
        }
        String p = first(Json.nonBlank(node, "cwd"), Json.nonBlank(node, "project"));
        if (p != null) {
            project = p;
        }
        Chunker chunker = chunker();
        Instant time = Json.instant(first(node.get("timestamp"), first(node.get("created_at"), node.get("ts"))));
        JsonNode idNode = node.get("id");
        String id = idNode != null && (idNode.isTextual() || idNode.isNumber()) ? idNode.asText() : null;
        Rec rec = new Rec(line, line, start, end, id, time, session != null ? session : stem, project, false, Map.of());
        String role = Json.text(node, "role");
        if (role == null) {
            // The session's fields, or something else: nothing to say.
            chunker.passive(rec);
            return;
        }
        if (!GenericFormat.ROLES.contains(role)) {
            unknown("role " + role, line);
            chunker.passive(rec);
            return;
        }
        String text = contentText(node.get("content"));
        switch (role) {
            case "user" -> {
                if (Text.isBlank(text)) {
                    chunker.passive(rec);
                } else {
                    if (chunker.request(rec, Text.clean(text), Chunker.RequestKind.TYPED)) {
                        // Other agents' exchanges ended when this one's chunker took over.
                        ObjectNode context = JSON.createObjectNode();
                        context.put("agent", agent);
                        context.put("session", session);
                        context.put("project", project);
                        context.put("calls", calls);
                        resumeHere(line, start, context);
                    }
                }
            }
            case "assistant" -> assistant(chunker, rec, node, text);
            case "tool", "function" -> {
                String callId = first(Json.nonBlank(node, "tool_call_id"), "name:" + Json.nonBlank(node, "name"));
                chunker.toolResult(rec, callId, text == null ? "" : text, Json.bool(node, "is_error"));
            }
            default -> chunker.passive(rec);
        }
    }

    private void assistant(Chunker chunker, Rec rec, JsonNode node, String text) {
        String messageId = "line:" + rec.line();
        boolean used = false;
        String reasoning = first(Json.nonBlank(node, "reasoning_content"), Json.nonBlank(node, "reasoning"));
        if (reasoning != null) {
            chunker.thinking(rec, messageId, reasoning);
            used = true;
        }
        if (!Text.isBlank(text)) {
            chunker.text(rec, messageId, text);
            used = true;
        }
        JsonNode toolCalls = Json.array(node, "tool_calls");
        if (toolCalls != null) {
            for (JsonNode call : toolCalls) {
                JsonNode function = call.path("function");
                String name = first(Json.nonBlank(function, "name"), "tool");
                JsonNode args = function.get("arguments");
                if (args != null && args.isTextual()) {
                    try {
                        JsonNode parsed = JSON.readTree(args.asText());
                        args = parsed != null && parsed.isObject() ? parsed : TextNode.valueOf(args.asText());
                    } catch (IOException e) {
                        // shown as it is
                    }
                }
                String id = first(Json.nonBlank(call, "id"), "call:" + (++calls));
                String label = args != null && args.isTextual()
                        ? Text.oneLine("[" + name + "] " + args.asText(), ToolRender.LABEL_CHARS)
                        : ToolRender.call(name, args, project);
                chunker.toolCall(rec, messageId, id, name, label, ToolRender.input(args));
                used = true;
            }
        }
        JsonNode functionCall = Json.object(node, "function_call");
        if (functionCall != null) {
            String name = first(Json.nonBlank(functionCall, "name"), "function");
            chunker.toolCall(rec, messageId, "name:" + name, name,
                    Text.oneLine("[" + name + "] " + functionCall.path("arguments").asText(""), ToolRender.LABEL_CHARS));
            used = true;
        }
        if (!used) {
            chunker.passive(rec);
        }
    }

    @Override
    void restore(ObjectNode context) {
        agent = Json.text(context, "agent");
        session = Json.text(context, "session");
        project = Json.text(context, "project");
        calls = context.path("calls").asInt();
    }

    /** A chunker for the current agent name; switching agents ends the other agent's exchange. */
    private Chunker chunker() {
        Chunker c = chunkers.computeIfAbsent(agent, name -> new Chunker(file, name, this::emit, passages));
        if (current != null && current != c) {
            current.finishAll();
        }
        current = c;
        return c;
    }

    private static String contentText(JsonNode content) {
        if (content == null || content.isNull()) {
            return null;
        }
        if (content.isTextual()) {
            return content.asText();
        }
        if (!content.isArray()) {
            return null;
        }
        StringBuilder s = new StringBuilder();
        for (JsonNode part : content) {
            String piece = part.isTextual() ? part.asText()
                    : part.path("text").isTextual() ? part.path("text").asText()
                    : part.path("type").asText("").contains("image") ? "[image]" : null;
            if (piece != null && !piece.isBlank()) {
                s.append(s.length() == 0 ? "" : "\n").append(piece);
            }
        }
        return s.toString();
    }

    private static <T> T first(T a, T b) {
        return a != null ? a : b;
    }

    @Override
    void finish() {
        for (Chunker c : chunkers.values()) {
            c.finishAll();
        }
    }
}
