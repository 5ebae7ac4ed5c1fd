package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one Codex rollout, line by line, into memories; one instance per file and call.
 *
 * <p>A rollout logs most things twice: what the model saw ({@code response_item}) and what the
 * UI showed ({@code event_msg}). What the person typed is the {@code user_message} event; the
 * user {@code response_item}s also carry injected context (AGENTS.md, environment), so they are
 * held until the event shows which one was typed. Agent texts and reasoning summaries logged
 * both ways are kept once. See docs/FORMATS.md.
 */
final class CodexReader extends JsonLinesReader {

    /** Records held while deciding which user item was typed; past this they are let go. */
    static final int MAX_HELD = 256;
    /** Recent agent texts remembered to drop their second copy. */
    private static final int RECENT = 64;

    private static final Pattern ROLLOUT_ID = Pattern.compile(
            "([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\\.jsonl$");
    private static final Pattern OPEN_TAG = Pattern.compile("<([A-Za-z_][A-Za-z0-9_ -]{0,60})>");
    private static final Pattern OUTPUT_HEADER = Pattern.compile(
            "(Chunk ID|Wall time|Process exited with code|Process running with session ID|Original token count|Exit code"
                    + "|Total output lines)\\b.*");
    private static final Pattern EXIT = Pattern.compile("(?:Process exited with code|Exit code:)\\s*(-?\\d+)");
    private static final Pattern RUNNING = Pattern.compile("Process running with session ID\\s*(\\S+)");
    /** Shell tools whose calls start a process that {@code write_stdin} may poll later. */
    private static final java.util.Set<String> SHELL_TOOLS = java.util.Set.of("exec_command", "shell", "shell_command",
            "local_shell", "container.exec");
    private static final Pattern FAILED = Pattern.compile("^[\\w .-]{0,60}\\b(failed|error|Error)\\b[^\\n]{0,40}:");
    private static final String IDE_REQUEST = "## My request for Codex:";

    private final Chunker chunker;
    private final String nameSession;

    private String session;
    private String cwd;
    private String gitBranch;
    private String gitCommit;
    private String version;
    private String model;
    private Map<String, String> meta = Map.of();

    private boolean sawUserEvents;
    private final List<Held> held = new ArrayList<>();
    private int heldUsers;
    private String lastKey;
    private final LinkedHashSet<String> recent = new LinkedHashSet<>();
    private int response;
    /** The command of each recent shell call, and of each process still running, to name what a poll reads. */
    private final Map<String, String> commands = bounded();
    private final Map<String, String> processes = bounded();

    /** The first record held since {@link #held} was last empty, and the reader's state just before it. */
    private Rec runStart;
    private ObjectNode runContext;

    /** A record held back while a user item waits for its event: a user item (text set) or any other. */
    private record Held(Rec rec, String userText) {
    }

    CodexReader(Path file, Consumer<Memory> sink) {
        super(file, sink);
        this.chunker = new Chunker(file, CodexFormat.NAME, this::emit, PassageSink.wants(sink));
        String name = file.getFileName() == null ? "" : file.getFileName().toString();
        Matcher id = ROLLOUT_ID.matcher(name);
        this.nameSession = id.find() ? id.group(1) : name.replaceFirst("\\.jsonl$", "");
    }

    // ---- records -----------------------------------------------------------------------------

    @Override
    void record(int line, long start, long end, JsonNode node) {
        JsonNode typeNode = node.get("type");
        String type = typeNode != null && typeNode.isTextual() ? typeNode.asText() : null;
        JsonNode payload = node.get("payload");
        if ("session_meta".equals(type) && payload != null && payload.isObject()) {
            sessionMeta(payload);
        } else if ("turn_context".equals(type) && payload != null && payload.isObject()) {
            turnContext(payload);
        }
        Rec rec = new Rec(line, line, start, end, null, Json.instant(node.get("timestamp")),
                session != null ? session : nameSession, cwd, false, meta);
        if (type == null) {
            unknown(typeNode == null ? "(no type)" : "(type is " + Json.kind(typeNode) + ")", line);
            passive(rec);
            return;
        }
        if (!CodexFormat.RECORD_TYPES.contains(type)) {
            unknown(type, line);
            passive(rec);
            return;
        }
        if (payload == null || !payload.isObject()) {
            skip();
            problems.add(line, type + " record has no \"payload\" object (" + Json.kind(payload) + "); skipped");
            passive(rec);
            return;
        }
        switch (type) {
            case "response_item" -> item(rec, payload);
            case "event_msg" -> event(rec, payload);
            case "compacted" -> compacted(rec, payload);
            default -> passive(rec);
        }
    }

    private void sessionMeta(JsonNode p) {
        if (session == null) {
            session = Json.nonBlank(p, "id");
        }
        if (cwd == null) {
            cwd = Json.nonBlank(p, "cwd");
        }
        JsonNode git = Json.object(p, "git");
        gitBranch = first(gitBranch, Json.nonBlank(git, "branch"));
        gitCommit = first(gitCommit, Json.nonBlank(git, "commit_hash"));
        version = first(version, Json.nonBlank(p, "cli_version"));
        updateMeta();
    }

    private void turnContext(JsonNode p) {
        String c = Json.nonBlank(p, "cwd");
        if (c != null) {
            cwd = c;
        }
        String m = Json.nonBlank(p, "model");
        if (m != null) {
            model = m;
            if (held.isEmpty()) {
                // Usually logged just after the request it serves.
                chunker.annotate("model", m);
            }
        }
        updateMeta();
    }

    private void updateMeta() {
        Map<String, String> m = new HashMap<>(6);
        putIf(m, "gitBranch", gitBranch);
        putIf(m, "gitCommit", gitCommit);
        putIf(m, "agentVersion", version);
        putIf(m, "model", model);
        if (!m.equals(meta)) {
            meta = Map.copyOf(m);
        }
    }

    private void item(Rec rec, JsonNode p) {
        String type = Json.text(p, "type");
        switch (type == null ? "" : type) {
            case "message" -> message(rec, p);
            case "reasoning" -> reasoning(rec, p);
            case "function_call" -> {
                String name = nameOr(Json.text(p, "name"), "function");
                String raw = Json.text(p, "arguments");
                toolCall(rec, Json.text(p, "call_id"), name, arguments(raw, p.get("arguments")));
            }
            case "custom_tool_call" -> {
                String name = nameOr(Json.text(p, "name"), "tool");
                JsonNode input = p.get("input");
                toolCall(rec, Json.text(p, "call_id"), name,
                        input != null && input.isTextual() && !"apply_patch".equals(name) ? arguments(input.asText(), input) : input);
            }
            case "local_shell_call" -> {
                String id = first(Json.text(p, "call_id"), Json.text(p, "id"));
                toolCall(rec, id, "shell", Json.object(p, "action"));
            }
            case "function_call_output", "custom_tool_call_output", "local_shell_call_output" -> {
                resolvePending();
                Output out = output(p.get("output"));
                String callId = Json.text(p, "call_id");
                if (out.process() != null && callId != null && commands.containsKey(callId)) {
                    processes.put(out.process(), commands.get(callId));
                }
                chunker.toolResult(rec, callId, out.text(), out.error());
                response++;
                lastKey = null;
            }
            case "web_search_call" -> webSearch(rec, p);
            case "ghost_snapshot" -> {
                passive(rec);
                if (held.isEmpty()) {
                    chunker.annotate("ghostCommit", Json.nonBlank(Json.object(p, "ghost_commit"), "id"));
                }
            }
            default -> passive(rec);
        }
    }

    private void message(Rec rec, JsonNode p) {
        String role = Json.text(p, "role");
        JsonNode content = p.get("content");
        if (content == null || !(content.isArray() || content.isTextual())) {
            skip();
            problems.add(rec.line(), "message content is " + Json.kind(content) + ", expected an array; skipped");
            passive(rec);
            return;
        }
        String text = contentText(content);
        if ("user".equals(role)) {
            userItem(rec, text);
        } else if ("assistant".equals(role)) {
            agentText(rec, text);
        } else {
            // developer and system messages: instructions, never something the person said
            passive(rec);
        }
    }

    private void reasoning(Rec rec, JsonNode p) {
        StringBuilder s = new StringBuilder();
        appendTexts(s, Json.array(p, "summary"));
        if (s.length() == 0) {
            appendTexts(s, Json.array(p, "content"));
        }
        thinking(rec, s.toString());
    }

    private void webSearch(Rec rec, JsonNode p) {
        JsonNode action = Json.object(p, "action");
        String what = first(Json.nonBlank(action, "query"), first(Json.nonBlank(action, "url"), Json.nonBlank(action, "pattern")));
        if (what == null) {
            JsonNode queries = Json.array(action, "queries");
            what = queries != null && queries.size() > 0 && queries.get(0).isTextual() ? queries.get(0).asText() : null;
        }
        resolvePending();
        String label = Text.oneLine("[web_search]" + (what == null ? "" : " " + what), ToolRender.LABEL_CHARS);
        chunker.toolCall(rec, "response:" + response, null, "web_search", label);
        lastKey = null;
    }

    private void event(Rec rec, JsonNode p) {
        String type = Json.text(p, "type");
        switch (type == null ? "" : type) {
            case "user_message" -> userEvent(rec, p);
            case "agent_message" -> agentText(rec, Json.text(p, "message"));
            case "agent_reasoning" -> thinking(rec, Json.text(p, "text"));
            case "turn_aborted" -> {
                resolvePending();
                String reason = Json.nonBlank(p, "reason");
                chunker.marker(rec, "(turn aborted" + (reason == null ? "" : ": " + reason) + ")");
                lastKey = null;
            }
            case "error" -> {
                resolvePending();
                String message = Json.nonBlank(p, "message");
                chunker.marker(rec, "(error" + (message == null ? "" : ": " + Text.oneLine(message, 300)) + ")");
                lastKey = null;
            }
            default -> passive(rec);
        }
    }

    private void compacted(Rec rec, JsonNode p) {
        String text = Json.text(p, "message");
        passive(rec);
        if (Text.isBlank(text)) {
            // Remote compaction keeps only an encrypted summary: nothing readable to remember.
            return;
        }
        Memory summary = Memory.builder(MemoryKind.SUMMARY, CodexFormat.NAME, Text.headTail(Text.clean(Privacy.strip(text)), Chunker.MAX_CHARS))
                .time(rec.time(), rec.time())
                .project(rec.cwd())
                .session(rec.session())
                .provenance(new Provenance(file, rec.line(), rec.line(), rec.start(), rec.end(), List.of()))
                .metadata("compaction", "true")
                .metadata("gitBranch", gitBranch)
                .build();
        emit(summary);
    }

    // ---- what the person typed ---------------------------------------------------------------

    private void userItem(Rec rec, String text) {
        String typed = typed(text);
        if (sawUserEvents && held.isEmpty() && ("u:" + normal(typed)).equals(lastKey)) {
            // The copy of a request its event already made.
            chunker.repeat(rec);
            return;
        }
        if (held.isEmpty()) {
            runStart = rec;
            runContext = context();
        }
        held.add(new Held(rec, typed));
        heldUsers++;
        if (held.size() > MAX_HELD) {
            resolvePending();
        }
    }

    private void userEvent(Rec rec, JsonNode p) {
        try {
            userEventInRun(rec, p);
        } finally {
            runStart = null;
            runContext = null;
        }
    }

    private void userEventInRun(Rec rec, JsonNode p) {
        sawUserEvents = true;
        String typed = typed(Json.text(p, "message"));
        int images = Json.array(p, "images") == null ? 0 : Json.array(p, "images").size();
        String request = typed + " [image]".repeat(Math.min(images, 20));
        int match = -1;
        for (int i = held.size() - 1; i >= 0 && match < 0; i--) {
            if (held.get(i).userText() != null && normal(held.get(i).userText()).equals(normal(typed))) {
                match = i;
            }
        }
        List<Held> before = new ArrayList<>(held);
        held.clear();
        heldUsers = 0;
        for (int i = 0; i < (match < 0 ? before.size() : match); i++) {
            chunker.passive(before.get(i).rec());
        }
        if (Text.isBlank(request)) {
            chunker.passive(rec);
            return;
        }
        if (match < 0) {
            request(rec, request, typed);
            return;
        }
        request(before.get(match).rec(), request, typed);
        for (int i = match + 1; i < before.size(); i++) {
            chunker.passive(before.get(i).rec());
        }
        chunker.repeat(rec);
    }

    /** A request; {@code typed} is its text as both copies of the message carry it, to recognise the second. */
    private void request(Rec rec, String text, String typed) {
        // The next read may start here: at the records held with this one, if any, else at this one.
        Rec at = runStart != null ? runStart : rec;
        ObjectNode context = runStart != null ? runContext : context();
        boolean clean = chunker.request(rec, Text.clean(text), Chunker.RequestKind.TYPED);
        recent.clear();
        // A call's output comes before the next request; forgetting the calls keeps the resume state small.
        commands.clear();
        response++;
        lastKey = "u:" + normal(typed);
        if (clean) {
            resumeHere(at.line(), at.start(), context);
        }
    }

    /** The state a read resuming before the current record needs; the rest is rebuilt by what it reads. */
    private ObjectNode context() {
        ObjectNode c = JSON.createObjectNode();
        c.put("session", session);
        c.put("cwd", cwd);
        c.put("gitBranch", gitBranch);
        c.put("gitCommit", gitCommit);
        c.put("version", version);
        c.put("model", model);
        c.put("sawUserEvents", sawUserEvents);
        c.put("lastKey", lastKey);
        c.put("response", response);
        ObjectNode running = c.putObject("processes");
        processes.forEach(running::put);
        return c;
    }

    @Override
    void restore(ObjectNode c) {
        session = Json.text(c, "session");
        cwd = Json.text(c, "cwd");
        gitBranch = Json.text(c, "gitBranch");
        gitCommit = Json.text(c, "gitCommit");
        version = Json.text(c, "version");
        model = Json.text(c, "model");
        sawUserEvents = c.path("sawUserEvents").asBoolean();
        lastKey = Json.text(c, "lastKey");
        response = c.path("response").asInt();
        c.path("processes").fields().forEachRemaining(e -> processes.put(e.getKey(), e.getValue().asText()));
        updateMeta();
    }

    /**
     * Lets the held records go: when no event says what was typed (older rollouts log none),
     * the user items that are not injected context are the requests.
     */
    private void resolvePending() {
        if (held.isEmpty()) {
            return;
        }
        try {
            resolveRun();
        } finally {
            runStart = null;
            runContext = null;
        }
    }

    private void resolveRun() {
        List<Held> before = new ArrayList<>(held);
        held.clear();
        boolean typedItems = heldUsers > 0 && !sawUserEvents;
        heldUsers = 0;
        for (Held h : before) {
            if (typedItems && h.userText() != null && !Text.isBlank(h.userText()) && !injected(h.userText())) {
                request(h.rec(), h.userText(), h.userText());
            } else {
                chunker.passive(h.rec());
            }
        }
    }

    private void passive(Rec rec) {
        if (held.isEmpty()) {
            chunker.passive(rec);
        } else {
            held.add(new Held(rec, null));
            if (held.size() > MAX_HELD) {
                resolvePending();
            }
        }
    }

    /** The request in a message the IDE extension wrapped with context (open files, selection). */
    private static String typed(String text) {
        if (text == null) {
            return "";
        }
        int at = text.lastIndexOf(IDE_REQUEST);
        return (at >= 0 ? text.substring(at + IDE_REQUEST.length()) : text).strip();
    }

    /** Context Codex injects as user messages: AGENTS.md, {@code <environment_context>}, ... */
    static boolean injected(String text) {
        String s = text.strip();
        if (s.startsWith("# AGENTS.md instructions for") || s.startsWith("<INSTRUCTIONS>")) {
            return true;
        }
        Matcher tag = OPEN_TAG.matcher(s);
        return tag.lookingAt() && s.endsWith("</" + tag.group(1) + ">");
    }

    // ---- what the agent did ------------------------------------------------------------------

    private void agentText(Rec rec, String text) {
        if (Text.isBlank(text)) {
            passive(rec);
            return;
        }
        resolvePending();
        String key = "a:" + normal(text);
        if (!once(rec, key)) {
            return;
        }
        chunker.text(rec, "line:" + rec.line(), text);
    }

    private void thinking(Rec rec, String text) {
        if (Text.isBlank(text)) {
            passive(rec);
            return;
        }
        resolvePending();
        if (!once(rec, "t:" + normal(text))) {
            return;
        }
        chunker.thinking(rec, "response:" + response, text);
    }

    /** False for the second copy of a text (cited with the first when it follows it at once). */
    private boolean once(Rec rec, String key) {
        if (key.equals(lastKey)) {
            chunker.repeat(rec);
            return false;
        }
        if (recent.contains(key)) {
            chunker.passive(rec);
            return false;
        }
        recent.add(key);
        if (recent.size() > RECENT) {
            recent.remove(recent.iterator().next());
        }
        lastKey = key;
        return true;
    }

    private void toolCall(Rec rec, String callId, String name, JsonNode input) {
        resolvePending();
        String label;
        if (SHELL_TOOLS.contains(name) && input != null && input.isObject() && callId != null) {
            String command = ToolRender.shellCommand(input.has("command") ? input.get("command") : input.get("cmd"));
            if (command != null) {
                commands.put(callId, command);
            }
        }
        if ("write_stdin".equals(name) && input != null && input.isObject()) {
            // A poll of a running process: name the command whose output it reads.
            String process = input.path("session_id").asText("");
            String command = processes.get(process);
            if (command != null && callId != null) {
                commands.put(callId, command);
            }
            String chars = Json.text(input, "chars");
            label = Text.oneLine("[write_stdin] session " + process + (command == null ? "" : " (" + command + ")")
                    + (Text.isBlank(chars) ? "" : ": " + chars), ToolRender.LABEL_CHARS);
        } else if (input != null && input.isTextual() && !"apply_patch".equals(name)) {
            // Arguments that are not JSON (redacted, or a free-form tool): shown as they are.
            label = Text.oneLine("[" + name + "] " + input.asText(), ToolRender.LABEL_CHARS);
        } else {
            label = ToolRender.call(name, input, cwd);
        }
        chunker.toolCall(rec, "response:" + response, callId, name, label, ToolRender.input(input));
        lastKey = null;
    }

    /** A function call's arguments: the JSON object they encode, else the text itself. */
    private static JsonNode arguments(String raw, JsonNode node) {
        if (raw == null) {
            return node;
        }
        JsonNode parsed = Json.object(raw);
        return parsed != null ? parsed : TextNode.valueOf(raw);
    }

    /**
     * What a tool printed and whether it failed.
     *
     * @param process the id of the process the call left running, or null
     */
    record Output(String text, boolean error, String process) {
        Output(String text, boolean error) {
            this(text, error, null);
        }
    }

    /**
     * The output of a call: a plain string, a string holding {@code {"output":...,"metadata":
     * {"exit_code":N}}}, a string with a header ({@code Exit code: N}, {@code Wall time: ...},
     * {@code Output:}), an object with {@code content} and {@code success}, or content items.
     */
    static Output output(JsonNode out) {
        if (out == null || out.isNull()) {
            return new Output("", false);
        }
        if (out.isArray()) {
            StringBuilder s = new StringBuilder();
            appendTexts(s, out);
            return new Output(s.toString(), false);
        }
        if (out.isObject()) {
            JsonNode body = out.has("output") ? out.get("output") : out.get("content");
            Output inner = body == null ? new Output("", false) : output(body);
            JsonNode exit = out.path("metadata").path("exit_code");
            boolean failed = (exit.isNumber() && exit.asInt() != 0)
                    || (out.path("success").isBoolean() && !out.path("success").asBoolean());
            return new Output(inner.text(), inner.error() || failed, inner.process());
        }
        String s = out.asText();
        String t = s.strip();
        if (t.startsWith("{\"output\"") || t.startsWith("{\"content\"")) {
            try {
                JsonNode parsed = JSON.readTree(t);
                if (parsed != null && parsed.isObject()) {
                    return output(parsed);
                }
            } catch (Exception e) {
                // plain text that happens to start like JSON
            }
        }
        return headed(s);
    }

    private static Output headed(String s) {
        String[] lines = s.split("\n", -1);
        int i = 0;
        boolean error = false;
        String process = null;
        while (i < lines.length && OUTPUT_HEADER.matcher(lines[i].strip()).matches()) {
            Matcher exit = EXIT.matcher(lines[i]);
            if (exit.find()) {
                error = !"0".equals(exit.group(1));
            }
            Matcher running = RUNNING.matcher(lines[i]);
            if (running.find()) {
                process = running.group(1);
            }
            i++;
        }
        if (i > 0) {
            int from = i < lines.length && lines[i].strip().equals("Output:") ? i + 1 : i;
            String body = String.join("\n", java.util.Arrays.asList(lines).subList(Math.min(from, lines.length), lines.length));
            if (process != null && body.isBlank()) {
                body = "running in session " + process;
            }
            return new Output(body, error, process);
        }
        return new Output(s, FAILED.matcher(s).find());
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** The texts of content items ({@code input_text}, {@code output_text}, ...); images as {@code [image]}. */
    private static String contentText(JsonNode content) {
        if (content.isTextual()) {
            return content.asText();
        }
        StringBuilder s = new StringBuilder();
        appendTexts(s, content);
        return s.toString();
    }

    private static void appendTexts(StringBuilder s, JsonNode items) {
        if (items == null || !items.isArray()) {
            return;
        }
        for (JsonNode item : items) {
            String type = item.path("type").asText("");
            String piece = item.path("text").isTextual() ? item.path("text").asText()
                    : type.contains("image") ? "[image]" : null;
            if (piece != null && !piece.isBlank()) {
                s.append(s.length() == 0 ? "" : "\n").append(piece);
            }
        }
    }

    private static <V> Map<String, V> bounded() {
        return new java.util.LinkedHashMap<>() {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > 1024;
            }
        };
    }

    private static String normal(String s) {
        return s == null ? "" : s.strip().replaceAll("\\s+", " ");
    }

    private static String first(String a, String b) {
        return a != null ? a : b;
    }

    private static String nameOr(String name, String fallback) {
        return Text.isBlank(name) ? fallback : name;
    }

    private static void putIf(Map<String, String> m, String key, String value) {
        if (value != null && !value.isBlank()) {
            m.put(key, value);
        }
    }

    @Override
    void finish() {
        resolvePending();
        chunker.finishAll();
    }
}
