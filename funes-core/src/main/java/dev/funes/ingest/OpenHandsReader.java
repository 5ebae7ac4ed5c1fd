package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads one OpenHands trajectory (a JSON array of events) into memories; one instance per file
 * and call. An action is what the user or the agent did (a message, a command, an edit); an
 * observation is what came of it and names its action in {@code cause}. See docs/FORMATS.md.
 */
final class OpenHandsReader extends JsonDocReader {

    /** Events that add nothing: the agent's state machine, the system prompt, memory recalls. */
    private static final Set<String> SILENT = Set.of("change_agent_state", "agent_state_changed", "null", "recall",
            "system", "message_queued");

    private final Chunker chunker;
    private final String session;
    private String project;

    OpenHandsReader(Path file, Consumer<Memory> sink) {
        super(file, sink);
        this.chunker = new Chunker(file, OpenHandsFormat.NAME, this::emit, PassageSink.wants(sink));
        String name = file.getFileName() == null ? "openhands" : file.getFileName().toString();
        this.session = name.replaceFirst("\\.json$", "");
    }

    @Override
    String what() {
        return "the JSON array";
    }

    @Override
    void walk(JsonDoc doc) throws IOException {
        JsonParser p = doc.parser();
        JsonToken first = p.nextToken();
        if (first != JsonToken.START_ARRAY) {
            problems.add(first == null ? 0 : doc.tokenLine(), "expected a JSON array of events, found " + found(first));
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == null) {
                throw new java.io.EOFException("end of file inside the array");
            }
            int line = doc.tokenLine();
            JsonDoc.Located event = doc.readLocated();
            records++;
            try {
                event(event, doc, line);
            } catch (RuntimeException e) {
                skipped++;
                problems.add(line, "event could not be read (" + e + "); skipped");
            }
            drain();
        }
    }

    @Override
    void finish() {
        chunker.finishAll();
    }

    private void event(JsonDoc.Located located, JsonDoc doc, int line) {
        JsonNode e = located.node;
        JsonDoc.Span span = doc.firstLines(located.span, Chunker.MAX_LINES);
        if (!e.isObject()) {
            skipped++;
            problems.add(line, "event is " + Json.kind(e) + ", expected an object; skipped");
            return;
        }
        JsonNode idNode = e.get("id");
        String id = idNode != null && (idNode.isNumber() || idNode.isTextual()) ? idNode.asText() : null;
        Instant time = Json.instant(e.get("timestamp"));
        String action = Json.text(e, "action");
        String observation = Json.text(e, "observation");
        // Cite the fields that are read, not the model's raw response that events carry along.
        JsonDoc.Span used = action != null ? located.field(e, "args")
                : join(located.field(e, "content"), located.field(e, "extras"));
        if (used != null) {
            span = doc.firstLines(used, Chunker.MAX_LINES);
        }
        Rec rec = Rec.of(span, id, time, session, project, false, Map.of());
        if (action == null && observation == null) {
            skipped++;
            problems.add(line, "event has neither \"action\" nor \"observation\"; skipped");
            chunker.passive(rec);
            return;
        }
        JsonNode args = e.path("args");
        if (action != null) {
            action(rec, e, action, args);
        } else {
            observation(rec, e, observation);
        }
    }

    private void action(Rec rec, JsonNode e, String action, JsonNode args) {
        String source = Json.text(e, "source");
        String thought = Json.nonBlank(args, "thought");
        String callId = "event:" + rec.id();
        switch (action) {
            case "message" -> {
                String text = first(Json.nonBlank(args, "content"), Json.nonBlank(e, "message"));
                JsonNode images = Json.array(args, "image_urls");
                if (images != null && images.size() > 0) {
                    text = (text == null ? "" : text + " ") + "[image]".repeat(Math.min(images.size(), 5));
                }
                if (Text.isBlank(text)) {
                    chunker.passive(rec);
                } else if ("user".equals(source)) {
                    chunker.request(rec, Text.clean(text), Chunker.RequestKind.TYPED);
                } else {
                    chunker.text(rec, callId, text);
                }
            }
            case "think" -> {
                if (thought == null) {
                    chunker.passive(rec);
                } else {
                    chunker.thinking(rec, callId, thought);
                }
            }
            case "finish" -> {
                if (thought != null) {
                    chunker.thinking(rec, callId, thought);
                }
                String said = first(Json.nonBlank(args, "final_thought"), Json.nonBlank(args.path("outputs"), "content"));
                said = said != null ? said : thought == null ? Json.nonBlank(e, "message") : null;
                if (said != null) {
                    chunker.text(rec, callId, said);
                } else if (thought == null) {
                    chunker.passive(rec);
                }
            }
            case "condensation" -> {
                chunker.passive(rec);
                summary(rec, Json.nonBlank(args, "summary"));
            }
            default -> {
                if (SILENT.contains(action)) {
                    chunker.passive(rec);
                    return;
                }
                if (thought != null) {
                    chunker.thinking(rec, callId, thought);
                }
                chunker.toolCall(rec, callId, callId, action, label(action, args), ToolRender.input(input(e, args)));
            }
        }
    }

    /**
     * What a call's passages hold: its {@code args}, except where OpenHands keeps the call only as
     * the Python it runs ({@code translated_ipython_code}: a file editor's {@code file_text},
     * {@code old_str} and {@code new_str} as string literals, their line breaks written
     * {@code \n}); then the arguments the model gave, read from {@code tool_call_metadata},
     * when the event has them.
     */
    private static JsonNode input(JsonNode e, JsonNode args) {
        if (Json.nonBlank(args, "translated_ipython_code") == null) {
            return args;
        }
        JsonNode meta = e.path("tool_call_metadata");
        String id = Json.nonBlank(meta, "tool_call_id");
        if (id == null) {
            return args;
        }
        for (JsonNode choice : meta.path("model_response").path("choices")) {
            for (JsonNode call : choice.path("message").path("tool_calls")) {
                JsonNode arguments = id.equals(Json.nonBlank(call, "id"))
                        ? Json.object(Json.nonBlank(call.path("function"), "arguments")) : null;
                if (arguments != null) {
                    return arguments;
                }
            }
        }
        return args;
    }

    /** {@code [run] npm test}, {@code [edit] src/app.js}, {@code [browse] https://...}. */
    private String label(String action, JsonNode args) {
        String body = switch (action) {
            case "run", "run_ipython" -> ToolRender.shellCommand(args.has("command") ? args.get("command") : args.get("code"));
            case "read", "write", "edit" -> {
                String path = Json.nonBlank(args, "path");
                String command = Json.nonBlank(args, "command");
                yield (command == null ? "" : command + " ") + (path == null ? "" : relative(path));
            }
            case "browse" -> Json.nonBlank(args, "url");
            case "browse_interactive" -> Json.nonBlank(args, "browser_actions");
            case "delegate" -> first(Json.nonBlank(args, "agent"), "") + " " + first(Json.nonBlank(args.path("inputs"), "task"), "");
            case "mcp", "call_tool_mcp" -> first(Json.nonBlank(args, "name"), "") + " " + args.path("arguments");
            default -> null;
        };
        return body == null ? ToolRender.call(action, args, project)
                : Text.oneLine("[" + action + "]" + (Text.isBlank(body) ? "" : " " + body), ToolRender.LABEL_CHARS);
    }

    private void observation(Rec rec, JsonNode e, String observation) {
        if (SILENT.contains(observation)) {
            chunker.passive(rec);
            return;
        }
        JsonNode extras = e.path("extras");
        String workingDir = Json.nonBlank(extras.path("metadata"), "working_dir");
        if (workingDir != null && project == null) {
            project = workingDir;
        }
        JsonNode cause = e.get("cause");
        String callId = cause != null && (cause.isNumber() || cause.isTextual()) ? "event:" + cause.asText() : null;
        String content = first(Json.text(e, "content"), Json.text(e, "message"));
        if ("edit".equals(observation) || "write".equals(observation)) {
            content = first(Json.nonBlank(extras, "formatted_output_and_error"), content);
        }
        JsonNode exit = extras.path("metadata").path("exit_code");
        boolean error = "error".equals(observation) || "user_rejected".equals(observation)
                || (exit.isNumber() && exit.asInt() > 0);
        if ("user_rejected".equals(observation) && Text.isBlank(content)) {
            content = "rejected by the user";
        }
        if (callId == null) {
            if (error && !Text.isBlank(content)) {
                chunker.marker(rec, "(error: " + Text.oneLine(content, 300) + ")");
            } else {
                chunker.passive(rec);
            }
            return;
        }
        chunker.toolResult(rec, callId, content == null ? "" : content, error);
    }

    private void summary(Rec rec, String text) {
        if (Text.isBlank(text)) {
            return;
        }
        emit(Memory.builder(MemoryKind.SUMMARY, OpenHandsFormat.NAME, Text.headTail(Text.clean(Privacy.strip(text)), Chunker.MAX_CHARS))
                .time(rec.time(), rec.time())
                .project(project)
                .session(session)
                .provenance(new Provenance(file, rec.line(), rec.lastLine(), rec.start(), rec.end(),
                        rec.id() == null ? List.of() : List.of(rec.id())))
                .metadata("compaction", "true")
                .build());
    }

    private String relative(String path) {
        String base = project == null ? "/workspace/" : project.endsWith("/") ? project : project + "/";
        return path.startsWith(base) && path.length() > base.length() ? path.substring(base.length()) : path;
    }

    /** The lines from the first span to the second (either may be null). */
    private static JsonDoc.Span join(JsonDoc.Span a, JsonDoc.Span b) {
        if (a == null || b == null) {
            return a != null ? a : b;
        }
        JsonDoc.Span from = a.firstLine() <= b.firstLine() ? a : b;
        JsonDoc.Span to = a.lastLine() >= b.lastLine() ? a : b;
        if (from.firstLine() != to.lastLine()) {
            return new JsonDoc.Span(from.firstLine(), to.lastLine(), from.start(), to.end());
        }
        return new JsonDoc.Span(from.firstLine(), to.lastLine(), from.start(), to.end(),
                Math.min(a.valueStart(), b.valueStart()), Math.max(a.valueEnd(), b.valueEnd()));
    }

    private static String first(String a, String b) {
        return a != null ? a : b;
    }
}
