package dev.funes.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.FunesException;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Retrieval;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SessionInfo;
import dev.funes.solr.FederatedSearch;
import dev.funes.why.Why;
import dev.funes.why.WhyHit;
import dev.funes.why.WhyRequest;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The tools {@code funes mcp} offers, independent of the transport: their schemas, and what a call
 * with given arguments answers. Results are JSON objects (sent both as the call's structured
 * content and as its text); a bad argument gives an error result that says which and why, so the
 * calling model can correct itself.
 */
final class McpTools {

    static final String SEARCH_MEMORY = "search_memory";
    static final String REMEMBER = "remember";
    static final String RECENT_SESSIONS = "recent_sessions";
    static final String WHY = "why";

    /** Texts longer than this are cut in search results: a hit is a pointer, its source has the rest. */
    static final int MAX_TEXT = 800;
    static final int DEFAULT_SEARCH_LIMIT = 5;
    static final int MAX_SEARCH_LIMIT = 50;
    static final int DEFAULT_SESSIONS_LIMIT = 10;
    static final int MAX_SESSIONS_LIMIT = 100;
    static final int DEFAULT_WHY_LIMIT = 5;
    static final int MAX_WHY_LIMIT = 50;

    /** Longest {@code remember} text, in characters: a note is a paragraph or two, not a file. */
    static final int MAX_TEXT_CHARS = 8000;
    /** Longest search query, in characters. */
    static final int MAX_QUERY_CHARS = 2000;
    /** Longest path-like argument ({@code project}, {@code file}, {@code target}): the usual PATH_MAX. */
    static final int MAX_PATH_CHARS = 4096;
    /** Longest of the other string arguments (names, ids, kinds, dates). */
    static final int MAX_NAME_CHARS = 256;

    /** The agent recorded for notes when the client did not say who it is. */
    static final String DEFAULT_AGENT = "mcp";

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final java.util.function.Supplier<MemoryStore> opened;
    private final Clock clock;
    private final String defaultProject;
    /** Searches the local store and the team collection at once; null when no team is configured. */
    private final java.util.function.Function<SearchRequest, FederatedSearch.Result> team;

    /**
     * @param store          where memories are searched and notes stored; not closed by this
     * @param clock          the time given to remembered notes
     * @param defaultProject the project of notes that name none: the server's working directory
     */
    McpTools(MemoryStore store, Clock clock, String defaultProject) {
        this(() -> store, clock, defaultProject);
    }

    /**
     * Tools on a store that may still be opening: each call asks {@code store} for it, and waits
     * there until it is open.
     */
    McpTools(java.util.function.Supplier<MemoryStore> store, Clock clock, String defaultProject) {
        this(store, clock, defaultProject, null);
    }

    /**
     * Tools whose {@code search_memory} also asks a team collection: {@code team} searches the
     * local store and the team at once (docs/TEAM.md); null for the local store alone.
     */
    McpTools(java.util.function.Supplier<MemoryStore> store, Clock clock, String defaultProject,
             java.util.function.Function<SearchRequest, FederatedSearch.Result> team) {
        this.opened = store;
        this.clock = clock;
        this.defaultProject = defaultProject;
        this.team = team;
    }

    private MemoryStore store() {
        return opened.get();
    }

    /** Whether the store is open and its model loaded; until then, {@link #searchElsewhere} may answer a search. */
    private java.util.function.BooleanSupplier storeOpen = () -> true;
    /** A search answered by a resident {@code funes serve} of the store, or empty to wait for the store here. */
    private java.util.function.Function<Map<String, Object>, java.util.Optional<McpSchema.CallToolResult>> searchElsewhere;

    /**
     * Lets {@code search_memory} be answered by {@code elsewhere} (a resident {@code funes serve}
     * of the same store, running these tools' code on its open store) while {@code open} says
     * this process's store or model is not ready, instead of waiting for them. Returns this.
     */
    McpTools untilOpen(java.util.function.BooleanSupplier open,
                       java.util.function.Function<Map<String, Object>, java.util.Optional<McpSchema.CallToolResult>> elsewhere) {
        this.storeOpen = open;
        this.searchElsewhere = elsewhere;
        return this;
    }

    /** A {@code search_memory} result as {@link #call} makes it, from its JSON text (a served answer). */
    static McpSchema.CallToolResult searchResult(String json, boolean error) {
        McpSchema.CallToolResult.Builder result = McpSchema.CallToolResult.builder().addTextContent(json).isError(error);
        if (!error) {
            try {
                result.structuredContent(MAPPER.readValue(json, Map.class));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException("a served search_memory result is not JSON: " + e.getOriginalMessage(), e);
            }
        }
        return result.build();
    }

    /** The arguments of a tool call as JSON, and back: what a served search carries. */
    static String json(Map<String, Object> arguments) {
        try {
            return MAPPER.writeValueAsString(arguments);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException("tool arguments that are not JSON: " + e.getOriginalMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> arguments(String json) throws java.io.IOException {
        return MAPPER.readValue(json, Map.class);
    }

    /** An error a tool reports to the calling model rather than to the protocol. */
    static final class ToolError extends RuntimeException {
        ToolError(String message) {
            super(message);
        }
    }

    // ---------------------------------------------------------------- schemas

    static List<McpSchema.Tool> definitions() {
        List<McpSchema.Tool> tools = new ArrayList<>();
        for (McpToolDefinitions.Definition d : McpToolDefinitions.ALL) {
            tools.add(McpSchema.Tool.builder().name(d.name()).title(d.title()).description(d.description())
                    .inputSchema(d.inputSchema()).build());
        }
        return tools;
    }

    /** How many characters a string argument may have. */
    static int maxChars(String name) {
        return McpToolDefinitions.maxChars(name);
    }

    // ---------------------------------------------------------------- calls

    /** Runs a tool; a {@link ToolError} or {@link FunesException} becomes an error result. */
    McpSchema.CallToolResult call(String tool, Map<String, Object> arguments, String clientName) {
        Map<String, Object> args = arguments == null ? Map.of() : arguments;
        if (searchElsewhere != null && tool.equals(SEARCH_MEMORY) && !storeOpen.getAsBoolean()) {
            java.util.Optional<McpSchema.CallToolResult> served = searchElsewhere.apply(args);
            if (served.isPresent()) {
                return served.get();
            }
        }
        try {
            ObjectNode result = switch (tool) {
                case SEARCH_MEMORY -> searchMemory(args);
                case REMEMBER -> remember(args, clientName);
                case RECENT_SESSIONS -> recentSessions(args);
                case WHY -> why(args);
                default -> throw new ToolError("unknown tool '" + tool + "'");
            };
            return McpSchema.CallToolResult.builder()
                    .addTextContent(result.toString())
                    .structuredContent(MAPPER.convertValue(result, Map.class))
                    .isError(false)
                    .build();
        } catch (ToolError | FunesException e) {
            return McpSchema.CallToolResult.builder()
                    .addTextContent(tool + ": " + Main.oneLine(e))
                    .isError(true)
                    .build();
        }
    }

    ObjectNode searchMemory(Map<String, Object> args) {
        SearchRequest.Builder request = SearchRequest.builder(requiredString(args, "query"))
                .limit(integer(args, "limit", DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT))
                .agent(optionalString(args, "agent"))
                .project(optionalString(args, "project"))
                .session(optionalString(args, "session"))
                .after(time(args, "after"))
                .before(time(args, "before"))
                .file(optionalString(args, "file"));
        String retrieval = optionalString(args, "retrieval");
        if (retrieval != null) {
            try {
                request.retrieval(Retrieval.fromLabel(retrieval));
            } catch (IllegalArgumentException e) {
                throw new ToolError("retrieval: " + e.getMessage());
            }
        }
        String kinds = optionalString(args, "kind");
        if (kinds != null) {
            for (String label : kinds.split(",")) {
                try {
                    request.kinds(MemoryKind.fromLabel(label));
                } catch (IllegalArgumentException e) {
                    throw new ToolError("kind: " + e.getMessage());
                }
            }
        }
        SearchRequest built;
        try {
            built = request.build();
        } catch (IllegalArgumentException e) {
            throw new ToolError(e.getMessage());
        }
        ObjectNode result = MAPPER.createObjectNode();
        ArrayNode hits = result.putArray("hits");
        if (team == null) {
            for (SearchHit hit : store().search(built)) {
                hits.add(compactHit(hit));
            }
            return result;
        }
        FederatedSearch.Result both = team.apply(built);
        for (FederatedSearch.Hit h : both.hits()) {
            ObjectNode node = compactHit(h.hit());
            node.put("from", h.source().name().toLowerCase(java.util.Locale.ROOT));
            if (h.origin() != null) {
                node.put("origin", h.origin());
            }
            if (h.owner() != null) {
                node.put("owner", h.owner());
            }
            hits.add(node);
        }
        both.warning().ifPresent(w -> result.put("warning", w));
        return result;
    }

    /** At most {@code max} characters of {@code s}, never half a surrogate pair. */
    private static String head(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        return s.substring(0, Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max);
    }

    /** A hit as an agent needs it: the gist, when and where it came from, and how to read more. */
    static ObjectNode compactHit(SearchHit hit) {
        Memory memory = hit.memory();
        ObjectNode node = MAPPER.createObjectNode();
        // The passage that answers, with the line saying where it was said: the agent's context
        // gets the answer, not the whole exchange.
        putText(node, hit.passage() != null ? hit.passage().text() : memory.text());
        node.put("score", hit.score());
        node.put("kind", memory.kind().label());
        node.put("agent", memory.agent());
        node.put("project", memory.project());
        node.put("session", memory.session());
        node.put("timestamp", HitJson.timestamp(memory));
        Provenance provenance = hit.cited();
        if (provenance != null) {
            ObjectNode source = node.putObject("source");
            source.put("path", provenance.source().toString());
            source.put("lineStart", provenance.lineStart());
            source.put("lineEnd", provenance.lineEnd());
            String changed = memory.metadata().get(dev.funes.SourceState.CHANGED_KEY);
            if (changed != null) {
                // The lines cite the file as it was: the agent must not read them from the file as it is.
                source.put("changedSince", changed);
            }
        } else {
            node.putNull("source");
        }
        node.put("id", memory.id());
        if (hit.passage() != null) {
            node.put("passage", true);
        }
        // Further passages of the same memory, nearly as good a match or holding query words the
        // others lack: the answer is often in the record beside the best match (a command's
        // output, the file written).
        ArrayNode more = null;
        for (Memory p : hit.morePassages()) {
            if (p.provenance() != null) {
                more = more == null ? node.putArray("morePassages") : more;
                ObjectNode m = more.addObject();
                putText(m, p.text());
                m.put("lineStart", p.provenance().lineStart());
                m.put("lineEnd", p.provenance().lineEnd());
            }
        }
        return node;
    }

    /** The text, cut at {@value #MAX_TEXT} characters (never half a surrogate pair) and marked truncated. */
    private static void putText(ObjectNode node, String text) {
        if (text.length() > MAX_TEXT) {
            int cut = Character.isHighSurrogate(text.charAt(MAX_TEXT - 1)) ? MAX_TEXT - 1 : MAX_TEXT;
            node.put("text", text.substring(0, cut) + "…");
            node.put("truncated", true);
        } else {
            node.put("text", text);
        }
    }

    ObjectNode remember(Map<String, Object> args, String clientName) {
        String label = requiredString(args, "kind");
        MemoryKind kind;
        try {
            kind = MemoryKind.fromLabel(label);
        } catch (IllegalArgumentException e) {
            throw new ToolError("kind: " + e.getMessage());
        }
        if (kind != MemoryKind.NOTE && kind != MemoryKind.DECISION && kind != MemoryKind.CONVENTION) {
            throw new ToolError("kind '" + label + "' cannot be remembered; use note, decision or convention");
        }
        // Notes from an agent skip the Indexer, so they are redacted here: no secret is stored.
        dev.funes.redact.Redactor redactor = dev.funes.redact.Redactor.standard();
        String text = redactor.redact(requiredString(args, "text").strip()).text();
        String project = optionalString(args, "project");
        if (project != null) {
            project = redactor.redact(project).text();
        }
        // The client names itself: its name is stored (as the agent), so it is redacted like the text,
        // before it is shortened (a cut through a secret would leave a piece no rule recognises).
        String agent = clientName == null || clientName.isBlank() ? DEFAULT_AGENT
                : head(redactor.redact(clientName.strip()).text(), MAX_NAME_CHARS);
        Instant now = clock.instant();
        Memory memory = Memory.builder(kind, agent, text)
                .project(project != null ? project : defaultProject)
                .time(now, now)
                .metadata("source", "mcp")
                .build();
        boolean added = store().add(memory);
        Memory stored = added ? memory : store().get(memory.id()).orElse(memory);
        ObjectNode result = MAPPER.createObjectNode();
        result.put("id", stored.id());
        result.put("stored", added);
        result.put("kind", stored.kind().label());
        result.put("agent", stored.agent());
        result.put("project", stored.project());
        result.put("timestamp", HitJson.timestamp(stored));
        return result;
    }

    ObjectNode recentSessions(Map<String, Object> args) {
        int limit = integer(args, "limit", DEFAULT_SESSIONS_LIMIT, MAX_SESSIONS_LIMIT);
        ObjectNode result = MAPPER.createObjectNode();
        ArrayNode sessions = result.putArray("sessions");
        for (SessionInfo info : store().recentSessions(limit)) {
            ObjectNode node = sessions.addObject();
            node.put("agent", info.agent());
            node.put("session", info.session());
            node.put("project", info.project());
            node.put("firstAt", info.firstAt() == null ? null : info.firstAt().toString());
            node.put("lastAt", info.lastAt() == null ? null : info.lastAt().toString());
            node.put("memories", info.memories());
        }
        return result;
    }

    ObjectNode why(Map<String, Object> args) {
        WhyRequest request;
        try {
            request = WhyRequest.of(requiredString(args, "target"))
                    .withLimit(integer(args, "limit", DEFAULT_WHY_LIMIT, MAX_WHY_LIMIT))
                    .withBase(defaultProject == null ? null : java.nio.file.Path.of(defaultProject));
        } catch (IllegalArgumentException e) {
            throw new ToolError(e.getMessage());
        }
        ObjectNode result = MAPPER.createObjectNode();
        ArrayNode hits = result.putArray("hits");
        for (WhyHit hit : Why.over(store()).why(request)) {
            ObjectNode node = compactHit(new SearchHit(hit.memory(), hit.confidence(),
                    new dev.funes.ScoreParts(0, 0, 0, 0, hit.confidence(), Double.NaN, Double.NaN, 0)));
            node.remove("score");
            node.put("evidence", hit.evidence().label());
            node.put("confidence", hit.confidence());
            node.put("commit", hit.commit());
            node.put("commitTitle", hit.commitTitle());
            node.put("stale", hit.stale());
            node.put("staleReason", hit.staleReason());
            hits.add(node);
        }
        return result;
    }

    // ---------------------------------------------------------------- arguments

    private static String requiredString(Map<String, Object> args, String name) {
        String value = optionalString(args, name);
        if (value == null) {
            throw new ToolError("'" + name + "' is required and must not be blank");
        }
        return value;
    }

    private static String optionalString(Map<String, Object> args, String name) {
        Object value = args.get(name);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String s)) {
            throw new ToolError("'" + name + "' must be a string, not " + describe(value));
        }
        int max = maxChars(name);
        if (s.length() > max) {
            throw new ToolError(String.format(java.util.Locale.ROOT,
                    "'%s' is %,d characters long; at most %,d are accepted%s", name, s.length(), max,
                    name.equals("text") ? " (remember several shorter notes instead)" : ""));
        }
        return s.isBlank() ? null : s;
    }

    private static int integer(Map<String, Object> args, String name, int defaultValue, int max) {
        Object value = args.get(name);
        if (value == null) {
            return defaultValue;
        }
        if (!(value instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
            throw new ToolError("'" + name + "' must be a whole number, not " + describe(value));
        }
        long v = n.longValue();
        if (v < 1 || v > max) {
            throw new ToolError("'" + name + "' must be between 1 and " + max + ", not " + v);
        }
        return (int) v;
    }

    /** A wrong argument as an error message shows it: numbers as they are, anything else by its type. */
    private static String describe(Object value) {
        if (value instanceof Number || value instanceof Boolean) {
            return String.valueOf(value);
        }
        if (value instanceof Map) {
            return "an object";
        }
        if (value instanceof List) {
            return "an array";
        }
        return value instanceof String ? "a string" : value.getClass().getSimpleName();
    }

    private static Instant time(Map<String, Object> args, String name) {
        String value = optionalString(args, name);
        if (value == null) {
            return null;
        }
        try {
            return value.length() == 10 ? LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant() : Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new ToolError("'" + name + "' is '" + value
                    + "': neither an ISO date (2025-09-19) nor an instant (2025-09-19T17:34:29Z)");
        }
    }
}
