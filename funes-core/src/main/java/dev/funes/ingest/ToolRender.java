package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compact renderings of Claude Code tool calls and results: the tool, its key input (command,
 * file, pattern, URL) and the outcome with the head and tail of long output.
 */
final class ToolRender {

    static final int LABEL_CHARS = 200;
    static final int RESULT_LINE_CHARS = 140;
    static final int HEAD_LINES = 3;
    static final int TAIL_LINES = 2;
    static final int RESULT_CHARS = 800;

    private static final Set<String> FILE_TOOLS = Set.of("Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead");
    private static final Set<String> READ_TOOLS = Set.of("Read", "NotebookRead");
    private static final Set<String> EDIT_TOOLS = Set.of("Write", "Edit", "MultiEdit", "NotebookEdit");

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
            body = scalars(input);
        }
        String label = "[" + name + "]" + (Text.isBlank(body) ? "" : " " + body);
        return Text.oneLine(label, LABEL_CHARS);
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
        if (!error && toolName != null && (EDIT_TOOLS.contains(toolName) || "TodoWrite".equals(toolName))) {
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
