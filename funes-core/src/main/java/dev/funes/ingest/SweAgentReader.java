package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one SWE-agent trajectory into memories; one instance per file and call.
 *
 * <p>The memories come from {@code history}, the messages the model exchanged (the task, each
 * thought with its action, each observation), which holds everything {@code trajectory}
 * repeats plus the task; {@code trajectory} is only read for the working folder, and
 * {@code info} for the outcome and the submitted patch. See docs/FORMATS.md.
 */
final class SweAgentReader extends JsonDocReader {

    /** SWE-agent's own commands; any other action is a shell command. */
    private static final Set<String> COMMANDS = Set.of("open", "goto", "scroll_up", "scroll_down", "create", "edit",
            "search_dir", "search_file", "find_file", "submit", "str_replace_editor", "insert", "filemap", "exit_forfeit",
            "view", "str_replace", "undo_edit");
    private static final Pattern ISSUE = Pattern.compile("ISSUE:\\s*(.*?)\\s*(?:INSTRUCTIONS:|$)", Pattern.DOTALL);
    private static final Pattern PR = Pattern.compile("<pr_description>\\s*(.*?)\\s*(?:</pr_description>|$)", Pattern.DOTALL);
    private static final Pattern TRAILER = Pattern.compile("\\n?\\(Open file: [^\\n]*\\)\\s*\\n\\(Current directory: [^\\n]*\\)\\s*"
            + "(?:\\n\\S*\\$\\s*)?$");
    private static final Pattern DIFF_FILE = Pattern.compile("^diff --git a/(\\S+) b/", Pattern.MULTILINE);

    private final Chunker chunker;
    private final String session;
    private String project;
    private final Map<String, String> meta = new TreeMap<>();
    private boolean requested;
    /** Ids of the actions still waiting for their observation, oldest first. */
    private final Deque<String> pending = new ArrayDeque<>();
    private int actions;

    SweAgentReader(Path file, Consumer<Memory> sink) {
        super(file, sink);
        this.chunker = new Chunker(file, SweAgentFormat.NAME, this::emit, PassageSink.wants(sink));
        String name = file.getFileName() == null ? "swe-agent" : file.getFileName().toString();
        this.session = name.replaceFirst("\\.(traj|json)$", "");
    }

    @Override
    void walk(JsonDoc doc) throws IOException {
        JsonParser p = doc.parser();
        JsonToken first = p.nextToken();
        if (first != JsonToken.START_OBJECT) {
            problems.add(first == null ? 0 : doc.tokenLine(), "expected a JSON object with \"history\", found " + found(first));
            return;
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken value = p.nextToken();
            int line = doc.tokenLine();
            switch (name) {
                case "history" -> {
                    if (value != JsonToken.START_ARRAY) {
                        problems.add(line, "\"history\" is not an array; skipped");
                        p.skipChildren();
                        continue;
                    }
                    int index = 0;
                    while (p.nextToken() != JsonToken.END_ARRAY) {
                        if (p.currentToken() == null) {
                            throw new java.io.EOFException("end of file inside \"history\"");
                        }
                        int at = doc.tokenLine();
                        JsonDoc.Located m = doc.readLocated();
                        records++;
                        try {
                            message(index, m, doc, at);
                        } catch (RuntimeException e) {
                            skipped++;
                            problems.add(at, "message #" + index + " could not be read (" + e + "); skipped");
                        }
                        index++;
                        drain();
                    }
                }
                case "trajectory" -> workingDir(doc, value);
                case "info" -> info(doc.readLocated(), doc);
                case "environment" -> {
                    JsonDoc.Located env = doc.readLocated();
                    if (env.node.isTextual()) {
                        meta.put("environment", env.node.asText());
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    @Override
    void finish() {
        chunker.finishAll();
    }

    /** The working folder, from the state of the first step; the steps themselves repeat the history. */
    private void workingDir(JsonDoc doc, JsonToken value) throws IOException {
        JsonParser p = doc.parser();
        if (value != JsonToken.START_ARRAY) {
            p.skipChildren();
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == null) {
                throw new java.io.EOFException("end of file inside \"trajectory\"");
            }
            if (project == null && p.currentToken() == JsonToken.START_OBJECT) {
                JsonNode step = doc.readLocated().node;
                JsonNode state = step.get("state");
                if (state != null && state.isTextual()) {
                    try {
                        state = JsonLinesReader.JSON.readTree(state.asText());
                    } catch (IOException e) {
                        state = null;
                    }
                }
                project = Json.nonBlank(state, "working_dir");
            } else {
                p.skipChildren();
            }
        }
    }

    private void message(int index, JsonDoc.Located located, JsonDoc doc, int line) {
        JsonNode m = located.node;
        JsonDoc.Span span = doc.firstLines(located.span, Chunker.MAX_LINES);
        Rec rec = Rec.of(span, "#" + index, null, session, project, false, Map.copyOf(meta));
        if (!m.isObject()) {
            skipped++;
            problems.add(line, "message #" + index + " is " + Json.kind(m) + ", expected an object; skipped");
            chunker.passive(rec);
            return;
        }
        String role = Json.text(m, "role");
        String type = Json.text(m, "message_type");
        String content = contentText(m.get("content"));
        if (role == null) {
            skipped++;
            problems.add(line, "message #" + index + " has no \"role\"; skipped");
            chunker.passive(rec);
            return;
        }
        if ("system".equals(role) || Json.bool(m, "is_demo") || "demonstration".equals(type)) {
            // The system prompt and worked examples are the same for every task.
            chunker.passive(rec);
            return;
        }
        if ("assistant".equals(role)) {
            assistant(rec, m, content);
            return;
        }
        if (!requested) {
            requested = true;
            chunker.request(rec, task(content), Chunker.RequestKind.TYPED);
            return;
        }
        observation(rec, m, content);
    }

    private void assistant(Rec rec, JsonNode m, String content) {
        String messageId = rec.id();
        String thought = Json.nonBlank(m, "thought");
        String said = thought != null ? thought : content;
        if (!Text.isBlank(said)) {
            chunker.text(rec, messageId, said.strip());
        }
        JsonNode calls = Json.array(m, "tool_calls");
        if (calls != null && calls.size() > 0) {
            for (JsonNode call : calls) {
                JsonNode function = call.path("function");
                String name = Json.nonBlank(function, "name");
                name = name == null ? "tool" : name;
                JsonNode args = function.get("arguments");
                if (args != null && args.isTextual()) {
                    try {
                        args = JsonLinesReader.JSON.readTree(args.asText());
                    } catch (IOException e) {
                        // shown as it is
                    }
                }
                String id = Json.nonBlank(call, "id");
                String callId = id != null ? id : "action:" + (++actions);
                pending.add(callId);
                String label = args != null && args.isTextual()
                        ? Text.oneLine("[" + name + "] " + args.asText(), ToolRender.LABEL_CHARS)
                        : ToolRender.call(name, args, project);
                chunker.toolCall(rec, messageId, callId, name, label, ToolRender.input(args));
            }
            return;
        }
        String action = Json.text(m, "action");
        if (!Text.isBlank(action)) {
            String callId = "action:" + (++actions);
            pending.add(callId);
            String name = action.strip().split("\\s", 2)[0];
            chunker.toolCall(rec, messageId, callId, COMMANDS.contains(name) ? name : "bash", label(action), action);
        } else if (Text.isBlank(said)) {
            chunker.passive(rec);
        }
    }

    /** {@code [edit] 14:16 (+3 lines)}, {@code [bash] python reproduce.py}. */
    static String label(String action) {
        String a = action.strip();
        String[] lines = a.split("\n", -1);
        String first = lines[0].strip();
        String name = first.split("\\s", 2)[0];
        String rest = first.substring(name.length()).strip();
        String more = lines.length > 1 ? " (+" + (lines.length - 1) + (lines.length == 2 ? " line)" : " lines)") : "";
        String label = COMMANDS.contains(name) ? "[" + name + "]" + (rest.isEmpty() ? "" : " " + rest) + more
                : "[bash] " + first + more;
        return Text.oneLine(label, ToolRender.LABEL_CHARS);
    }

    private void observation(Rec rec, JsonNode m, String content) {
        JsonNode ids = Json.array(m, "tool_call_ids");
        String callId = null;
        if (ids != null && ids.size() > 0 && ids.get(0).isTextual()) {
            callId = ids.get(0).asText();
            pending.remove(callId);
        } else if (!pending.isEmpty()) {
            callId = pending.poll();
        }
        String output = TRAILER.matcher(content == null ? "" : content.replace("\r\n", "\n")).replaceAll("");
        if (callId == null) {
            // A message from the environment that answers no action.
            chunker.passive(rec);
            return;
        }
        chunker.toolResult(rec, callId, output, output.startsWith("Traceback") || output.contains("command not found"));
    }

    /** The issue (old layout) or PR description (SWE-agent 1.x) the task message carries, else the message. */
    private static String task(String content) {
        String text = content == null ? "" : content.replace("\r\n", "\n");
        Matcher pr = PR.matcher(text);
        if (pr.find()) {
            return pr.group(1);
        }
        Matcher issue = ISSUE.matcher(text);
        return issue.find() ? issue.group(1) : text.strip();
    }

    /** The run's outcome: metadata, and the submitted patch as the last piece of the exchange. */
    private void info(JsonDoc.Located info, JsonDoc doc) {
        JsonNode node = info.node;
        if (!node.isObject()) {
            return;
        }
        String status = Json.nonBlank(node, "exit_status");
        chunker.annotate("exitStatus", status);
        String submission = Json.nonBlank(node, "submission");
        if (submission == null) {
            return;
        }
        JsonDoc.Span span = info.field(node, "submission");
        span = doc.firstLines(span != null ? span : info.span, Chunker.MAX_LINES);
        LinkedHashSet<String> files = new LinkedHashSet<>();
        Matcher f = DIFF_FILE.matcher(submission.replace("\r\n", "\n"));
        while (f.find()) {
            files.add(f.group(1));
        }
        Rec rec = Rec.of(span, null, null, session, project, false, Map.copyOf(meta));
        chunker.output(rec, Text.oneLine("Submitted a patch" + (files.isEmpty() ? "" : " to " + String.join(", ", files))
                + (status == null ? "" : " (" + status + ")"), ToolRender.RESULT_CHARS));
    }

    private static String contentText(JsonNode content) {
        if (content == null || content.isNull()) {
            return null;
        }
        if (content.isTextual()) {
            return content.asText();
        }
        return ToolRender.flatten(content);
    }
}
