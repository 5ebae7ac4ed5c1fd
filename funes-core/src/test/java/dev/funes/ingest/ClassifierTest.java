package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The classifier on exchange texts written here, and on a log written here (narrowed citations). */
class ClassifierTest {

    private final Classifier classifier = new Classifier();

    @TempDir
    Path tmp;

    /** An exchange laid out as Chunker writes it; its citation names a file that does not exist. */
    private static Memory exchange(String... entries) {
        return Memory.builder(MemoryKind.EXCHANGE, "claude-code", String.join("\n", entries))
                .session("s1").project("/work/demo")
                .provenance(new Provenance(Path.of("/nonexistent/log.jsonl"), 10, 14, 100, 900, List.of("u1", "u2")))
                .metadata("gitBranch", "main").metadata("part", "1/2")
                .build();
    }

    private List<Memory> of(MemoryKind kind, Memory exchange) {
        return classifier.classify(exchange).stream().filter(m -> m.kind() == kind).toList();
    }

    // ---- decisions ---------------------------------------------------------------------------

    @Test
    void aDecisionWithItsRejectedAlternativeAndReason() {
        Memory ex = exchange("User: Let's use pnpm instead of npm because the lockfile is smaller.",
                "Assistant: Done.");
        List<Memory> found = of(MemoryKind.DECISION, ex);
        assertThat(found).hasSize(1);
        Memory d = found.get(0);
        assertThat(d.text()).isEqualTo("Decision (user): Let's use pnpm instead of npm because the lockfile is smaller.");
        assertThat(d.metadata()).containsEntry("derivedFrom", ex.id()).containsEntry("rule", "decision:instead-of")
                .containsEntry("speaker", "user").containsEntry("files", "[]").containsEntry("gitBranch", "main")
                .doesNotContainKey("part");
        // The log cannot be read back: the exchange's citation is kept, as are its session and project.
        assertThat(d.provenance()).isEqualTo(ex.provenance());
        assertThat(d.session()).isEqualTo("s1");
        assertThat(d.project()).isEqualTo("/work/demo");
        assertThat(d.id()).isEqualTo(Memory.idOf(MemoryKind.DECISION, "claude-code", "s1", ex.provenance(), d.text()));
    }

    @Test
    void decisionsOfTheAgentAndItsReasoningWithTheFollowingReason() {
        Memory ex = exchange("User: the pool leaks connections",
                "Thinking: The old pool is unmaintained. I replaced c3p0 with HikariCP in `Db.java`.",
                "[Edit] src/main/java/app/Db.java \u2192 ok",
                "Assistant: Switched the pool to HikariCP. It is maintained and faster.",
                "Assistant: We decided against retries. Because they hide the leak.");
        List<Memory> found = of(MemoryKind.DECISION, ex);
        assertThat(found).extracting(m -> m.metadata().get("rule"))
                .containsExactly("decision:replaced", "decision:switched", "decision:decided");
        assertThat(found.get(0).text()).isEqualTo("Decision (thinking): I replaced c3p0 with HikariCP in `Db.java`.");
        assertThat(found.get(0).metadata().get("files")).isEqualTo("[\"Db.java\",\"src/main/java/app/Db.java\"]");
        assertThat(found.get(2).text()).isEqualTo("Decision (assistant): We decided against retries. Because they hide the leak.");
    }

    @Test
    void questionsNegationsConditionalsCodeQuotesAndToolOutputAreNotDecisions() {
        Memory ex = exchange(
                "User: Should we switch to Postgres instead of MySQL?",
                "Assistant: We have not decided on the database yet.",
                "If we switch to Gradle rather than Maven the build changes.",
                "Let me check if we should use npm install instead of npm ci.",
                "```",
                "# use X instead of Y",
                "git switch to-main",
                "```",
                "    cfg.useTabs = true; // rather than spaces",
                "> We moved away from Redis last year.",
                "The flag `--prefer-rather-than` is parsed by `instead_of()` now.",
                "[Bash] grep -rn 'instead of' docs \u2192 ok:",
                "    docs/a.txt: we went with Kafka instead of RabbitMQ",
                "Result of [Bash] cat notes \u2192 ok: decided to use Rust rather than Go",
                "Tool result \u2192 ok: switched to the new API instead of the old one");
        assertThat(classifier.classify(ex)).isEmpty();
    }

    // ---- conventions -------------------------------------------------------------------------

    @Test
    void aStatedWantAFirstPrincipleAndAContrastAreDecisions() {
        Memory ex = exchange("User: We explicitly don't want hardcoded visual tests. Do we want the fixtures too?",
                "Assistant: The agent drives the browser itself, not a pre-scripted runner.",
                "User: We do container-first, so the loop never shares the laptop's screen.",
                "Assistant: I want to know more. Depth-first search visits children before siblings.");
        List<Memory> found = of(MemoryKind.DECISION, ex);
        assertThat(found).extracting(m -> m.metadata().get("rule"))
                .containsExactly("decision:we-want", "decision:not-the-other", "decision:first");
        assertThat(found.get(0).text()).isEqualTo("Decision (user): We explicitly don't want hardcoded visual tests.");
        assertThat(found.get(2).text())
                .isEqualTo("Decision (user): We do container-first, so the loop never shares the laptop's screen.");
    }

    @Test
    void conventionsComeFromTheUser() {
        Memory ex = exchange("User: Always use AssertJ for assertions. Never commit generated files.\nplease use tabs in Makefiles.",
                "Assistant: You should always run the tests. I will never commit generated files.");
        List<Memory> found = classifier.classify(ex);
        assertThat(found).hasSize(1);
        Memory c = found.get(0);
        assertThat(c.kind()).isEqualTo(MemoryKind.CONVENTION);
        assertThat(c.text()).isEqualTo("Convention (user): Always use AssertJ for assertions. Never commit generated files."
                + " please use tabs in Makefiles.");
        assertThat(c.metadata()).containsEntry("rule", "convention:always").containsEntry("speaker", "user");
    }

    @Test
    void anOrderStartingWithDoNotIsAConventionAQuestionStartingWithDoIsNot() {
        Memory ex = exchange("User: Do not mock the database in these tests. Do you want the fixtures too?");
        List<Memory> found = of(MemoryKind.CONVENTION, ex);
        assertThat(found).singleElement().satisfies(c -> {
            assertThat(c.text()).isEqualTo("Convention (user): Do not mock the database in these tests.");
            assertThat(c.metadata()).containsEntry("rule", "convention:do-not");
        });
    }

    @Test
    void theContinuedLinesOfALongInputAreTheUsersToo() {
        Memory ex = exchange("Request (continued): Review the parser", "User (continued): Never push to main directly.");
        assertThat(of(MemoryKind.CONVENTION, ex)).singleElement()
                .satisfies(c -> assertThat(c.text()).isEqualTo("Convention (user): Never push to main directly."));
    }

    @Test
    void descriptionsAndComplaintsAreNotConventions() {
        Memory ex = exchange("User: It never works on the first try. We don't need the old script anymore."
                        + " Does it always fail?",
                "Task from the parent agent: Always answer in French.",
                "User command: /review always");
        assertThat(of(MemoryKind.CONVENTION, ex)).isEmpty();
    }

    // ---- lookups -----------------------------------------------------------------------------

    @Test
    void aWebLookupWithWhatWasConcluded() {
        Memory ex = exchange("User: how does the API paginate?",
                "Thinking: I should read the docs.",
                "[WebFetch] https://docs.example.org/api/pagination \u2192 ok: Pages carry a next cursor.",
                "[WebSearch] example api cursor pagination \u2192 ok:",
                "    result one",
                "Assistant: The API paginates with cursors. We page until `next` is null. That is all.");
        List<Memory> found = of(MemoryKind.LOOKUP, ex);
        assertThat(found).hasSize(2);
        assertThat(found.get(0).text()).isEqualTo("Lookup: [WebFetch] https://docs.example.org/api/pagination \u2192 ok:"
                + " Pages carry a next cursor.\nConcluded: The API paginates with cursors. We page until `next` is null."
                + " That is all.");
        assertThat(found.get(0).metadata()).containsEntry("rule", "lookup:web-fetch")
                .containsEntry("files", "[\"https://docs.example.org/api/pagination\"]").doesNotContainKey("speaker");
        assertThat(found.get(1).metadata()).containsEntry("rule", "lookup:web-search").containsEntry("files", "[]");
    }

    @Test
    void readingDocumentationIsALookupReadingCodeIsNot() {
        Memory ex = exchange("User: set it up",
                "[Read] README.md \u2192 ok (40 lines)",
                "[Read] src/App.java \u2192 ok (90 lines)",
                "[Bash] cat docs/setup.txt \u2192 ok: step one",
                "[Bash] cat build.log \u2192 ok: BUILD OK",
                "[read_file] guide/INSTALL.rst \u2192 ok (3 lines)",
                "[mcp__context7__get-library-docs] react \u2192 ok: hooks",
                "Assistant: Set up as the README says.");
        assertThat(of(MemoryKind.LOOKUP, ex)).extracting(m -> m.metadata().get("files"))
                .containsExactly("[\"README.md\"]", "[\"docs/setup.txt\"]", "[\"guide/INSTALL.rst\"]", "[\"react\"]");
    }

    // ---- general -----------------------------------------------------------------------------

    @Test
    void onlyExchangesAreClassifiedAndTheSameExchangeGivesTheSameMemories() {
        Memory note = Memory.builder(MemoryKind.NOTE, "api", "We use pnpm instead of npm because it is faster.").build();
        assertThat(classifier.classify(note)).isEmpty();
        Memory ex = exchange("User: We use pnpm instead of npm because it is faster.");
        assertThat(new Classifier().classify(ex)).isEqualTo(classifier.classify(ex)).hasSize(1);
    }

    @Test
    void citationsAreNarrowedToTheRecordHoldingTheStatement() throws IOException {
        Path log = Records.write(tmp.resolve("p").resolve(Records.SESSION + ".jsonl"), List.of(
                Records.request(1, "How should we fetch config? Read https://docs.example.org/config first."),
                Records.toolUse(2, "msg_1", "toolu_1", "WebFetch", "url", "https://docs.example.org/config"),
                Records.result(3, "toolu_1", "Config is read from CONFIG_URL.", false),
                Records.answer(4, "msg_2", "The docs say config comes from `CONFIG_URL`. Read it once at start."),
                Records.answer(5, "msg_3", "I went with \"env\" variables instead of a YAML file, since the docs recommend it."),
                Records.request(6, "ok. from now on, please use env variables for all settings.")));
        List<Memory> derived = new ArrayList<>();
        AgentLogs.claudeCode().parse(log, m -> derived.addAll(classifier.classify(m)));

        assertThat(derived).extracting(Memory::kind)
                .containsExactly(MemoryKind.LOOKUP, MemoryKind.DECISION, MemoryKind.CONVENTION);
        Memory lookup = derived.get(0);
        assertThat(lookup.provenance().lineStart()).isEqualTo(2);
        assertThat(lookup.provenance().lineEnd()).isEqualTo(4);
        assertThat(lookup.provenance().recordIds()).containsExactly(Records.uuid(2), Records.uuid(3), Records.uuid(4));
        assertThat(lookup.text()).endsWith("Concluded: The docs say config comes from `CONFIG_URL`. Read it once at start.");

        Memory decision = derived.get(1);
        assertThat(decision.text()).isEqualTo(
                "Decision (assistant): I went with \"env\" variables instead of a YAML file, since the docs recommend it.");
        assertThat(decision.provenance().lineStart()).isEqualTo(5);
        assertThat(decision.provenance().lineEnd()).isEqualTo(5);
        assertThat(decision.provenance().recordIds()).containsExactly(Records.uuid(5));
        assertThat(read(decision.provenance())).contains("instead of a YAML file").endsWith("\n");

        Memory convention = derived.get(2);
        assertThat(convention.provenance().lineStart()).isEqualTo(6);
        assertThat(read(convention.provenance())).contains("please use env variables");
        assertThat(convention.metadata()).containsEntry("rule", "convention:please-use");
    }

    /** The bytes a provenance cites. */
    private static String read(Provenance p) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(p.source().toFile(), "r")) {
            byte[] b = new byte[(int) (p.byteEnd() - p.byteStart())];
            f.seek(p.byteStart());
            f.readFully(b);
            return new String(b, StandardCharsets.UTF_8);
        }
    }
}
