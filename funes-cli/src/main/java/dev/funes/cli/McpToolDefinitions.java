package dev.funes.cli;

import dev.funes.MemoryKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tools {@code funes mcp} offers, as {@code tools/list} describes them: names, titles,
 * descriptions and input schemas, in plain maps and lists. {@link McpTools#definitions()} gives
 * them to the MCP SDK; {@link McpEarlyAnswer} writes them itself before the SDK is loaded, and
 * the transport compares its answer with the SDK's. Holds no SDK or Jackson class, so that
 * answering costs no more than these maps.
 */
final class McpToolDefinitions {

    private McpToolDefinitions() {
    }

    /** One tool: what the SDK's {@code Tool} record holds of it. */
    record Definition(String name, String title, String description, Map<String, Object> inputSchema) {
    }

    /** The values {@code search_memory}'s {@code retrieval} takes. */
    static final List<String> RETRIEVALS = List.of("hybrid", "dense", "lexical");

    /** The tools, in the order {@code tools/list} gives them. */
    static final List<Definition> ALL = List.of(searchMemoryTool(), rememberTool(), recentSessionsTool(), whyTool());

    private static Definition searchMemoryTool() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("query", string("query", "What to look for, in natural language or keywords."));
        properties.put("limit", Map.of("type", "integer", "minimum", 1, "maximum", McpTools.MAX_SEARCH_LIMIT,
                "description", "Number of hits (default " + McpTools.DEFAULT_SEARCH_LIMIT + ")."));
        properties.put("agent", string("agent", "Only memories of this agent, e.g. claude-code, codex."));
        properties.put("project", string("project", "Only memories of this project (its working directory)."));
        properties.put("session", string("session", "Only memories of this session id."));
        properties.put("kind", string("kind", "Only memories of these kinds, comma-separated: "
                + labels(MemoryKind.values()) + "."));
        properties.put("after", string("after", "Only memories at or after this ISO date or instant."));
        properties.put("before", string("before", "Only memories before this ISO date or instant."));
        properties.put("file", string("file", "Only memories that name this file: a path suffix such as"
                + " src/store/Schema.java, or a file name such as Schema.java."));
        properties.put("retrieval", Map.of("type", "string", "maxLength", McpTools.MAX_NAME_CHARS, "enum", RETRIEVALS,
                "description", "hybrid (default): meaning and words; dense: meaning only; lexical: words and"
                        + " identifiers only."));
        return new Definition(McpTools.SEARCH_MEMORY, "Search memory", "Search what was said and decided in earlier coding-agent sessions (hybrid "
                        + "semantic + keyword search), best first. Each hit cites its source: the log file "
                        + "and the 1-based inclusive line range it was read from. When the server has a team "
                        + "collection, it is searched too: each hit then says where it came from (from: local, "
                        + "team or both; origin and owner of a team hit), and a team that cannot be searched "
                        + "gives a warning and the local hits.",
                objectSchema(properties, List.of("query")));
    }

    private static Definition rememberTool() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("kind", Map.of("type", "string", "maxLength", McpTools.MAX_NAME_CHARS, "enum", List.of("note", "decision", "convention"),
                "description", "decision: a choice and its reason; convention: a rule to follow; note: anything else."));
        properties.put("text", string("text", "What to remember, self-contained (say why, not only what)."));
        properties.put("project", string("project", "The project it is about (default: the server's working directory)."));
        return new Definition(McpTools.REMEMBER, "Remember", "Store an explicit note, decision or convention so later sessions find it with "
                        + McpTools.SEARCH_MEMORY + ". Remembering the same text twice stores it once.",
                objectSchema(properties, List.of("kind", "text")));
    }

    private static Definition recentSessionsTool() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("limit", Map.of("type", "integer", "minimum", 1, "maximum", McpTools.MAX_SESSIONS_LIMIT,
                "description", "Number of sessions (default " + McpTools.DEFAULT_SESSIONS_LIMIT + ")."));
        return new Definition(McpTools.RECENT_SESSIONS, "Recent sessions", "The most recent indexed agent sessions, latest first: agent, session id, "
                        + "project, first and last time, number of memories.",
                objectSchema(properties, List.of()));
    }

    private static Definition whyTool() {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("target", string("target", "A commit sha (7 to 40 hex characters), a file path (relative to"
                + " the repository or absolute, optionally path:line), or a question in words."));
        properties.put("limit", Map.of("type", "integer", "minimum", 1, "maximum", McpTools.MAX_WHY_LIMIT,
                "description", "Number of hits (default " + McpTools.DEFAULT_WHY_LIMIT + ")."));
        return new Definition(McpTools.WHY, "Why", "Why is this code the way it is? The decisions, exchanges and sessions behind a "
                        + "commit, a file (or one line of it) or a topic, strongest evidence first, then newest. "
                        + "Each hit says how it was linked (evidence, confidence), the commit it came through, "
                        + "whether the file changed substantially since (stale), and its log source lines.",
                objectSchema(properties, List.of("target")));
    }

    /** A string property whose schema states the length a call accepts. */
    private static Map<String, Object> string(String name, String description) {
        return Map.of("type", "string", "maxLength", maxChars(name), "description", description);
    }

    /** How many characters a string argument may have. */
    static int maxChars(String name) {
        return switch (name) {
            case "text" -> McpTools.MAX_TEXT_CHARS;
            case "query" -> McpTools.MAX_QUERY_CHARS;
            case "project", "file", "target" -> McpTools.MAX_PATH_CHARS;
            default -> McpTools.MAX_NAME_CHARS;
        };
    }

    private static Map<String, Object> objectSchema(Map<String, Object> properties, List<String> required) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        schema.put("required", required);
        schema.put("additionalProperties", false);
        return schema;
    }

    private static String labels(MemoryKind[] kinds) {
        List<String> labels = new ArrayList<>();
        for (MemoryKind kind : kinds) {
            labels.add(kind.label());
        }
        return String.join(", ", labels);
    }
}
