package dev.funes.why;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import dev.funes.store.LinkTables;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Linking on the real agent logs of the shared fixtures. Their repositories are not here, so this
 * is evidence-only linking: links to shas whose commit objects are unknown. The logs indexed are
 * those that hold each kind of evidence checked (three Aider histories with 47 commit lines, the
 * Claude Code session with git commit output, Cline's task and a Codex session with its git
 * head), not every fixture: embedding all of them took most of this module's build.
 */
class FixturesLinkTest {

    static final Path FIXTURES = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures");
    /** Aider's note after it committed; "> Committing x before applying edits" is not one. */
    static final List<Path> AIDER = Stream.of("coding-aider-history-example.md", "coding-aider-history-example2.md",
            "monochromatic.aider.chat.history.md").map(name -> FIXTURES.resolve("aider").resolve(name)).toList();
    static final Pattern AIDER_COMMIT = Pattern.compile("^> Commit ([0-9a-f]{7,40}) ");

    @TempDir
    static Path tmp;
    static Embedder embedder;
    static MemoryStore store;
    static LinkReport report;

    @BeforeAll
    static void indexAndLink() {
        assumeTrue(Files.isDirectory(FIXTURES), "skipped: shared fixtures not found at " + FIXTURES);
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        store = FunesStore.open(tmp.resolve("store"), embedder);
        Indexer.builder(store).build().index(List.of(AIDER.get(0), AIDER.get(1), AIDER.get(2), FIXTURES.resolve("cline"),
                FIXTURES.resolve("claude-code/episodic-memory-long.jsonl"),
                FIXTURES.resolve("codex/localpush-rollout-t1319.jsonl")));
        report = Why.over(store).link();
        System.out.println("Fixtures " + report.summary());
    }

    @AfterAll
    static void close() {
        if (store != null) {
            store.close();
        }
        if (embedder != null) {
            embedder.close();
        }
    }

    record CommitLine(Path file, int line, String sha) {
    }

    @Test
    void everyAiderCommitLineIsLinkedToTheExchangeThatHoldsIt() throws Exception {
        List<CommitLine> lines = new ArrayList<>();
        for (Path file : AIDER) {
            List<String> text = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < text.size(); i++) {
                Matcher m = AIDER_COMMIT.matcher(text.get(i));
                if (m.find()) {
                    lines.add(new CommitLine(file.toRealPath(), i + 1, m.group(1)));
                }
            }
        }
        // grep -chE '^> Commit [0-9a-f]{7,40} ' on the three files: 3, 1 and 43
        assertThat(lines).hasSizeGreaterThan(40);
        LinkTables tables = FunesStore.links(store);
        int linked = 0;
        List<CommitLine> missing = new ArrayList<>();
        for (CommitLine c : lines) {
            boolean found = tables.linksTo(c.sha()).stream()
                    .filter(l -> l.evidence().equals(Evidence.AIDER_COMMIT.label()) && l.sha().equals(c.sha()))
                    .map(l -> store.get(l.memoryId()).orElseThrow())
                    .anyMatch(m -> m.provenance() != null && m.provenance().source().equals(c.file())
                            && m.provenance().lineStart() <= c.line() && c.line() <= m.provenance().lineEnd());
            if (found) {
                linked++;
            } else {
                missing.add(c);
            }
        }
        assertThat(missing).as("commit lines without a link from the exchange holding them").isEmpty();
        assertThat(linked).isEqualTo(lines.size());
        // No repository: the commits are unknown, the links still answer why.
        CommitLine first = lines.get(0);
        List<WhyHit> hits = Why.over(store).why(WhyRequest.of(first.sha()));
        assertThat(hits).isNotEmpty();
        assertThat(hits.get(0).evidence()).isEqualTo(Evidence.AIDER_COMMIT);
        assertThat(hits.get(0).memory().provenance().source()).isEqualTo(first.file());
        assertThat(hits.get(0).commitTitle()).isNotBlank();
        assertThat(hits).noneMatch(WhyHit::stale);
    }

    @Test
    void linksOfEveryExplicitKindAreFoundInTheFixtures() {
        Map<String, Long> total = report.linksTotal();
        assertThat(report.repositories()).isEmpty();
        assertThat(total.get("aider-commit")).isPositive();
        assertThat(total.get("commit-output")).isPositive(); // Claude Code Bash results
        assertThat(total.get("session-head")).isPositive();  // Codex session_meta, Cline environment
        // Codex's session_meta names the commit the session started from.
        List<WhyHit> head = Why.over(store).why(WhyRequest.of("86b4a8d"));
        assertThat(head).isNotEmpty();
        assertThat(head.get(0).evidence()).isEqualTo(Evidence.SESSION_HEAD);
        assertThat(head.get(0).memory().agent()).isEqualTo("codex");
        // git commit output in the Claude Code fixtures: "[main 76000c9] Add MODEL_NAME ..."
        List<WhyHit> hits = Why.over(store).why(WhyRequest.of("76000c9"));
        assertThat(hits).isNotEmpty();
        assertThat(hits.get(0).evidence()).isEqualTo(Evidence.COMMIT_OUTPUT);
        assertThat(hits.get(0).memory().agent()).isEqualTo("claude-code");
        assertThat(hits.get(0).commitTitle()).startsWith("Add MODEL_NAME");
    }
}
