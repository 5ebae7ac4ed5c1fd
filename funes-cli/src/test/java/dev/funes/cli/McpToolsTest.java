package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.Memory;
import io.modelcontextprotocol.spec.McpSchema;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The MCP tools on a real store holding the project's sample session, called as the server calls them. */
class McpToolsTest {

    static final String SAMPLE_SESSION = "5f0c2b9e-3d4a-4e8b-9c1d-7a6b5c4d3e2f";
    static final Instant NOW = Instant.parse("2026-01-05T10:00:00Z");

    @TempDir
    static Path storeDir;

    static OpenStore open;
    static McpTools tools;

    @BeforeAll
    static void indexTheSampleSession() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(new String[] {"index", "--index-path", "../examples/demo-session", "--store", storeDir.toString()},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(status).as(err.toString()).isZero();
        open = OpenStore.existing(storeDir);
        tools = new McpTools(open.store(), Clock.fixed(NOW, ZoneOffset.UTC), "/work/here");
    }

    @AfterAll
    static void close() {
        if (open != null) {
            open.close();
        }
    }

    static JsonNode ok(McpSchema.CallToolResult result) throws IOException {
        assertThat(result.isError()).as(result.content().toString()).isFalse();
        JsonNode text = HitJson.MAPPER.readTree(((McpSchema.TextContent) result.content().get(0)).text());
        JsonNode structured = HitJson.MAPPER.valueToTree(result.structuredContent());
        assertThat(structured.toString()).isEqualTo(text.toString());
        return text;
    }

    static String error(McpSchema.CallToolResult result) {
        assertThat(result.isError()).isTrue();
        assertThat(result.structuredContent()).isNull();
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    @Test
    void theToolsAreSearchRememberAndRecentSessionsWithStrictSchemas() {
        assertThat(McpTools.definitions()).extracting(McpSchema.Tool::name)
                .containsExactly("search_memory", "remember", "recent_sessions", "why");
        for (McpSchema.Tool tool : McpTools.definitions()) {
            assertThat(tool.inputSchema()).containsEntry("type", "object").containsEntry("additionalProperties", false);
            assertThat(tool.description()).isNotBlank();
        }
        assertThat(McpTools.definitions().get(0).inputSchema().get("required")).isEqualTo(List.of("query"));
        assertThat(McpTools.definitions().get(1).inputSchema().get("required")).isEqualTo(List.of("kind", "text"));
    }

    /**
     * The check the SDK made of every tool's schema at each start, before {@code initialize} could
     * be answered ({@link DeferredSchemaValidator} skips it there): every schema is valid JSON
     * Schema 2020-12, and the validator of tool arguments still refuses what the schema refuses.
     */
    @Test
    void everyToolSchemaIsValidJsonSchemaAndArgumentsAreStillChecked() {
        var real = new io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator();
        for (McpSchema.Tool tool : McpTools.definitions()) {
            var check = real.validateSchema(tool.inputSchema());
            assertThat(check.valid()).as(tool.name() + ": " + check.errorMessage()).isTrue();
        }
        DeferredSchemaValidator deferred = new DeferredSchemaValidator();
        Map<String, Object> search = McpTools.definitions().get(0).inputSchema();
        assertThat(deferred.validate(search, Map.of("query", "two-pass parser")).valid()).isTrue();
        assertThat(deferred.validate(search, Map.of("limit", 3)).valid()).as("no query").isFalse();
        assertThat(deferred.validate(search, Map.of("query", "x", "colour", "red")).valid()).as("unknown argument").isFalse();
    }

    @Test
    void searchMemoryReturnsCompactHitsWithTheirSourceLines() throws IOException {
        JsonNode hits = ok(tools.call("search_memory",
                Map.of("query", "why did we move away from the streaming parser?", "limit", 2), "x")).get("hits");
        assertThat(hits.size()).isEqualTo(2);
        JsonNode first = hits.get(0);
        assertThat(first.get("agent").asText()).isEqualTo("claude-code");
        assertThat(first.get("session").asText()).isEqualTo(SAMPLE_SESSION);
        assertThat(first.get("project").asText()).isEqualTo("/home/dev/projects/ledger-sync");
        assertThat(first.get("text").asText()).containsIgnoringCase("streaming parser");
        assertThat(Path.of(first.get("source").get("path").asText()).getFileName().toString()).isEqualTo("sample-session.jsonl");
        assertThat(first.get("source").get("lineStart").asInt()).isBetween(1, 16);
        assertThat(first.get("source").get("lineEnd").asInt()).isBetween(first.get("source").get("lineStart").asInt(), 16);
        assertThat(first.has("timestamp") && first.has("score") && first.has("kind") && first.has("id")).isTrue();
        // Compact: none of the CLI's score explanation or byte ranges.
        assertThat(first.has("scoreParts")).isFalse();
        assertThat(first.get("source").has("byteStart")).isFalse();
    }

    @Test
    void aCompactHitCarriesItsFurtherPassagesWithTheirLines() {
        Path log = Path.of("/logs/session.jsonl");
        Memory exchange = Memory.builder(dev.funes.MemoryKind.EXCHANGE, "claude-code", "ran the hook check")
                .provenance(new dev.funes.Provenance(log, 10, 14, 0, 900, List.of())).build();
        Memory command = passage(exchange, "[Bash] grep -n zephyr-check .lefthook.yml", log, 11, 100, 180);
        Memory output = passage(exchange, "12: zephyr-check: run .lefthook.yml", log, 12, 300, 360);
        dev.funes.ScoreParts parts = dev.funes.ScoreParts.of(1, 0.5, 1, 10, 0.4, 0.6, 0);
        JsonNode hit = McpTools.compactHit(new dev.funes.SearchHit(exchange, parts.fused(), parts, command,
                List.of(output)));
        assertThat(hit.get("text").asText()).isEqualTo(command.text());
        assertThat(hit.get("source").get("lineStart").asInt()).isEqualTo(11);
        assertThat(hit.get("passage").asBoolean()).isTrue();
        JsonNode more = hit.get("morePassages");
        assertThat(more.size()).isEqualTo(1);
        assertThat(more.get(0).get("text").asText()).isEqualTo(output.text());
        assertThat(more.get(0).get("lineStart").asInt()).isEqualTo(12);
        assertThat(more.get(0).get("lineEnd").asInt()).isEqualTo(12);
        // Without further passages the field is absent, as before.
        assertThat(McpTools.compactHit(new dev.funes.SearchHit(exchange, parts.fused(), parts, command))
                .has("morePassages")).isFalse();
    }

    private static Memory passage(Memory of, String text, Path log, int line, long byteStart, long byteEnd) {
        return Memory.builder(dev.funes.MemoryKind.PASSAGE, "claude-code", text)
                .provenance(new dev.funes.Provenance(log, line, line, byteStart, byteEnd, List.of()))
                .metadata(Memory.PASSAGE_OF, of.id()).build();
    }

    @Test
    void searchMemoryFiltersAndRejectsBadArgumentsByName() throws IOException {
        JsonNode none = ok(tools.call("search_memory", Map.of("query", "streaming parser", "agent", "codex"), null));
        assertThat(none.get("hits").size()).isZero();
        JsonNode before = ok(tools.call("search_memory", Map.of("query", "streaming parser", "before", "2025-10-14"), null));
        assertThat(before.get("hits").size()).isZero();
        JsonNode summaries = ok(tools.call("search_memory", Map.of("query", "parser", "kind", "summary"), null));
        assertThat(summaries.get("hits")).isNotEmpty().allSatisfy(h -> assertThat(h.get("kind").asText()).isEqualTo("summary"));

        assertThat(error(tools.call("search_memory", Map.of(), null))).contains("'query' is required");
        assertThat(error(tools.call("search_memory", Map.of("query", "x", "limit", 0), null))).contains("'limit'");
        assertThat(error(tools.call("search_memory", Map.of("query", "x", "limit", 2.5), null))).contains("'limit'");
        assertThat(error(tools.call("search_memory", Map.of("query", "x", "kind", "gossip"), null))).contains("gossip", "decision");
        assertThat(error(tools.call("search_memory", Map.of("query", "x", "after", "yesterday"), null))).contains("'after'");
        assertThat(error(tools.call("search_memory", Map.of("query", "x", "retrieval", "sparse"), null)))
                .contains("retrieval", "hybrid, dense, lexical");
    }

    @Test
    void searchMemoryFiltersByFileAndChoosesTheRetrievers() throws IOException {
        JsonNode byFile = ok(tools.call("search_memory", Map.of("query", "parser", "file", "TwoPassLedgerParser.java",
                "limit", 10), null)).get("hits");
        JsonNode all = ok(tools.call("search_memory", Map.of("query", "parser", "limit", 10), null)).get("hits");
        // The exchange that wrote the file, and memories whose metadata names it (its decision).
        assertThat(byFile).isNotEmpty().anySatisfy(h -> assertThat(h.get("text").asText())
                .contains("[Write] src/main/java/ledger/TwoPassLedgerParser.java"));
        assertThat(byFile.size()).isLessThan(all.size());
        JsonNode otherFile = ok(tools.call("search_memory", Map.of("query", "parser", "file", "OnePassParser.java"), null));
        assertThat(otherFile.get("hits").size()).isZero();
        JsonNode lexical = ok(tools.call("search_memory", Map.of("query", "zebra giraffe", "retrieval", "lexical"), null));
        assertThat(lexical.get("hits").size()).isZero(); // no such words: the lexical side alone finds nothing
        JsonNode dense = ok(tools.call("search_memory", Map.of("query", "zebra giraffe", "retrieval", "dense"), null));
        assertThat(dense.get("hits").size()).isPositive(); // the dense side always has nearest neighbours
    }

    @Test
    void rememberStoresANoteWithoutLogProvenanceAtTheClocksTimeOnce() throws IOException {
        String text = "Convention: money amounts are integer cents everywhere, never floating point.";
        JsonNode first = ok(tools.call("remember", Map.of("kind", "convention", "text", text), "claude-code"));
        assertThat(first.get("stored").asBoolean()).isTrue();
        assertThat(first.get("agent").asText()).isEqualTo("claude-code");
        assertThat(first.get("project").asText()).isEqualTo("/work/here");
        assertThat(first.get("timestamp").asText()).isEqualTo(NOW.toString());

        var stored = open.store().get(first.get("id").asText()).orElseThrow();
        assertThat(stored.provenance()).isNull();
        assertThat(stored.session()).isNull();
        assertThat(stored.metadata()).containsEntry("source", "mcp");
        assertThat(stored.startedAt()).isEqualTo(NOW);

        JsonNode again = ok(tools.call("remember", Map.of("kind", "convention", "text", text), "claude-code"));
        assertThat(again.get("stored").asBoolean()).isFalse();
        assertThat(again.get("id")).isEqualTo(first.get("id"));

        JsonNode hits = ok(tools.call("search_memory", Map.of("query", "how are money amounts represented", "kind", "convention"), null))
                .get("hits");
        assertThat(hits.get(0).get("id")).isEqualTo(first.get("id"));
        assertThat(hits.get(0).get("source").isNull()).isTrue();
    }

    @Test
    void rememberRedactsSecretsBeforeStoring() throws IOException {
        String token = "ghp_" + "Zq8vX2mL4rT7wY1bN5cK9dF3hJ6gP0sA2eQx";
        JsonNode result = ok(tools.call("remember", Map.of("kind", "note",
                "text", "The deploy job reads GITHUB_TOKEN=" + token + " from the vault."), "claude-code"));
        String stored = open.store().get(result.get("id").asText()).orElseThrow().text();
        assertThat(stored).doesNotContain(token).contains("[REDACTED:github-token]");
    }

    @Test
    void rememberRedactsTheClientsNameItStoresAsTheAgent() throws IOException {
        String token = "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi";
        JsonNode result = ok(tools.call("remember", Map.of("kind", "note", "text", "Releases go out on Thursdays."),
                "ci-bot " + token));
        Memory stored = open.store().get(result.get("id").asText()).orElseThrow();
        assertThat(stored.agent()).doesNotContain(token).isEqualTo("ci-bot [REDACTED:huggingface-token]");
    }

    @Test
    void rememberWithoutAClientNameUsesMcpAndAnExplicitProject() throws IOException {
        JsonNode note = ok(tools.call("remember",
                Map.of("kind", "note", "text", "The staging bank export arrives late on Mondays.", "project", "/p/ledger"), null));
        assertThat(note.get("agent").asText()).isEqualTo("mcp");
        assertThat(note.get("project").asText()).isEqualTo("/p/ledger");
    }

    @Test
    void rememberRefusesKindsThatComeFromLogsAndBlankText() {
        assertThat(error(tools.call("remember", Map.of("kind", "exchange", "text", "x"), null))).contains("note, decision or convention");
        assertThat(error(tools.call("remember", Map.of("kind", "note", "text", "  "), null))).contains("'text'");
        assertThat(error(tools.call("remember", Map.of("text", "x"), null))).contains("'kind'");
    }

    @Test
    void everyStringArgumentHasASizeCapThatTheSchemaStatesAndACallEnforces() throws IOException {
        for (McpSchema.Tool tool : McpTools.definitions()) {
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> properties = (Map<String, Map<String, Object>>) tool.inputSchema().get("properties");
            properties.forEach((name, schema) -> {
                if ("string".equals(schema.get("type"))) {
                    assertThat(schema.get("maxLength")).as("%s.%s", tool.name(), name).isEqualTo(McpTools.maxChars(name));
                }
            });
        }
        String longest = "Decision: " + "w".repeat(McpTools.MAX_TEXT_CHARS - 10);
        JsonNode kept = ok(tools.call("remember", Map.of("kind", "decision", "text", longest), null));
        assertThat(open.store().get(kept.get("id").asText()).orElseThrow().text()).hasSize(McpTools.MAX_TEXT_CHARS);

        assertThat(error(tools.call("remember", Map.of("kind", "note", "text", longest + "w"), null)))
                .isEqualTo("remember: 'text' is 8,001 characters long; at most 8,000 are accepted"
                        + " (remember several shorter notes instead)");
        assertThat(error(tools.call("remember", Map.of("kind", "note", "text", "ok",
                "project", "/p/" + "d".repeat(McpTools.MAX_PATH_CHARS)), null))).contains("'project'", "4,096");
        assertThat(error(tools.call("search_memory", Map.of("query", "q".repeat(McpTools.MAX_QUERY_CHARS + 1)), null)))
                .contains("'query'", "2,000");
        assertThat(error(tools.call("search_memory", Map.of("query", "x", "session", "s".repeat(257)), null)))
                .contains("'session'", "256");
        assertThat(error(tools.call("why", Map.of("target", "t".repeat(McpTools.MAX_PATH_CHARS + 1)), null)))
                .contains("'target'", "4,096");
        assertThat(error(tools.call("search_memory", Map.of("query", List.of("a", "b")), null)))
                .contains("'query' must be a string, not an array");

        // The client's name becomes the note's agent; an absurdly long one is cut, not stored whole.
        JsonNode named = ok(tools.call("remember", Map.of("kind", "note", "text", "A note from a long-named client."),
                "c".repeat(10_000)));
        assertThat(named.get("agent").asText()).hasSize(McpTools.MAX_NAME_CHARS);
    }

    @Test
    void longTextsAreTrimmedInHitsButStoredWhole() throws IOException {
        String longText = "Decision about the export format: " + "keep every field fixed-width. ".repeat(60);
        JsonNode note = ok(tools.call("remember", Map.of("kind", "decision", "text", longText), null));
        assertThat(open.store().get(note.get("id").asText()).orElseThrow().text()).isEqualTo(longText.strip());

        Map<String, Object> args = new HashMap<>();
        args.put("query", "export format fixed-width fields");
        args.put("kind", "decision");
        JsonNode hit = ok(tools.call("search_memory", args, null)).get("hits").get(0);
        assertThat(hit.get("id")).isEqualTo(note.get("id"));
        assertThat(hit.get("truncated").asBoolean()).isTrue();
        assertThat(hit.get("text").asText()).hasSize(McpTools.MAX_TEXT + 1).endsWith("…");
    }

    @Test
    void recentSessionsListsTheIndexedSession() throws IOException {
        JsonNode sessions = ok(tools.call("recent_sessions", Map.of(), null)).get("sessions");
        assertThat(sessions.size()).isEqualTo(1);
        JsonNode s = sessions.get(0);
        assertThat(s.get("agent").asText()).isEqualTo("claude-code");
        assertThat(s.get("session").asText()).isEqualTo(SAMPLE_SESSION);
        assertThat(s.get("project").asText()).isEqualTo("/home/dev/projects/ledger-sync");
        assertThat(s.get("memories").asLong()).as("5 exchanges and 3 decisions and lookups derived from them").isEqualTo(8);
        assertThat(Instant.parse(s.get("firstAt").asText())).isBefore(Instant.parse(s.get("lastAt").asText()));
        assertThat(error(tools.call("recent_sessions", Map.of("limit", 1000), null))).contains("'limit'");
    }
}
