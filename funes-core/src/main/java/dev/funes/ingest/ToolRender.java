package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compact renderings of agents' tool calls and results: the tool, its key input (command,
 * file, pattern, URL) and the outcome with the head and tail of long output. Tool names of
 * every supported agent are known here (they do not collide): Claude Code's {@code Bash} and
 * {@code Edit}, Codex's {@code shell} and {@code apply_patch}, Gemini CLI's
 * {@code run_shell_command}, Cline's {@code execute_command}, ...
 */
final class ToolRender {

    static final int LABEL_CHARS = 200;
    static final int RESULT_LINE_CHARS = 140;
    static final int HEAD_LINES = 3;
    static final int TAIL_LINES = 2;
    static final int RESULT_CHARS = 800;

    private static final Set<String> FILE_TOOLS = Set.of("Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead");
    private static final Set<String> READ_TOOLS = Set.of("Read", "NotebookRead",
            "read_file", "read_many_files", "view_image", "read");
    private static final Set<String> EDIT_TOOLS = Set.of("Write", "Edit", "MultiEdit", "NotebookEdit",
            "apply_patch", "write_file", "replace", "edit", "write", "write_to_file", "replace_in_file");
    /** Plan and todo updates: the label says it all, the result ("Plan updated") adds nothing. */
    private static final Set<String> PLAN_TOOLS = Set.of("TodoWrite", "update_plan", "write_todos");
    /** Tools of other agents whose key input is one file path, under one of these names. */
    private static final Set<String> PATH_TOOLS = Set.of("read_file", "write_file", "replace", "edit", "write", "read",
            "write_to_file", "replace_in_file", "list_files", "list_directory", "list_code_definition_names", "view_image");
    private static final String[] PATH_FIELDS = {"file_path", "absolute_path", "absolutePath", "path", "dir_path", "notebook_path"};

    private ToolRender() {
    }

    /** {@code [Tool] key input}, for example {@code [Bash] git status} or {@code [Edit] src/App.java}. */
    static String call(String name, JsonNode input, String cwd) {
        String body;
        if ("Bash".equals(name)) {
            body = field(input, "command");
        } else if (FILE_TOOLS.contains(name)) {
            body = relative(firstOf(input, "file_path", "notebook_path", "path"), cwd);
        } else if ("Grep".equals(name)) {
            body = join(quoted(field(input, "pattern")), prefixed(" in ", relative(field(input, "path"), cwd)),
                    prefixed(" files ", field(input, "glob")));
        } else if ("Glob".equals(name)) {
            body = join(field(input, "pattern"), prefixed(" in ", relative(field(input, "path"), cwd)));
        } else if ("WebFetch".equals(name)) {
            body = field(input, "url");
        } else if ("WebSearch".equals(name)) {
            body = field(input, "query");
        } else if ("Task".equals(name) || "Agent".equals(name)) {
            body = join(suffixed(field(input, "subagent_type"), ": "), field(input, "description"),
                    prefixed(" \u2014 ", field(input, "prompt")));
        } else if ("TodoWrite".equals(name)) {
            body = todos(input.get("todos"));
        } else {
            body = other(name, input, cwd);
        }
        String label = "[" + name + "]" + (Text.isBlank(body) ? "" : " " + body);
        return Text.oneLine(label, LABEL_CHARS);
    }

    /**
     * Everything a tool call's input says that a search may need, in full: the content of a
     * written file, both strings of an edit, a patch, a whole command or prompt; for any other tool
     * every string value of its input, each on its own lines. Numbers, booleans and field names
     * add nothing one would search for and are left out. Empty when the input holds no text.
     */
    static String input(JsonNode input) {
        StringBuilder s = new StringBuilder();
        strings(input, s, 0);
        return s.toString().strip();
    }

    private static void strings(JsonNode node, StringBuilder s, int depth) {
        if (node == null || depth > 16) {
            return;
        }
        if (node.isTextual()) {
            String v = node.asText();
            if (!Text.isBlank(v)) {
                s.append(s.length() == 0 ? "" : "\n\n").append(v);
            }
        } else if (node.isContainerNode()) {
            for (JsonNode child : node) {
                strings(child, s, depth + 1);
            }
        }
    }

    /**
     * {@code ok: ...} or {@code error: ...} with the output's first and last lines; successful
     * reads are reduced to their line count and successful edits to {@code ok}, since the file
     * itself is not what one searches a memory for.
     */
    static String result(String toolName, String content, boolean error) {
        List<String> lines = Text.meaningfulLines(content == null ? "" : content);
        String status = error ? "error" : "ok";
        if (lines.isEmpty()) {
            return error ? status : status + " (no output)";
        }
        if (!error && toolName != null && READ_TOOLS.contains(toolName)) {
            return status + " (" + lines.size() + (lines.size() == 1 ? " line)" : " lines)");
        }
        if (!error && toolName != null && (EDIT_TOOLS.contains(toolName) || PLAN_TOOLS.contains(toolName))) {
            // "The file ... has been updated" / "Todos have been modified": the label says it all.
            return status;
        }
        if (lines.size() == 1) {
            return status + ": " + Text.oneLine(lines.get(0), 2 * RESULT_LINE_CHARS);
        }
        StringBuilder s = new StringBuilder(status).append(':');
        int shown = HEAD_LINES + TAIL_LINES;
        if (lines.size() <= shown) {
            for (String line : lines) {
                s.append("\n    ").append(Text.oneLine(line, RESULT_LINE_CHARS));
            }
        } else {
            for (String line : lines.subList(0, HEAD_LINES)) {
                s.append("\n    ").append(Text.oneLine(line, RESULT_LINE_CHARS));
            }
            s.append("\n    ").append(Text.ELLIPSIS).append(" (").append(lines.size() - shown).append(" more lines) ")
             .append(Text.ELLIPSIS);
            for (String line : lines.subList(lines.size() - TAIL_LINES, lines.size())) {
                s.append("\n    ").append(Text.oneLine(line, RESULT_LINE_CHARS));
            }
        }
        return Text.headTail(s.toString(), RESULT_CHARS);
    }

    /**
     * The text of a tool result's {@code content}: a string, or an array of blocks whose text
     * blocks are joined and whose images are shown as {@code [image]}. Other types give "".
     */
    static String flatten(JsonNode content) {
        if (content == null || content.isNull()) {
            return "";
        }
        if (content.isTextual()) {
            return content.asText();
        }
        if (!content.isArray()) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        for (JsonNode block : content) {
            String type = block.path("type").asText("");
            String piece = "text".equals(type) && block.path("text").isTextual() ? block.path("text").asText()
                    : "image".equals(type) ? "[image]" : null;
            if (piece != null) {
                s.append(s.length() == 0 ? "" : "\n").append(piece);
            }
        }
        return s.toString();
    }

    private static String todos(JsonNode todos) {
        if (todos == null || !todos.isArray()) {
            return "";
        }
        String active = null;
        for (JsonNode todo : todos) {
            if ("in_progress".equals(todo.path("status").asText()) && todo.path("content").isTextual()) {
                active = todo.path("content").asText();
                break;
            }
        }
        return todos.size() + (todos.size() == 1 ? " todo" : " todos") + (active == null ? "" : ", now: " + active);
    }

    /** The key input of the tools of agents other than Claude Code; scalars for unknown tools. */
    private static String other(String name, JsonNode input, String cwd) {
        switch (name) {
            case "shell", "local_shell", "container.exec", "exec_command", "shell_command", "run_shell_command",
                 "execute_command", "run", "bash" -> {
                return shellCommand(firstNode(input, "command", "cmd"));
            }
            case "str_replace_editor", "file_editor" -> {
                return join(field(input, "command"), prefixed(" ", relative(firstOf(input, PATH_FIELDS), cwd)));
            }
            case "write_stdin" -> {
                String chars = field(input, "chars");
                return join(prefixed("session ", field(input, "session_id")), Text.isBlank(chars) ? null : ": " + chars);
            }
            case "apply_patch" -> {
                String patch = input != null && input.isTextual() ? input.asText() : firstOf(input, "input", "patch");
                return patch == null ? "" : Patches.summary(patch);
            }
            case "update_plan" -> {
                return steps(input == null ? null : input.get("plan"), "step");
            }
            case "write_todos" -> {
                return steps(input == null ? null : input.get("todos"), "description");
            }
            case "search_files", "search_file_content", "grep" -> {
                return join(quoted(firstOf(input, "regex", "pattern")), prefixed(" in ", relative(firstOf(input, PATH_FIELDS), cwd)),
                        prefixed(" files ", firstOf(input, "file_pattern", "include", "glob")));
            }
            case "glob" -> {
                return join(field(input, "pattern"), prefixed(" in ", relative(firstOf(input, PATH_FIELDS), cwd)));
            }
            case "google_web_search", "web_search" -> {
                return field(input, "query");
            }
            case "web_fetch", "browse", "browser_action" -> {
                return join(suffixed(field(input, "action"), " "), firstOf(input, "url", "prompt"));
            }
            case "read_many_files" -> {
                JsonNode paths = input == null ? null : input.get("paths");
                return paths != null && paths.isArray() ? listed(paths) : scalars(input);
            }
            case "use_mcp_tool", "access_mcp_resource" -> {
                return join(field(input, "server_name"), prefixed(" ", firstOf(input, "tool_name", "uri")),
                        prefixed(" ", field(input, "arguments")));
            }
            default -> {
                if (PATH_TOOLS.contains(name)) {
                    String path = firstOf(input, PATH_FIELDS);
                    if (path != null) {
                        return relative(path, cwd);
                    }
                }
                return scalars(input);
            }
        }
    }

    /** A shell command given as a string or as an argv array; {@code bash -lc "x"} reads as {@code x}. */
    static String shellCommand(JsonNode command) {
        if (command == null || command.isNull()) {
            return null;
        }
        if (command.isArray()) {
            List<String> argv = new java.util.ArrayList<>();
            for (JsonNode a : command) {
                argv.add(a.isValueNode() ? a.asText() : a.toString());
            }
            if (argv.size() == 3 && argv.get(0).endsWith("sh") && argv.get(1).matches("-l?c")) {
                return argv.get(2);
            }
            return String.join(" ", argv);
        }
        return command.isValueNode() ? command.asText() : command.toString();
    }

    private static String steps(JsonNode steps, String textField) {
        if (steps == null || !steps.isArray()) {
            return "";
        }
        String active = null;
        for (JsonNode step : steps) {
            if ("in_progress".equals(step.path("status").asText()) && step.path(textField).isTextual()) {
                active = step.path(textField).asText();
                break;
            }
        }
        return steps.size() + (steps.size() == 1 ? " step" : " steps") + (active == null ? "" : ", now: " + active);
    }

    private static String listed(JsonNode values) {
        StringBuilder s = new StringBuilder();
        for (JsonNode v : values) {
            if (v.isValueNode()) {
                s.append(s.length() == 0 ? "" : ", ").append(v.asText());
            }
        }
        return s.toString();
    }

    private static JsonNode firstNode(JsonNode input, String... names) {
        for (String name : names) {
            JsonNode v = input == null ? null : input.get(name);
            if (v != null && !v.isNull()) {
                return v;
            }
        }
        return null;
    }

    /** The scalar fields of an unknown tool's input, {@code key: value; ...}. */
    private static String scalars(JsonNode input) {
        if (input == null || !input.isObject()) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        for (Map.Entry<String, JsonNode> f : input.properties()) {
            if (s.length() >= LABEL_CHARS) {
                break;
            }
            if (f.getValue().isValueNode() && !f.getValue().isNull()) {
                s.append(s.length() == 0 ? "" : "; ").append(f.getKey()).append(": ")
                 .append(Text.oneLine(f.getValue().asText(), 120));
            }
        }
        return s.toString();
    }

    private static String field(JsonNode input, String name) {
        JsonNode v = input == null ? null : input.get(name);
        return v != null && v.isValueNode() && !v.isNull() ? v.asText() : null;
    }

    private static String firstOf(JsonNode input, String... names) {
        for (String name : names) {
            String v = field(input, name);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    private static String relative(String path, String cwd) {
        if (path == null || cwd == null || cwd.isEmpty()) {
            return path;
        }
        String base = cwd.endsWith("/") ? cwd : cwd + "/";
        return path.startsWith(base) && path.length() > base.length() ? path.substring(base.length()) : path;
    }

    private static String quoted(String s) {
        return s == null ? null : "\"" + s + "\"";
    }

    private static String prefixed(String prefix, String s) {
        return Text.isBlank(s) ? null : prefix + s;
    }

    private static String suffixed(String s, String suffix) {
        return Text.isBlank(s) ? null : s + suffix;
    }

    private static String join(String... parts) {
        StringBuilder s = new StringBuilder();
        for (String part : parts) {
            if (part != null) {
                s.append(part);
            }
        }
        return s.toString();
    }
}
