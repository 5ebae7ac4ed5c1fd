package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code funes} command end to end: real logs, the real model, a real store on disk. */
class CliTest {

    static final Path SHARED = Path.of(System.getProperty("funes.shared.dir", "../../shared"));
    static final Path CLAUDE_FIXTURES = SHARED.resolve("fixtures/claude-code");

    @TempDir
    static Path fixtureStore;

    static Result fixtureIndex;

    record Result(int status, String out, String err) {
        JsonNode json() throws IOException {
            return HitJson.MAPPER.readTree(out);
        }
    }

    static Result funes(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(status, out.toString(), err.toString());
    }

    @BeforeAll
    static void indexClaudeCodeFixtures() {
        if (Files.isDirectory(CLAUDE_FIXTURES)) {
            fixtureIndex = funes("index", "--index-path", CLAUDE_FIXTURES.toString(), "--store", fixtureStore.toString());
        }
    }

    static void assumeFixtures() {
        assumeTrue(Files.isDirectory(CLAUDE_FIXTURES), "skipped: ../shared/fixtures/claude-code is absent (" + CLAUDE_FIXTURES + ")");
    }

    @Test
    void wrongBranchQuestionFindsTheWorktreeDebuggingExchangeWithItsLines() throws IOException {
        assumeFixtures();
        assertThat(fixtureIndex.status()).as(fixtureIndex.err()).isZero();

        Result search = funes("search", "--store", fixtureStore.toString(), "--json", "--limit", "3",
                "why did CI check the wrong branch");
        assertThat(search.status()).as(search.err()).isZero();
        JsonNode hits = search.json();
        assertThat(hits.size()).isEqualTo(3);
        // The indexer cites files under their real path (../shared may be reached through a link).
        Path large = CLAUDE_FIXTURES.resolve("episodic-memory-large.jsonl").toRealPath();
        boolean found = false;
        for (JsonNode hit : hits) {
            JsonNode source = hit.get("source");
            int start = source.get("lineStart").asInt();
            int end = source.get("lineEnd").asInt();
            // Lines 125-134 of the large session: CI checks out a merge commit with main, not the worktree branch.
            if (Path.of(source.get("path").asText()).equals(large) && start <= 134 && end >= 125) {
                found = true;
                assertThat(end - start).as("a focused range").isLessThan(60);
                List<String> cited = Files.readAllLines(large, StandardCharsets.UTF_8).subList(start - 1, end);
                assertThat(String.join("\n", cited)).containsIgnoringCase("CI");
            }
        }
        assertThat(found).as("worktree-debugging exchange in top 3 of %s", search.out()).isTrue();
    }

    @Test
    void jsonHitsFollowTheContract() throws IOException {
        assumeFixtures();
        Result search = funes("search", "--store", fixtureStore.toString(), "--json", "rebase on main");
        assertThat(search.status()).as(search.err()).isZero();
        JsonNode hits = search.json();
        assertThat(hits.isArray()).isTrue();
        assertThat(hits.size()).isBetween(1, 10);
        double previous = Double.MAX_VALUE;
        for (JsonNode hit : hits) {
            for (String field : List.of("text", "score", "kind", "agent", "session", "timestamp", "source")) {
                assertThat(hit.has(field)).as(field).isTrue();
            }
            assertThat(hit.get("agent").asText()).isEqualTo("claude-code");
            assertThat(hit.get("score").asDouble()).isLessThanOrEqualTo(previous);
            previous = hit.get("score").asDouble();
            JsonNode source = hit.get("source");
            Path path = Path.of(source.get("path").asText());
            assertThat(path.isAbsolute()).isTrue();
            assertThat(Files.isRegularFile(path)).isTrue();
            int start = source.get("lineStart").asInt();
            int end = source.get("lineEnd").asInt();
            assertThat(start).isPositive();
            assertThat(end).isGreaterThanOrEqualTo(start);
            assertThat(end).isLessThanOrEqualTo(Files.readAllLines(path, StandardCharsets.UTF_8).size());
            assertThat(java.time.Instant.parse(hit.get("timestamp").asText())).isNotNull();
            JsonNode parts = hit.get("scoreParts");
            assertThat(parts.get("dense").asDouble() + parts.get("lexical").asDouble() + parts.get("rerank").asDouble())
                    .isCloseTo(hit.get("score").asDouble(), org.assertj.core.api.Assertions.within(1e-9));
        }
    }

    @Test
    void hitsReturnFurtherPassagesWithTheLinesTheyCite() throws IOException {
        assumeFixtures();
        int further = 0;
        int narrowed = 0;
        for (String query : List.of("rebase on main", "why did CI check the wrong branch",
                "how did the commit get past the pre-commit hook", "which files had conflicts during the rebase")) {
            Result search = funes("search", "--store", fixtureStore.toString(), "--json", query);
            assertThat(search.status()).as(search.err()).isZero();
            for (JsonNode hit : search.json()) {
                JsonNode more = hit.path("morePassages");
                if (more.isMissingNode()) {
                    continue;
                }
                assertThat(hit.has("passage")).as("further passages follow a best one").isTrue();
                assertThat(more.size()).isBetween(1, 2);
                for (JsonNode p : more) {
                    further++;
                    for (String field : List.of("text", "context", "lineStart", "lineEnd", "byteStart", "byteEnd", "id")) {
                        assertThat(p.has(field)).as(field).isTrue();
                    }
                    // Inside the memory's lines, and its bytes inside the file.
                    assertThat(p.get("lineStart").asInt()).isBetween(hit.get("source").get("lineStart").asInt(),
                            hit.get("source").get("lineEnd").asInt());
                    assertThat(p.get("lineEnd").asInt()).isBetween(p.get("lineStart").asInt(),
                            hit.get("source").get("lineEnd").asInt());
                    assertThat(p.get("byteEnd").asLong()).isGreaterThan(p.get("byteStart").asLong())
                            .isLessThanOrEqualTo(Files.size(Path.of(hit.get("source").get("path").asText())));
                    assertThat(p.get("id").asText()).isNotEqualTo(hit.get("passage").get("id").asText());
                }
            }
            // The text form prints each further passage with its lines.
            Result text = funes("search", "--store", fixtureStore.toString(), query);
            assertThat(text.status()).as(text.err()).isZero();
            long shown = search.json().findValues("morePassages").stream().mapToLong(JsonNode::size).sum();
            assertThat(text.out().lines().filter(l -> l.startsWith("   also ")).count()).isEqualTo(shown);
            // A passage of one JSON line also gives the bytes of that line that hold it.
            for (JsonNode hit : search.json()) {
                JsonNode p = hit.path("passage");
                JsonNode source = hit.get("source");
                if (!p.isMissingNode() && p.get("lineStart").asInt() == p.get("lineEnd").asInt()
                        && p.get("byteEnd").asLong() - p.get("byteStart").asLong()
                        < source.get("byteEnd").asLong() - source.get("byteStart").asLong()) {
                    narrowed++;
                    assertThat(text.out()).contains(":" + p.get("lineStart").asInt() + " bytes "
                            + p.get("byteStart").asLong() + "-" + p.get("byteEnd").asLong());
                }
            }
        }
        assertThat(further).as("some hit returned a further passage").isPositive();
        assertThat(narrowed).as("some passage was part of a line").isPositive();
    }

    @Test
    void retrievalModesAndTheFileFilterReachTheStore() throws IOException {
        assumeFixtures();
        Result lexical = funes("search", "--store", fixtureStore.toString(), "--json", "--retrieval", "lexical",
                "rebase on main");
        assertThat(lexical.status()).as(lexical.err()).isZero();
        assertThat(lexical.json()).isNotEmpty().allSatisfy(h -> {
            assertThat(h.get("scoreParts").has("lexicalRank")).isTrue();
            assertThat(h.get("scoreParts").has("denseRank")).isFalse();
        });
        Result dense = funes("search", "--store", fixtureStore.toString(), "--json", "--retrieval", "dense",
                "rebase on main");
        assertThat(dense.json()).isNotEmpty().allSatisfy(h -> assertThat(h.get("scoreParts").has("lexicalRank")).isFalse());
        Result noFile = funes("search", "--store", fixtureStore.toString(), "--json", "--file",
                "NoSuchFileAnywhere.java", "rebase on main");
        assertThat(noFile.status()).as(noFile.err()).isZero();
        assertThat(noFile.json()).isEmpty();
        assertThat(funes("search", "--store", fixtureStore.toString(), "--retrieval", "sparse", "x").status())
                .isEqualTo(2);
    }

    @Test
    void statsCountTheIndexedSessions() throws IOException {
        assumeFixtures();
        Result stats = funes("stats", "--store", fixtureStore.toString(), "--json");
        assertThat(stats.status()).as(stats.err()).isZero();
        JsonNode json = stats.json();
        assertThat(json.get("memories").asLong()).isPositive();
        assertThat(json.get("byAgent").get("claude-code").asLong()).isEqualTo(json.get("memories").asLong());
        assertThat(json.get("sources").asLong()).isEqualTo(5);
        assertThat(json.get("model").asText()).isEqualTo("all-minilm-l6-v2-q");
        assertThat(json.get("dimension").asInt()).isEqualTo(384);
    }

    @Test
    void reindexingUnchangedLogsAddsAndEmbedsNothing() {
        assumeFixtures();
        Result again = funes("index", "--index-path", CLAUDE_FIXTURES.toString(), "--store", fixtureStore.toString());
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.out()).contains("0 indexed, 5 unchanged").contains("0 memories added").contains("0 embedded");
    }

    @Test
    void demoAnswersFromTheSampleSessionWithProvenance(@TempDir Path dir) throws IOException {
        Path store = dir.resolve("demo");
        Result demo = funes("demo", "--store", store.toString());
        assertThat(demo.status()).as(demo.err()).isZero();
        String first = demo.out().substring(demo.out().indexOf("1. "), demo.out().indexOf("2. "));
        // Line 8 of the sample is the assistant's reasoning for leaving the streaming parser: the
        // answer is that line (the decision derived from it) or an exchange that covers it.
        assertThat(first).containsPattern("sample-session\\.jsonl:(8\\b|[1-8]-(8|9|1[0-9])\\b)");
        assertThat(first).contains("two-pass");
        List<String> sample = Files.readAllLines(store.resolve("logs/sample-session.jsonl"));
        assertThat(sample.get(7)).contains("move away from the streaming parser");        assertThat(demo.out()).as("no launcher named itself: the command as found on the PATH")
                .contains("\n  funes search --store " + store.resolve("store") + " ");
    }

    @Test
    void badInputIsReportedWithFileAndLineAndTheRestIsIndexed(@TempDir Path dir) throws IOException {
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Path store = dir.resolve("store");
        Path session = logs.resolve("0b7c7d7e-1111-4222-8333-944445555666.jsonl");
        List<String> lines = new ArrayList<>(Files.readAllLines(
                Path.of("../examples/demo-session/sample-session.jsonl"), StandardCharsets.UTF_8));
        lines.add(3, "{\"type\":\"user\",\"message\": {oops not json");
        byte[] good = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] truncated = "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"half a rec".getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[good.length + truncated.length];
        System.arraycopy(good, 0, all, 0, good.length);
        System.arraycopy(truncated, 0, all, good.length, truncated.length);
        Files.write(session, all);

        Result index = funes("index", "--index-path", logs.toString(), "--index-path", dir.resolve("missing").toString(),
                "--store", store.toString());
        assertThat(index.status()).as(index.out() + index.err()).isEqualTo(Main.EXIT_PARTIAL);
        assertThat(index.err()).contains(session.toRealPath() + ":4:");
        assertThat(index.err()).contains(dir.resolve("missing").toString());
        assertThat(index.out()).contains("1 indexed");

        Result search = funes("search", "--store", store.toString(), "--json", "--limit", "1", "streaming parser forward references");
        assertThat(search.status()).as(search.err()).isZero();
        assertThat(search.json().get(0).get("source").get("path").asText()).isEqualTo(session.toRealPath().toString());
    }

    @Test
    void searchWithoutAStoreFailsWithOneLine(@TempDir Path dir) {
        Result search = funes("search", "--store", dir.resolve("nothing").toString(), "anything");
        assertThat(search.status()).isEqualTo(1);
        assertThat(search.err()).startsWith("funes: no Funes store at").hasLineCount(1);
        assertThat(search.out()).isEmpty();
    }

    @Test
    void badUsageExitsWithTwo(@TempDir Path dir) {
        assertThat(funes("search", "--store", dir.toString(), "--limit", "0", "x").status()).isEqualTo(2);
        assertThat(funes("search", "--store", dir.toString(), "--kind", "nonsense", "x").status()).isEqualTo(2);
        assertThat(funes("frobnicate").status()).isEqualTo(2);
    }

    @Test
    void anExistingStoreRefusesAnotherModel(@TempDir Path dir) {
        Path store = dir.resolve("store");
        Result first = funes("index", "--index-path", "../examples/demo-session", "--store", store.toString());
        assertThat(first.status()).as(first.err()).isZero();
        Result other = funes("index", "--index-path", "../examples/demo-session", "--store", store.toString(),
                "--model", "bge-small-en-v15-q");
        assertThat(other.status()).isEqualTo(1);
        assertThat(other.err()).contains("all-minilm-l6-v2-q").contains("bge-small-en-v15-q");
    }

    @Test
    void indexWithoutPathsReadsTheDefaultClaudeCodeFolder(@TempDir Path home) throws IOException {
        assumeTrue(System.getenv("CLAUDE_CONFIG_DIR") == null, "skipped: CLAUDE_CONFIG_DIR overrides ~/.claude");
        Path project = Files.createDirectories(home.resolve(".claude/projects/-home-dev-projects-ledger-sync"));
        Files.copy(Path.of("../examples/demo-session/sample-session.jsonl"),
                project.resolve("5f0c2b9e-3d4a-4e8b-9c1d-7a6b5c4d3e2f.jsonl"));
        String savedHome = System.getProperty("user.home");
        Result index;
        try {
            System.setProperty("user.home", home.toString());
            index = funes("index", "--store", home.resolve("store").toString());
        } finally {
            System.setProperty("user.home", savedHome);
        }
        assertThat(index.status()).as(index.err()).isZero();
        assertThat(index.out()).contains("1 indexed");
        JsonNode byKind = funes("stats", "--store", home.resolve("store").toString(), "--json").json().get("byKind");
        // 4 exchanges and a summary, the 3 decisions and lookups derived from them, and the
        // passages of their records.
        assertThat(byKind.path("exchange").asLong() + byKind.path("summary").asLong()).isEqualTo(5);
        assertThat(byKind.path("decision").asLong() + byKind.path("lookup").asLong()
                + byKind.path("convention").asLong()).isEqualTo(3);
        assertThat(byKind.path("passage").asLong()).isPositive();
        long all = 0;
        for (JsonNode n : byKind) {
            all += n.asLong();
        }
        assertThat(index.out()).contains(all + " memories added");
    }
}
