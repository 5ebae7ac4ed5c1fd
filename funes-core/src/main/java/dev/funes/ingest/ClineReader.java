package dev.funes.ingest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.funes.Memory;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;


import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one Cline (or Roo Code) {@code api_conversation_history.json} into memories, with the
 * task folder's {@code ui_messages.json} for times and {@code task_metadata.json} for the
 * model and edited files; one instance per file and call.
 *
 * <p>The history is what the model saw: the task in {@code <task>}, the model's answers with
 * their tool calls (native {@code tool_use} blocks, or XML tags in the text in older versions),
 * tool results as {@code [tool for 'x'] Result:} texts, the person's feedback and answers in
 * {@code <feedback>} and {@code <answer>}, and injected context ({@code <environment_details>},
 * task-progress reminders), which is read for metadata only. See docs/FORMATS.md.
 */
final class ClineReader extends JsonDocReader {

    private static final Logger LOG = LoggerFactory.getLogger(ClineReader.class);

    /** Side files larger than this are not read (their metadata is left out). */
    private static final long MAX_SIDE_FILE = 64L << 20;

    private static final Pattern TASK = Pattern.compile("<task>\\s*(.*?)\\s*(?:</task>|$)", Pattern.DOTALL);
    private static final Pattern FEEDBACK = Pattern.compile("<(feedback|answer|user_message)>\\s*(.*?)\\s*(?:</\\1>|$)",
            Pattern.DOTALL);
    private static final Pattern RESULT = Pattern.compile("^\\[([\\w.-]+)(?: for '(.*?)')?\\] Result:\\s*", Pattern.DOTALL);
    private static final Pattern CWD = Pattern.compile("# Current Working Directory \\((.+?)\\) Files");
    private static final Pattern WORKSPACES = Pattern.compile("# Workspace Configuration\\s*(\\{.*?\\n\\})", Pattern.DOTALL);
    private static final Pattern THINKING = Pattern.compile("<thinking>\\s*(.*?)\\s*(?:</thinking>|$)", Pattern.DOTALL);
    /** Tools whose call is the agent speaking to the person: shown as its text. */
    private static final Map<String, String> SPEECH = Map.of("attempt_completion", "result", "ask_followup_question", "question",
            "plan_mode_respond", "response");
    private static final Set<String> TOOLS = Set.of("read_file", "write_to_file", "replace_in_file", "execute_command",
            "search_files", "list_files", "list_code_definition_names", "browser_action", "use_mcp_tool",
            "access_mcp_resource", "ask_followup_question", "attempt_completion", "plan_mode_respond", "new_task",
            "web_fetch", "load_mcp_documentation", "condense", "summarize_task", "report_bug", "apply_diff",
            "insert_content", "search_and_replace", "switch_mode", "fetch_instructions", "codebase_search", "update_todo_list");
    private static final Pattern XML_TOOL = Pattern.compile("<(" + String.join("|", TOOLS) + ")>(.*?)</\\1>", Pattern.DOTALL);
    private static final Pattern XML_PARAM = Pattern.compile("<([a-z_]+)>(.*?)</\\1>", Pattern.DOTALL);
    private static final List<String> INJECTED = List.of("<environment_details>", "# task_progress", "# TODO LIST",
            "[TASK RESUMPTION]", "<explicit_instructions", "# Reminder:", "<environment_details");

    private final Chunker chunker;
    private final String session;
    private final Map<Integer, Long> times = new HashMap<>();
    private final Map<String, String> meta = new TreeMap<>();
    private String project;
    private Set<String> edits = Set.of();
    private String lastCommit;
    private String lastBranch;
    private final Long taskStart;

    /** Calls of the last assistant message still waiting for their result, in order. */
    private final List<String[]> pending = new ArrayList<>();
    private int syntheticIds;

    ClineReader(Path file, Consumer<Memory> sink) {
        super(file, sink);
        this.chunker = new Chunker(file, ClineFormat.NAME, this::emit, PassageSink.wants(sink));
        Path folder = file.getParent();
        this.session = folder != null && folder.getFileName() != null ? folder.getFileName().toString() : "cline";
        // Cline names a task after the time it started, in milliseconds.
        this.taskStart = session.matches("\\d{13}") ? Long.valueOf(session) : null;
        if (file.toString().contains("roo-cline")) {
            meta.put("agentVariant", "roo-code");
        }
    }

    @Override
    String what() {
        return "the JSON array";
    }

    @Override
    void walk(JsonDoc doc) throws IOException {
        Path folder = file.getParent();
        if (folder != null) {
            taskMetadata(folder.resolve("task_metadata.json"));
            uiTimes(folder.resolve("ui_messages.json"));
        }
        messages(doc);
    }

    @Override
    void finish() {
        chunker.finishAll();
    }

    // ---- the task folder's other files -------------------------------------------------------

    /** Model, agent version and the files the task edited, from {@code task_metadata.json}. */
    private void taskMetadata(Path path) {
        try {
            if (!Files.isRegularFile(path) || Files.size(path) > MAX_SIDE_FILE) {
                return;
            }
            JsonNode root = JsonLinesReader.JSON.readTree(path.toFile());
            JsonNode usage = Json.array(root, "model_usage");
            if (usage != null && usage.size() > 0) {
                putIf("model", Json.nonBlank(usage.get(usage.size() - 1), "model_id"));
            }
            JsonNode env = Json.array(root, "environment_history");
            if (env != null && env.size() > 0) {
                putIf("agentVersion", Json.nonBlank(env.get(env.size() - 1), "cline_version"));
            }
            JsonNode files = Json.array(root, "files_in_context");
            if (files != null) {
                LinkedHashSet<String> edited = new LinkedHashSet<>();
                for (JsonNode f : files) {
                    String source = Json.text(f, "record_source");
                    String p = Json.nonBlank(f, "path");
                    if (p != null && source != null && source.endsWith("_edited")) {
                        edited.add(p);
                    }
                }
                if (!edited.isEmpty()) {
                    edits = edited;
                }
            }
        } catch (IOException | RuntimeException e) {
            problems.add(0, "task_metadata.json next to it could not be read (" + Text.oneLine(String.valueOf(e.getMessage()), 120)
                    + "); its metadata is left out");
        }
    }

    /**
     * When each API message was sent: the first UI event recorded while the history held
     * {@code i} messages ({@code conversationHistoryIndex} {@code i - 1}) is message {@code i}'s.
     * Read as a stream, keeping only those two fields.
     */
    private void uiTimes(Path path) {
        if (!Files.isRegularFile(path)) {
            return;
        }
        try (JsonParser p = JsonLinesReader.JSON.getFactory().createParser(path.toFile())) {
            if (p.nextToken() != JsonToken.START_ARRAY) {
                return;
            }
            while (p.nextToken() == JsonToken.START_OBJECT) {
                long ts = -1;
                int index = Integer.MIN_VALUE;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken v = p.nextToken();
                    if ("ts".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                        ts = p.getLongValue();
                    } else if ("conversationHistoryIndex".equals(name) && v == JsonToken.VALUE_NUMBER_INT) {
                        index = p.getIntValue();
                    } else {
                        p.skipChildren();
                    }
                }
                if (ts > 0 && index != Integer.MIN_VALUE) {
                    times.merge(index + 1, ts, Math::min);
                }
            }
        } catch (IOException | RuntimeException e) {
            problems.add(0, "ui_messages.json next to it could not be read (" + Text.oneLine(String.valueOf(e.getMessage()), 120)
                    + "); times are left out");
        }
    }

    // ---- the history -------------------------------------------------------------------------

    private void messages(JsonDoc doc) throws IOException {
        JsonParser p = doc.parser();
        JsonToken first = p.nextToken();
        if (first != JsonToken.START_ARRAY) {
            problems.add(first == null ? 0 : doc.tokenLine(), "expected a JSON array of messages, found " + found(first));
            return;
        }
        int index = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() == null) {
                throw new java.io.EOFException("end of file inside the array");
            }
            int line = doc.tokenLine();
            JsonDoc.Located m = doc.readLocated();
            records++;
            try {
                message(index, m, doc, line);
            } catch (RuntimeException e) {
                skipped++;
                problems.add(line, "message #" + index + " could not be read (" + e + "); skipped");
                LOG.debug("{}:{}: message could not be read", file, line, e);
            }
            index++;
            drain();
        }
    }

    private void message(int index, JsonDoc.Located m, JsonDoc doc, int line) {
        JsonNode node = m.node;
        JsonDoc.Span whole = doc.firstLines(m.span, Chunker.MAX_LINES);
        if (!node.isObject()) {
            skipped++;
            problems.add(line, "message #" + index + " is " + Json.kind(node) + ", expected an object; skipped");
            chunker.passive(passive(whole, index));
            return;
        }
        String role = Json.text(node, "role");
        JsonNode content = node.get("content");
        if (role == null || content == null || !(content.isArray() || content.isTextual())) {
            skipped++;
            problems.add(line, "message #" + index + " has " + (role == null ? "no \"role\"" : "content that is " + Json.kind(content))
                    + "; skipped");
            chunker.passive(passive(whole, index));
            return;
        }
        Instant time = node.path("ts").isNumber() ? Json.instant(node.get("ts"))
                : times.containsKey(index) ? Instant.ofEpochMilli(times.get(index))
                : index == 0 && taskStart != null ? Instant.ofEpochMilli(taskStart) : null;
        String id = "#" + index;
        List<JsonNode> blocks = new ArrayList<>();
        if (content.isTextual()) {
            blocks.add(JsonLinesReader.JSON.createObjectNode().put("type", "text").put("text", content.asText()));
        } else {
            content.forEach(blocks::add);
        }
        String[] git = new String[2];
        if (!"assistant".equals(role)) {
            // The environment details come after the text they describe: read them first.
            for (JsonNode block : blocks) {
                String t = Json.text(block, "text");
                if (t != null) {
                    environment(t.strip(), git);
                }
            }
        }
        if (!edits.isEmpty() && !meta.containsKey("filesEdited")) {
            meta.put("filesEdited", filesEdited());
        }
        for (JsonNode block : blocks) {
            JsonDoc.Span span = m.span(block);
            span = doc.firstLines(span != null ? span : m.span, Chunker.MAX_LINES);
            Rec rec = Rec.of(span, id, time, session, project, false, Map.copyOf(meta));
            if ("assistant".equals(role)) {
                assistantBlock(rec, id, block);
            } else {
                userBlock(rec, block);
            }
        }
        if ("assistant".equals(role)) {
            chunker.annotate("model", Json.nonBlank(node.path("modelInfo"), "modelId"));
        }
        // The git state read last holds until new environment details say otherwise.
        lastCommit = git[0] != null ? git[0] : lastCommit;
        lastBranch = git[1] != null ? git[1] : lastBranch;
        chunker.annotate("gitCommit", lastCommit);
        chunker.annotate("gitBranch", lastBranch);
    }

    /** A message that adds nothing, whose id still belongs to any range it falls in. */
    private Rec passive(JsonDoc.Span span, int index) {
        return Rec.of(span, "#" + index, null, session, project, false, Map.of());
    }

    private void userBlock(Rec rec, JsonNode block) {
        String type = block.path("type").asText("");
        if ("tool_result".equals(type)) {
            String id = Json.text(block, "tool_use_id");
            removePending(id);
            chunker.toolResult(rec, id, ToolRender.flatten(block.get("content")), Json.bool(block, "is_error"));
            return;
        }
        if ("image".equals(type)) {
            chunker.passive(rec);
            return;
        }
        String text = Json.text(block, "text");
        if (Text.isBlank(text)) {
            chunker.passive(rec);
            return;
        }
        String t = text.strip();
        Matcher task = TASK.matcher(t);
        if (t.startsWith("<task>") && task.find()) {
            request(rec, task.group(1));
            return;
        }
        Matcher result = RESULT.matcher(t);
        if (result.find()) {
            toolResult(rec, result.group(1), t.substring(result.end()));
            return;
        }
        if (t.startsWith("[Response interrupted by user")) {
            chunker.marker(rec, "(interrupted by the user)");
            return;
        }
        Matcher said = FEEDBACK.matcher(t);
        if (said.find() && !Text.isBlank(said.group(2))) {
            // New instructions when a task is resumed, or the person's reply.
            request(rec, said.group(2));
            return;
        }
        for (String prefix : INJECTED) {
            if (t.startsWith(prefix)) {
                chunker.passive(rec);
                return;
            }
        }
        if (t.startsWith("[ERROR]")) {
            chunker.marker(rec, "(error: " + Text.oneLine(t.substring(7), 300) + ")");
            return;
        }
        request(rec, t);
    }

    private void request(Rec rec, String text) {
        chunker.request(rec, Text.clean(text), Chunker.RequestKind.TYPED);
        pending.clear();
    }

    /** A {@code [tool for 'x'] Result:} text: joined to the pending call of that tool; feedback in it is a request. */
    private void toolResult(Rec rec, String tool, String body) {
        String[] call = null;
        for (Iterator<String[]> it = pending.iterator(); it.hasNext(); ) {
            String[] c = it.next();
            if (c[1].equals(tool)) {
                call = c;
                it.remove();
                break;
            }
        }
        Matcher said = FEEDBACK.matcher(body);
        String feedback = said.find() && !Text.isBlank(said.group(2)) ? said.group(2) : null;
        boolean denied = body.startsWith("The user denied this operation");
        if (SPEECH.containsKey(tool)) {
            // The reply to the agent's question or final answer is the person speaking.
            if (feedback != null) {
                request(rec, feedback);
            } else {
                chunker.passive(rec);
            }
            return;
        }
        String output = feedback != null ? body.substring(0, said.start()).strip() : body;
        chunker.toolResult(rec, call == null ? null : call[0], output, denied || body.startsWith("Error"));
        if (feedback != null) {
            request(rec, feedback);
        }
    }

    private void removePending(String id) {
        pending.removeIf(c -> c[0].equals(id));
    }

    private void assistantBlock(Rec rec, String messageId, JsonNode block) {
        String type = block.path("type").asText("");
        switch (type) {
            case "thinking" -> {
                String t = Json.text(block, "thinking");
                if (Text.isBlank(t)) {
                    chunker.passive(rec);
                } else {
                    chunker.thinking(rec, messageId, t);
                }
            }
            case "text" -> assistantText(rec, messageId, Json.text(block, "text"));
            case "tool_use" -> {
                String name = Json.nonBlank(block, "name");
                String id = Json.nonBlank(block, "id");
                toolUse(rec, messageId, id, name == null ? "tool" : name, block.get("input"));
            }
            default -> chunker.passive(rec);
        }
    }

    /** Text of an answer; in older versions it carries {@code <thinking>} and the tool calls as XML tags. */
    private void assistantText(Rec rec, String messageId, String text) {
        if (Text.isBlank(text)) {
            chunker.passive(rec);
            return;
        }
        String rest = text;
        Matcher thinking = THINKING.matcher(rest);
        if (thinking.find()) {
            if (!Text.isBlank(thinking.group(1))) {
                chunker.thinking(rec, messageId, thinking.group(1));
            }
            rest = rest.substring(0, thinking.start()) + rest.substring(thinking.end());
        }
        Matcher tool = XML_TOOL.matcher(rest);
        StringBuilder plain = new StringBuilder();
        int from = 0;
        List<Object[]> calls = new ArrayList<>();
        while (tool.find()) {
            plain.append(rest, from, tool.start());
            from = tool.end();
            ObjectNode input = JsonLinesReader.JSON.createObjectNode();
            Matcher param = XML_PARAM.matcher(tool.group(2));
            while (param.find()) {
                input.put(param.group(1), param.group(2).strip());
            }
            calls.add(new Object[] {tool.group(1), input});
        }
        plain.append(rest.substring(from));
        if (!plain.toString().isBlank()) {
            chunker.text(rec, messageId, plain.toString().strip());
        }
        for (Object[] c : calls) {
            toolUse(rec, messageId, "xml-" + (++syntheticIds), (String) c[0], (JsonNode) c[1]);
        }
    }

    private void toolUse(Rec rec, String messageId, String id, String name, JsonNode input) {
        String callId = id != null ? id : "call-" + (++syntheticIds);
        pending.add(new String[] {callId, name});
        String spoken = SPEECH.get(name);
        if (spoken != null) {
            String said = Json.nonBlank(input, spoken);
            if (said != null) {
                chunker.text(rec, messageId, said);
            } else {
                chunker.passive(rec);
            }
            return;
        }
        chunker.toolCall(rec, messageId, callId, name, ToolRender.call(name, input, project), ToolRender.input(input));
    }

    /** Reads the project and its git commit and branch (into {@code git}) from injected environment details. */
    private void environment(String text, String[] git) {
        if (!text.startsWith("<environment_details>")) {
            return;
        }
        Matcher cwd = CWD.matcher(text);
        if (cwd.find()) {
            project = cwd.group(1).strip();
        }
        Matcher ws = WORKSPACES.matcher(text);
        if (ws.find()) {
            try {
                JsonNode workspaces = JsonLinesReader.JSON.readTree(ws.group(1)).path("workspaces");
                Iterator<Map.Entry<String, JsonNode>> it = workspaces.properties().iterator();
                if (it.hasNext()) {
                    Map.Entry<String, JsonNode> first = it.next();
                    project = first.getKey();
                    git[0] = Json.nonBlank(first.getValue(), "latestGitCommitHash");
                    git[1] = Json.nonBlank(first.getValue(), "latestGitBranchName");
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("{}: workspace configuration not readable", file, e);
            }
        }
    }

    /** The files the task edited, relative to the project, comma-separated, at most 300 characters. */
    private String filesEdited() {
        String base = project == null ? "\u0000" : project.endsWith("/") ? project : project + "/";
        List<String> names = new ArrayList<>();
        for (String path : edits) {
            names.add(path.startsWith(base) ? path.substring(base.length()) : path);
        }
        return Text.head(String.join(",", names), 300);
    }

    private void putIf(String key, String value) {
        if (value != null && !value.isBlank()) {
            meta.put(key, value);
        }
    }
}
