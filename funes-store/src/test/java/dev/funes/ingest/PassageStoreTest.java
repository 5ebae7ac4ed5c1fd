package dev.funes.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Embedder;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import dev.funes.store.DatasetExport;
import dev.funes.store.ExportOptions;
import dev.funes.store.FunesStore;
import dev.funes.store.TestModel;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Passages in a real store: the same tool output read several times is embedded once and cited
 * from every place it appeared; secrets planted in a written file, an edit, a tool output and a
 * thinking block reach neither the database, its WAL, the full-text vocabulary, the index files
 * nor an export.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PassageStoreTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Embedder embedder = TestModel.shared();

    @Test
    void oneToolOutputReadManyTimesIsNeverEmbeddedAgainAndCitedFromEachPlace(@TempDir Path tmp) throws Exception {
        StringBuilder config = new StringBuilder();
        for (int i = 1; i <= 40; i++) {
            config.append(i == 20 ? "quokka-retention-window: 37 days" : "setting-" + i + ": value " + i).append('\n');
        }
        List<String> lines = new ArrayList<>();
        int n = 0;
        List<Integer> resultLines = new ArrayList<>();
        for (String ask : List.of("what is in the config?", "read the config again please", "check config once more")) {
            lines.add(Records.request(++n, ask));
            lines.add(Records.toolUse(++n, "msg-" + n, "tool-" + n, "Read", "file_path", Records.CWD + "/config.yaml"));
            lines.add(Records.result(++n, "tool-" + (n - 1), config.toString(), false));
            resultLines.add(lines.size());
            lines.add(Records.answer(++n, "msg-" + n, "The config has forty settings."));
        }
        Path dir = indexed(tmp, lines, store -> {
            List<SearchHit> hits = store.search(SearchRequest.builder("quokka retention window").limit(5).build());
            List<Integer> cited = hits.stream().filter(h -> h.passage() != null
                            && h.passageText().contains("quokka-retention-window: 37 days"))
                    .map(h -> h.passage().provenance().lineStart()).sorted().toList();
            assertThat(cited).as("each read is cited at its own result record").isEqualTo(resultLines);
        });
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT p.line_start), count(DISTINCT p.text),"
                     + " sum(p.vector_id = e.vector_id),"
                     + " (SELECT count(*) FROM vectors v WHERE instr(v.content_hash, 'quokka') > 0"
                     + "    OR v.content_hash IN (SELECT content_hash FROM memories WHERE kind = 'passage'"
                     + "                           AND instr(text, 'quokka-retention-window') > 0"
                     + "                           AND vector_id NOT IN (SELECT vector_id FROM memories WHERE kind = 'exchange')))"
                     + " FROM memories p JOIN memories e ON e.id = json_extract(p.metadata, '$.passageOf')"
                     + " WHERE p.kind = 'passage' AND instr(p.text, 'quokka-retention-window') > 0")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).as("passages holding the output").isEqualTo(3);
            assertThat(rs.getInt(2)).as("places cited").isEqualTo(3);
            assertThat(rs.getInt(3)).as("one text: the same output has the same passage").isEqualTo(1);
            // A tool output is not embedded at all: its passages are found by meaning through the
            // vector of their exchange (and by their words through the full-text index).
            assertThat(rs.getInt(4)).as("passages using their exchange's vector").isEqualTo(3);
            assertThat(rs.getInt(5)).as("vectors of the output's own text").isZero();
        }
        // Deleting an exchange deletes its passages (they hold its full content), found by index.
        String exchange;
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            SearchHit first = store.search(SearchRequest.builder("quokka retention window").limit(1).build()).get(0);
            exchange = first.memory().id();
            assertThat(store.delete(exchange)).isTrue();
            assertThat(store.get(first.passage().id())).isEmpty();
            assertThat(store.search(SearchRequest.builder("quokka retention window").limit(5).build()))
                    .hasSize(2).noneMatch(h -> h.memory().id().equals(exchange));
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM memories"
                    + " WHERE json_extract(metadata, '$.passageOf') = '" + exchange + "'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).isZero();
            }
            try (ResultSet rs = s.executeQuery("EXPLAIN QUERY PLAN SELECT id FROM memories WHERE kind = 'passage'"
                    + " AND json_extract(metadata, '$.passageOf') = 'x'")) {
                StringBuilder plan = new StringBuilder();
                while (rs.next()) {
                    plan.append(rs.getString(4));
                }
                assertThat(plan.toString()).contains("memories_passage_of");
            }
        }
    }

    @Test
    void whatAShortExchangeHoldsWholeUsesItsVectorALongOnesPassagesTheirOwn(@TempDir Path tmp) throws Exception {
        String shortAnswer = "The cache key included the build timestamp, so every build missed; it is dropped now.";
        StringBuilder longAnswer = new StringBuilder("Here is how the release pipeline works, step by step.\n\n");
        for (int i = 1; i <= 12; i++) {
            longAnswer.append("Step ").append(i).append(": the pipeline runs stage ").append(i)
                    .append(" and uploads its artifacts to the bucket named release-stage-").append(i).append(".\n\n");
        }
        longAnswer.append("The signing key for stage nine lives in the vault under releases/sign.");
        List<String> lines = List.of(
                Records.request(1, "why was every build a cache miss?"),
                Records.answer(2, "msg-2", shortAnswer),
                Records.request(3, "explain the release pipeline"),
                Records.answer(4, "msg-4", longAnswer.toString()));
        Path dir = indexed(tmp, lines, store -> {
            // Found by meaning through the exchange's vector; the answer among the passages it returns.
            List<SearchHit> hits = store.search(SearchRequest.builder("why did the builds never hit the cache")
                    .retrieval(dev.funes.Retrieval.DENSE).limit(3).build());
            assertThat(hits.get(0).memory().text()).contains("cache miss");
            assertThat(hits.get(0).passages()).anySatisfy(p -> assertThat(p.text())
                    .contains("cache key included the build timestamp"));
        });
        String sql = "SELECT length(e.text), count(*), sum(p.vector_id = e.vector_id)"
                + " FROM memories p JOIN memories e ON e.id = json_extract(p.metadata, '$.passageOf')"
                + " WHERE p.kind = 'passage' AND instr(e.text, ?) > 0 GROUP BY e.id";
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             java.sql.PreparedStatement q = c.prepareStatement(sql)) {
            q.setString(1, "cache miss");
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("the exchange's text").isLessThanOrEqualTo(Passages.SHARED_EXCHANGE_CHARS);
                assertThat(rs.getInt(2)).as("its passages: the request and the answer").isEqualTo(2);
                assertThat(rs.getInt(3)).as("embedded as the exchange is, not again").isEqualTo(2);
            }
            q.setString(1, "release pipeline");
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getInt(1)).as("the exchange's text").isGreaterThan(Passages.SHARED_EXCHANGE_CHARS);
                assertThat(rs.getInt(2)).as("its passages").isGreaterThan(2);
                assertThat(rs.getInt(3)).as("each with a vector of its own").isZero();
            }
        }
    }

    @Test
    void whatTheAgentReadToLearnIsEmbeddedOnItsOwnOtherOutputThroughItsExchange(@TempDir Path tmp) throws Exception {
        String design = "Tracing guidelines.\n\nDo not use the opentelemetry_phoenix package for spans: it double counts"
                + " LiveView events. Use the Telemetry.Span wrapper in lib/app/telemetry.ex instead.\n";
        String listing = "lib\nmix.exs\nREADME.md\ntest\n";
        String issue = "Epic 12: observability. Constraint: traces go through the collector on port 4317, never straight"
                + " to the vendor.\n";
        List<String> lines = new ArrayList<>();
        int n = 0;
        List<Integer> designLines = new ArrayList<>();
        for (String ask : List.of("read the design notes", "read the design notes again")) {
            lines.add(Records.request(++n, ask));
            lines.add(Records.toolUse(++n, "msg-" + n, "tool-" + n, "Read", "file_path", Records.CWD + "/docs/DESIGN.md"));
            lines.add(Records.result(++n, "tool-" + (n - 1), design, false));
            designLines.add(lines.size());
            lines.add(Records.answer(++n, "msg-" + n, "Noted."));
        }
        lines.add(Records.request(++n, "what is in the project and what does the epic say?"));
        lines.add(Records.toolUse(++n, "msg-" + n, "tool-" + n, "Bash", "command", "ls"));
        lines.add(Records.result(++n, "tool-" + (n - 1), listing, false));
        lines.add(Records.toolUse(++n, "msg-" + n, "tool-" + n, "Bash", "command", "gh issue view 12"));
        lines.add(Records.result(++n, "tool-" + (n - 1), issue, false));
        lines.add(Records.answer(++n, "msg-" + n, "Four entries; the epic constrains tracing."));
        Path dir = indexed(tmp, lines, store -> {
            // Found by meaning alone, the passage itself the answer.
            List<SearchHit> hits = store.search(SearchRequest.builder("which package must not be used for spans")
                    .retrieval(dev.funes.Retrieval.DENSE).limit(3).build());
            assertThat(hits).anySatisfy(h -> assertThat(h.passageText()).contains("Do not use the opentelemetry_phoenix"));
        });
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             Statement s = c.createStatement()) {
            String own = "SELECT count(*), count(DISTINCT p.vector_id), sum(p.vector_id = e.vector_id), group_concat(p.line_start)"
                    + " FROM memories p JOIN memories e ON e.id = json_extract(p.metadata, '$.passageOf')"
                    + " WHERE p.kind = 'passage' AND instr(p.text, ?) > 0 AND p.text LIKE 'Result of%'";
            try (java.sql.PreparedStatement q = c.prepareStatement(own)) {
                q.setString(1, "opentelemetry_phoenix");
                try (ResultSet rs = q.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).as("the documentation read twice").isEqualTo(2);
                    assertThat(rs.getInt(2)).as("embedded once").isEqualTo(1);
                    assertThat(rs.getInt(3)).as("with a vector of its own, not its exchange's").isZero();
                    assertThat(rs.getString(4).split(",")).extracting(Integer::parseInt)
                            .containsExactlyInAnyOrderElementsOf(designLines);
                }
                q.setString(1, "collector on port 4317");
                try (ResultSet rs = q.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).as("the issue printed by gh").isEqualTo(1);
                    assertThat(rs.getInt(3)).as("with a vector of its own").isZero();
                }
                q.setString(1, "mix.exs");
                try (ResultSet rs = q.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getInt(1)).as("the listing").isEqualTo(1);
                    assertThat(rs.getInt(3)).as("found through its exchange's vector").isEqualTo(1);
                }
            }
        }
    }

    @Test
    void secretsInWrittenCodeEditsToolOutputAndThinkingReachNoFile(@TempDir Path tmp) throws Exception {
        String github = "ghp_" + "Q7wE9rT2yU4iO6pA8sD0fG1hJ3kL5zX7cV9b";
        String stripe = "sk_live_" + "51HxQ2eLkT9mN3pR7vW4yZ8a";
        String aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY";
        String slack = "xoxb-" + "2718281828-3141592653-AbCdEfGhIjKlMnOpQrStUvWx";
        List<String> secrets = List.of(github, stripe, aws, slack);

        StringBuilder output = new StringBuilder();
        for (int i = 1; i <= 60; i++) {
            output.append(i == 31 ? "export AWS_SECRET_ACCESS_KEY=" + aws : "line " + i + " of the environment dump").append('\n');
        }
        List<String> lines = new ArrayList<>();
        lines.add(Records.request(1, "set up the deploy credentials"));
        lines.add(thinking(2, "Let me think about where the token goes. " + "The deploy needs a token. ".repeat(40)
                + "The slack bot token is " + slack + " and it must not be committed. " + "More thoughts. ".repeat(30)));
        lines.add(Records.toolUse(3, "msg-3", "tool-3", "Write", "content",
                "const client = new Octokit({ auth: '" + github + "' });\nexport default client;\n"));
        lines.add(Records.result(4, "tool-3", "File created successfully", false));
        lines.add(Records.toolUse(5, "msg-5", "tool-5", "Edit", "new_string", "STRIPE_SECRET_KEY=" + stripe + "\n"));
        lines.add(Records.result(6, "tool-5", "The file has been updated", false));
        lines.add(Records.bash(7, "msg-7", "tool-7", "env"));
        lines.add(Records.result(8, "tool-7", output.toString(), false));
        lines.add(Records.answer(9, "msg-9", "Credentials are in place."));
        Path log = Records.write(tmp.resolve("projects/-work-demo/" + Records.SESSION + ".jsonl"), lines);

        Path dir = tmp.resolve("store");
        Path dataset = tmp.resolve("dataset");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            IndexReport report = Indexer.builder(store).build().index(List.of(log));
            assertThat(report.problems()).isEmpty();
            assertThat(store.stats().byKind()).containsKey(MemoryKind.PASSAGE.label());
            // The passages are there, redacted: the deep output line and the thinking are found.
            List<SearchHit> hits = store.search(SearchRequest.builder("AWS_SECRET_ACCESS_KEY export").limit(5).build());
            assertThat(hits).anyMatch(h -> h.passage() != null && h.passageText().contains("AWS_SECRET_ACCESS_KEY=[REDACTED"));
            assertNoPiece(secrets, List.copyOf(StoreScans.storeFiles(dir).values()));
            DatasetExport.export(store, dataset, ExportOptions.defaults().withVectors(true));
        }
        assertNoPiece(secrets, List.copyOf(StoreScans.storeFiles(dir).values()));
        List<String> terms = StoreScans.ftsTerms(dir.resolve("funes.db"));
        assertThat(terms).isNotEmpty();
        for (String term : terms) {
            if (term.length() >= StoreScans.WINDOW) {
                for (String secret : secrets) {
                    assertThat(secret.toLowerCase(Locale.ROOT)).as("FTS term %s", term).doesNotContain(term);
                }
            }
        }
        List<String> exported = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dataset)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                if (f.toString().endsWith(".gz")) {
                    try (InputStream in = new GZIPInputStream(Files.newInputStream(f))) {
                        exported.add(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    }
                } else {
                    exported.add(Files.readString(f, StandardCharsets.ISO_8859_1));
                }
            }
        }
        assertThat(String.join("\n", exported)).contains("passage");
        assertNoPiece(secrets, exported);
    }

    /**
     * A rule that reads a run of key characters by its length (a cut mark after 2,500 random
     * characters is data; after the last few hundred of them, a piece of a key) redacts a passage
     * alone that it left in its record: the passage is stored under the id its read gave, so a
     * fresh read marks nothing of its file as changed and the next read finds the file unchanged.
     */
    @Test
    void aPassageARuleRedactsAloneIsStoredUnderTheIdItsReadGave(@TempDir Path tmp) throws Exception {
        Random random = new Random(21);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder blob = new StringBuilder();
        for (int i = 0; i < 2500; i++) {
            blob.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        String output = "grep found:\n" + blob + "\u2026120000 tokens truncated\u2026/src/proxy.ts:264: const context = sanitizerContext(null);\n";
        List<String> lines = List.of(
                Records.request(1, "where is the proxy context created?"),
                Records.bash(2, "msg-2", "tool-2", "rg -n context src"),
                Records.result(3, "tool-2", output, false),
                Records.answer(4, "msg-4", "In src/proxy.ts, line 264."));
        Path log = Records.write(tmp.resolve("projects/-work-demo/" + Records.SESSION + ".jsonl"), lines);
        try (MemoryStore store = FunesStore.open(tmp.resolve("store"), embedder)) {
            Indexer indexer = Indexer.builder(store).build();
            IndexReport first = indexer.index(List.of(log));
            assertThat(first.problems()).isEmpty();
            assertThat(first.changedFiles()).as("files a fresh read marked changed").isEmpty();
            assertThat(first.earlierMemoriesKept()).isZero();
            List<SearchHit> hits = store.search(SearchRequest.builder("sanitizerContext").limit(5).build());
            assertThat(hits).anyMatch(h -> h.passage() != null && h.passage().provenance().lineStart() == 3
                    && h.passageText().contains("sanitizerContext"));
            IndexReport second = indexer.index(List.of(log));
            assertThat(second.filesUnchanged()).isEqualTo(1);
            assertThat(second.memoriesAdded()).isZero();
        }
        assertThat(ids(tmp.resolve("store"), "json_extract(metadata, '$." + SourceState.CHANGED_KEY + "') IS NOT NULL"))
                .as("memories marked changed").isEmpty();
        assertThat(ids(tmp.resolve("store"), "kind = 'passage' AND text LIKE '%[REDACTED:high-entropy]\u2026120000 tokens%'"))
                .as("the passage whose run before the cut mark is a piece of a key").hasSize(1);
    }

    @Test
    void aStoreBuiltBeforePassagesIsUpgradedAndTheNextIndexAddsThem(@TempDir Path tmp) throws Exception {
        Path log = Logs.shared().resolve("fixtures/claude-code/episodic-memory-long.jsonl");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(log), "skipped: no fixtures at " + log);
        Path dir = tmp.resolve("store");
        List<String> exchanges;
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            // What a store of the previous schema holds: renderings, complete checkpoints.
            Indexer.builder(store).passages(false).build().index(List.of(log));
            exchanges = ids(dir, "kind IN ('exchange', 'summary')");
            assertThat(store.stats().byKind()).doesNotContainKey(MemoryKind.PASSAGE.label());
            // A statement the rendering cut in the middle was derived cut.
            assertThat(ids(dir, "kind IN ('decision', 'convention') AND text LIKE '%chars omitted%'")).isNotEmpty();
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 7");
        }
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            IndexReport report = Indexer.builder(store).build().index(List.of(log));
            assertThat(report.filesIndexed()).as("read again, though it did not change").isEqualTo(1);
            assertThat(ids(dir, "kind IN ('exchange', 'summary')")).as("every exchange of before is still there")
                    .containsAll(exchanges);
            // Its record's whole text gives the statement whole instead.
            assertThat(ids(dir, "kind IN ('decision', 'convention') AND text LIKE '%chars omitted%'")).isEmpty();
            assertThat(store.stats().byKind()).containsKey(MemoryKind.PASSAGE.label());
            // The word is in no rendering, only in the passage of the file the agent read.
            assertThat(store.search(SearchRequest.builder("Sapienz").retrieval(dev.funes.Retrieval.LEXICAL).limit(5).build()))
                    .anyMatch(h -> h.passage() != null && h.passageText().contains("Sapienz"));
            IndexReport again = Indexer.builder(store).build().index(List.of(log));
            assertThat(again.filesUnchanged()).as("read once, not at every open").isEqualTo(1);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA user_version")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getInt(1)).isGreaterThanOrEqualTo(8);
        }
    }

    private static List<String> ids(Path dir, String where) throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM memories WHERE " + where)) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    private static String thinking(int n, String text) {
        ObjectNode r = (ObjectNode) readTree(Records.answer(n, "msg-" + n, "x"));
        ObjectNode block = (ObjectNode) r.path("message").path("content").get(0);
        block.removeAll();
        block.put("type", "thinking").put("thinking", text).put("signature", "sig");
        return r.toString();
    }

    private static com.fasterxml.jackson.databind.JsonNode readTree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** What a test does with the store it indexed, still open. */
    @FunctionalInterface
    private interface OpenStore {
        void use(MemoryStore store) throws Exception;
    }

    /**
     * Writes {@code lines} as a Claude Code session log in {@code tmp}, indexes it into a new store
     * there and hands the open store to {@code then}; the store's folder.
     */
    private Path indexed(Path tmp, List<String> lines, OpenStore then) throws Exception {
        Path log = Records.write(tmp.resolve("projects/-work-demo/" + Records.SESSION + ".jsonl"), lines);
        Path dir = tmp.resolve("store");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).build().index(List.of(log));
            then.use(store);
        }
        return dir;
    }

    private static void assertNoPiece(List<String> secrets, List<String> contents) {
        for (String secret : secrets) {
            for (int i = 0; i + StoreScans.WINDOW <= secret.length(); i++) {
                String piece = secret.substring(i, i + StoreScans.WINDOW);
                for (String content : contents) {
                    assertThat(content).as("a piece of a planted secret").doesNotContain(piece);
                }
            }
        }
    }

}
