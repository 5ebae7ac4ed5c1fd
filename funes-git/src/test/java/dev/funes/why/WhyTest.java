package dev.funes.why;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

import static dev.funes.why.GitWork.ClaudeLog.input;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole "why" path on real parts: a real git repository with real commits (JGit), agent logs
 * that made those commits (a Claude Code session whose Bash result shows {@code git commit}
 * output, an Aider history with {@code > Commit} lines, both with the real shas), indexed by the
 * real Indexer into a real store with the bundled ONNX model, then linked and asked.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WhyTest {

    static final Instant T0 = Instant.parse("2026-03-02T10:00:00Z");
    static final String SESSION = "7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f";
    static final String REQUEST = "Parse ledgers in two passes so forward account references work";

    @TempDir
    static Path tmp;
    static Embedder embedder;
    static MemoryStore store;
    static Why why;
    static Path repo;
    static Git git;
    static RevCommit parserAdded;
    static RevCommit twoPass;
    static RevCommit cacheAdded;
    static Memory claudeExchange;
    static Memory aiderExchange;
    static Memory twoPassDecision;
    static Memory cacheDecision;
    static LinkReport firstLink;
    static Path claudeLog;
    static Path aiderLog;

    @BeforeAll
    static void setUp() throws Exception {
        repo = Files.createDirectories(tmp.resolve("ledger")).toRealPath();
        git = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call();
        parserAdded = GitWork.commit(git, T0, "Add the ledger parser",
                "src/Parser.java", GitWork.lines(30, "one"), "README.md", "# Ledger\n");

        // The Claude Code session edits the parser and commits; the commit is made while it runs.
        Instant s = T0.plusSeconds(30 * 60);
        GitWork.commit(git, s.plusSeconds(100), "Parse ledgers in two passes",
                "src/Parser.java", GitWork.lines(25, "one") + GitWork.lines(5, "pass"));
        twoPass = git.log().setMaxCount(1).call().iterator().next();
        claudeLog = new GitWork.ClaudeLog(SESSION, repo.toString())
                .user(s, REQUEST)
                .text(s.plusSeconds(10), "The parser resolves accounts as it reads them; I'll collect them first.")
                .tool(s.plusSeconds(20), "toolu_01Edit", "Edit",
                        input("file_path", repo.resolve("src/Parser.java").toString(), "old_string", "a", "new_string", "b"),
                        "The file has been updated.")
                .tool(s.plusSeconds(90), "toolu_01Bash", "Bash",
                        input("command", "git commit -am 'Parse ledgers in two passes'"),
                        "[main " + twoPass.name().substring(0, 7) + "] Parse ledgers in two passes\n"
                                + " 1 file changed, 5 insertions(+), 5 deletions(-)")
                .text(s.plusSeconds(120), "Committed: the parser now reads the ledger twice.")
                .write(tmp.resolve("logs/claude/-ledger/" + SESSION + ".jsonl"));

        // Aider adds a cache and commits it itself; its history lives in the repository.
        Instant a = T0.plusSeconds(60 * 60);
        cacheAdded = GitWork.commit(git, a.plusSeconds(180), "feat: cache parsed accounts",
                "src/Cache.java", GitWork.lines(12, "cache"));
        String started = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").format(a.atZone(ZoneId.systemDefault()));
        aiderLog = repo.resolve(".aider.chat.history.md");
        Files.writeString(aiderLog, String.join("\n",
                "", "# aider chat started at " + started, "",
                "> Aider v0.84.0  ",
                "> Main model: anthropic/claude-sonnet-4 with whole edit format  ",
                "> Git working dir: " + repo + "  ", "",
                "#### Cache parsed accounts so a second pass does not parse them again.  ", "",
                "I'll add a small cache keyed by account name.", "",
                "src/Cache.java", "```", GitWork.lines(12, "cache").strip(), "```", "",
                "> Tokens: 1.1k sent, 200 received.  ",
                "> Applied edit to src/Cache.java  ",
                "> Commit " + cacheAdded.name().substring(0, 7) + " feat: cache parsed accounts  ", ""),
                StandardCharsets.UTF_8);

        embedder = Embedders.bundled(BundledModel.DEFAULT);
        store = FunesStore.open(tmp.resolve("store"), embedder);
        IndexReport report = Indexer.builder(store).build().index(List.of(tmp.resolve("logs"), aiderLog));
        assertThat(report.problems()).isEmpty();
        why = Why.over(store);
        firstLink = why.link();

        claudeExchange = exchangeContaining("claude-code", REQUEST);
        aiderExchange = exchangeContaining("aider", "Cache parsed accounts");
        // What the classifier derives from an exchange: same provenance, derivedFrom, files.
        twoPassDecision = store.get(add(Memory.builder(MemoryKind.DECISION, "claude-code",
                        "Decision: parse ledgers in two passes (collect accounts, then resolve) because forward"
                                + " references to accounts failed in one pass.")
                .time(claudeExchange.startedAt(), claudeExchange.endedAt()).project(claudeExchange.project())
                .session(claudeExchange.session()).provenance(claudeExchange.provenance())
                .metadata("derivedFrom", claudeExchange.id()).metadata("files", "[\"src/Parser.java\"]").build())).orElseThrow();
        cacheDecision = store.get(add(Memory.builder(MemoryKind.DECISION, "aider",
                        "Decision: cache parsed accounts by name instead of re-parsing them in the second pass.")
                .time(aiderExchange.startedAt(), aiderExchange.endedAt()).project(aiderExchange.project())
                .session(aiderExchange.session()).provenance(aiderExchange.provenance())
                .metadata("derivedFrom", aiderExchange.id()).metadata("files", "[\"src/Cache.java\"]").build())).orElseThrow();
    }

    private static String add(Memory m) {
        store.add(m);
        return m.id();
    }

    private static Memory exchangeContaining(String agent, String text) {
        return store.search(dev.funes.SearchRequest.builder(text).agent(agent).kinds(MemoryKind.EXCHANGE).limit(20).build())
                .stream().map(h -> h.memory()).filter(m -> m.text().contains(text)).findFirst()
                .orElseThrow(() -> new AssertionError("no " + agent + " exchange with '" + text + "'"));
    }

    @AfterAll
    static void tearDown() {
        if (store != null) {
            store.close();
        }
        if (embedder != null) {
            embedder.close();
        }
        if (git != null) {
            git.close();
        }
    }

    @Test
    void linkingReadsTheRepositoryOfTheSessionsAndFindsEachKindOfEvidence() {
        assertThat(firstLink.repositories()).containsExactly(repo.toString());
        assertThat(firstLink.commitsAdded()).isEqualTo(3);
        assertThat(firstLink.problems()).isEmpty();
        assertThat(firstLink.linksTotal()).containsKeys("commit-output", "aider-commit", "file-time");
        assertThat(claudeExchange.provenance().source()).isEqualTo(claudeLog.toAbsolutePath().normalize());
    }

    @Test
    void whyOfACommitReturnsTheExchangeThatMadeItFirstThenItsDecision() {
        for (String target : List.of(twoPass.name(), twoPass.name().substring(0, 7), twoPass.name().substring(0, 10))) {
            List<WhyHit> hits = why.why(WhyRequest.of(target));
            assertThat(hits).as(target).isNotEmpty();
            WhyHit first = hits.get(0);
            assertThat(first.memory().id()).as(target).isEqualTo(claudeExchange.id());
            assertThat(first.evidence()).isEqualTo(Evidence.COMMIT_OUTPUT);
            assertThat(first.confidence()).isGreaterThanOrEqualTo(0.9);
            assertThat(first.commit()).isEqualTo(twoPass.name());
            assertThat(first.commitTitle()).isEqualTo("Parse ledgers in two passes");
            assertThat(hits).extracting(h -> h.memory().id()).contains(twoPassDecision.id())
                    .doesNotContain(cacheDecision.id(), aiderExchange.id());
            assertThat(hits.stream().filter(h -> h.memory().id().equals(twoPassDecision.id())).findFirst().orElseThrow()
                    .evidence()).isEqualTo(Evidence.DERIVED);
        }
        List<WhyHit> aider = why.why(WhyRequest.of(cacheAdded.name()));
        assertThat(aider.get(0).memory().id()).isEqualTo(aiderExchange.id());
        assertThat(aider.get(0).evidence()).isEqualTo(Evidence.AIDER_COMMIT);
        assertThat(aider).extracting(h -> h.memory().id()).contains(cacheDecision.id())
                .doesNotContain(claudeExchange.id());
    }

    @Test
    void whyOfAFileReturnsTheDecisionsAboutItFirst() {
        List<WhyHit> hits = why.why(WhyRequest.of("src/Parser.java").withBase(repo));
        assertThat(hits).isNotEmpty();
        assertThat(hits.get(0).memory().id()).isEqualTo(twoPassDecision.id());
        assertThat(hits).extracting(h -> h.memory().id()).contains(claudeExchange.id())
                .doesNotContain(cacheDecision.id(), aiderExchange.id());
        // Absolute paths, and paths relative to some other directory, name the same file.
        assertThat(why.why(WhyRequest.of(repo.resolve("src/Parser.java").toString()).withBase(tmp)).get(0).memory().id())
                .isEqualTo(twoPassDecision.id());
        assertThat(why.why(WhyRequest.of("src/Cache.java").withBase(tmp)).get(0).memory().id())
                .isEqualTo(cacheDecision.id());
    }

    @Test
    void whyOfALineFollowsBlameToTheCommitThatWroteIt() {
        // Lines 26-30 were written by the two-pass commit, lines 1-25 by the first one (no session).
        List<WhyHit> hits = why.why(WhyRequest.of("src/Parser.java:28").withBase(repo));
        WhyHit exchange = hits.stream().filter(h -> h.memory().id().equals(claudeExchange.id())).findFirst().orElseThrow();
        assertThat(exchange.evidence()).isEqualTo(Evidence.COMMIT_OUTPUT);
        assertThat(exchange.commit()).isEqualTo(twoPass.name());
    }

    @Test
    void freeTextFallsBackToSearchWithDecisionsFirst() {
        List<WhyHit> hits = why.why(WhyRequest.of("why do we parse the ledger twice"));
        assertThat(hits).isNotEmpty();
        assertThat(hits.get(0).memory().kind()).isEqualTo(MemoryKind.DECISION);
        assertThat(hits).allMatch(h -> h.evidence() == Evidence.SEARCH);
        assertThat(hits).extracting(h -> h.memory().id()).contains(twoPassDecision.id());
    }

    @Test
    @Order(Integer.MAX_VALUE) // it adds a commit; the tests before it see the history without it
    void aFileRewrittenLaterMakesWhatCitesItStaleAndLinkingIsIncremental() throws Exception {
        // Staleness is judged at query time against the work tree: before and after the rewrite.
        List<WhyHit> before = why.why(WhyRequest.of(twoPass.name()));
        assertThat(before).noneMatch(WhyHit::stale);
        {
            GitWork.commit(git, T0.plusSeconds(3 * 3600), "Rewrite the parser as a state machine",
                    "src/Parser.java", GitWork.lines(9, "one") + GitWork.lines(16, "state") + GitWork.lines(5, "pass"));
            LinkReport again = why.link();
            assertThat(again.commitsAdded()).isEqualTo(1);
            assertThat(again.memoriesScanned()).isEqualTo(2); // the two decisions added after the first pass
            // What a pass added is what its totals gained; a pass that links nothing adds nothing.
            java.util.Map<String, Long> gained = new java.util.TreeMap<>();
            again.linksTotal().forEach((evidence, n) -> {
                long d = n - firstLink.linksTotal().getOrDefault(evidence, 0L);
                if (d > 0) {
                    gained.put(evidence, d);
                }
            });
            assertThat(again.linksAdded()).isEqualTo(gained);
            assertThat(firstLink.linksAdded()).isEqualTo(firstLink.linksTotal()).isNotEmpty();
            LinkReport idle = why.link();
            assertThat(idle.commitsAdded()).isZero();
            assertThat(idle.memoriesScanned()).isZero();
            assertThat(idle.linksAdded()).isEmpty();
            assertThat(idle.linksTotal()).isEqualTo(again.linksTotal());

            List<WhyHit> after = why.why(WhyRequest.of(twoPass.name()));
            WhyHit exchange = after.get(0);
            assertThat(exchange.memory().id()).isEqualTo(claudeExchange.id());
            assertThat(exchange.stale()).isTrue();
            // 16 of its 30 lines were replaced: 53% > 50%.
            assertThat(exchange.staleReason()).isEqualTo("src/Parser.java: 53% of lines changed since "
                    + twoPass.name().substring(0, 7));
            assertThat(why.why(WhyRequest.of("src/Parser.java").withBase(repo)))
                    .filteredOn(h -> h.memory().id().equals(twoPassDecision.id())).allMatch(WhyHit::stale).hasSize(1);
            // The cache file did not change: what cites it is not stale.
            assertThat(why.why(WhyRequest.of(cacheAdded.name()))).noneMatch(WhyHit::stale);
            // A threshold above the change flags nothing.
            assertThat(why.why(new WhyRequest(twoPass.name(), 10, repo, 0.99))).noneMatch(WhyHit::stale);
        }
    }

    @Test
    void linkCountsAreByEvidence() {
        Map<String, Long> counts = why.linkCounts();
        assertThat(counts.get("commit-output")).isGreaterThanOrEqualTo(1);
        assertThat(counts.get("aider-commit")).isGreaterThanOrEqualTo(1);
    }
}
