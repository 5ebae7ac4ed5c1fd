package dev.funes.solr;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.redact.Redactor;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Publishing local stores to one team collection and searching both at once, on the test
 * SolrCloud: three machines (three local stores) publish; each finds the others' memories
 * through a federated search; a local deletion reaches the team on the next publish; a publish
 * run again sends nothing new; what is published is redacted again on the way out; the team
 * failing leaves a local search answering.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TeamTest {

    private static final String COLLECTION = "team";

    private Embedder embedder;
    private TeamCluster cluster;

    @BeforeAll
    void start() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        cluster = TeamCluster.withCollection(COLLECTION, embedder.modelId(), embedder.dimension());
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    @BeforeEach
    void emptyCollection() {
        cluster.clear(COLLECTION);
    }

    private SolrMemoryStore team(String origin, TeamCredentials who, Redactor redactor) {
        return SolrMemoryStore.open(cluster.connect(COLLECTION, who), embedder,
                new TeamOptions(StoreOptions.builder().redactor(redactor).build(), origin, "tester"));
    }

    private SolrMemoryStore team(String origin) {
        return team(origin, TeamCluster.PUBLISHER, Redactor.standard());
    }

    private static Memory memory(String session, String text) {
        return Memory.builder(MemoryKind.NOTE, "claude-code", text).project("/work/app").session(session).build();
    }

    /** A local store of one machine and how far it was published. */
    private final class Machine implements AutoCloseable {
        final String name;
        final MemoryStore local;
        TeamPublish.Cursor cursor = TeamPublish.Cursor.START;

        Machine(String name, Path dir, List<Memory> memories) {
            this.name = name;
            this.local = FunesStore.open(dir, embedder);
            local.addAll(memories);
        }

        TeamPublish.Report publish() {
            return publish(TeamPublish.PAGE);
        }

        TeamPublish.Report publish(int page) {
            try (SolrMemoryStore t = team(name)) {
                TeamPublish.Report r = TeamPublish.publish(local, t, Set.of(), cursor, name, c -> cursor = c, page);
                assertThat(r.cursor()).isEqualTo(cursor);
                return r;
            }
        }

        FederatedSearch.Result search(String query) {
            return FederatedSearch.search(local, () -> team(null, TeamCluster.READER, Redactor.standard()),
                    SearchRequest.of(query), 60_000);
        }

        @Override
        public void close() {
            local.close();
        }
    }

    private static Optional<FederatedSearch.Hit> hitOf(FederatedSearch.Result r, Memory m) {
        return r.hits().stream().filter(h -> h.hit().memory().id().equals(m.id())).findFirst();
    }

    @Test
    void threeMachinesPublishToOneCollectionAndFindEachOthersMemories(@TempDir Path dir) {
        Memory ci = memory("a1", "The CI pipeline checked out the default branch instead of the pull request branch,"
                + " so the tests ran against the wrong code.");
        Memory oom = memory("b1", "The container was OOM killed: raised the JVM MaxRAMPercentage to 75 and the pod"
                + " memory limit to 2 GiB.");
        Memory tls = memory("c1", "Nginx served TLS on port 8443 while the load balancer expected 443, which gave"
                + " ERR_SSL_PROTOCOL_ERROR in the browser.");
        Memory fillerA = memory("a2", "Renamed the settings page component and updated its snapshot tests.");
        Memory fillerB = memory("b2", "Bumped the logging library and silenced a deprecation warning.");
        Memory fillerC = memory("c2", "Documented how to run the database migrations locally.");
        try (Machine a = new Machine("machine-a", dir.resolve("a"), List.of(ci, fillerA));
             Machine b = new Machine("machine-b", dir.resolve("b"), List.of(oom, fillerB));
             Machine c = new Machine("machine-c", dir.resolve("c"), List.of(tls, fillerC))) {
            for (Machine m : List.of(a, b, c)) {
                TeamPublish.Report r = m.publish();
                assertThat(r.read()).isEqualTo(2);
                assertThat(r.stored().added()).isEqualTo(2);
                assertThat(r.stored().embedded()).as("the local vectors travel with the memories").isZero();
            }
            try (SolrMemoryStore t = team("reader-view")) {
                assertThat(t.stats().memories()).isEqualTo(6);
                assertThat(t.get(oom.id())).contains(oom);
            }

            FederatedSearch.Result fromA = a.search("why was the container killed for using too much memory");
            assertThat(fromA.warning()).isEmpty();
            FederatedSearch.Hit found = fromA.hits().get(0);
            assertThat(found.hit().memory().id()).isEqualTo(oom.id());
            assertThat(found.source()).isEqualTo(FederatedSearch.Source.TEAM);
            assertThat(found.origin()).isEqualTo("machine-b");
            assertThat(found.owner()).isEqualTo("tester");

            FederatedSearch.Result fromB = b.search("ERR_SSL_PROTOCOL_ERROR nginx port");
            assertThat(fromB.hits().get(0).hit().memory().id()).isEqualTo(tls.id());
            assertThat(fromB.hits().get(0).origin()).isEqualTo("machine-c");

            FederatedSearch.Result fromC = c.search("CI tested the wrong branch");
            assertThat(fromC.hits().get(0).hit().memory().id()).isEqualTo(ci.id());
            assertThat(fromC.hits().get(0).source()).isEqualTo(FederatedSearch.Source.TEAM);
            // One's own published memory is one hit, found in both.
            FederatedSearch.Result own = a.search("CI tested the wrong branch");
            assertThat(own.hits().get(0).hit().memory().id()).isEqualTo(ci.id());
            assertThat(own.hits().get(0).source()).isEqualTo(FederatedSearch.Source.BOTH);
            assertThat(own.hits().stream().filter(h -> h.hit().memory().id().equals(ci.id()))).hasSize(1);

            // A forget on b reaches the team with b's next publish, and only b's copy goes.
            FunesStore.forget(b.local, List.of(oom.id()));
            TeamPublish.Report again = b.publish();
            assertThat(again.deleted()).isEqualTo(1);
            assertThat(again.stored().added()).isZero();
            assertThat(hitOf(a.search("why was the container killed for using too much memory"), oom)).isEmpty();
            try (SolrMemoryStore t = team("reader-view")) {
                assertThat(t.get(oom.id())).isEmpty();
                assertThat(t.stats().memories()).isEqualTo(5);
            }

            // Run again: nothing new is sent or deleted.
            TeamPublish.Report rerun = a.publish();
            assertThat(rerun.stored().added()).isZero();
            assertThat(rerun.deleted()).isZero();
            // From the start again (a lost cursor): everything is there already, nothing doubles.
            a.cursor = TeamPublish.Cursor.START;
            TeamPublish.Report fromStart = a.publish();
            assertThat(fromStart.stored().added()).isZero();
            assertThat(fromStart.stored().unchanged()).isEqualTo(2);
            try (SolrMemoryStore t = team("reader-view")) {
                assertThat(t.stats().memories()).isEqualTo(5);
            }
        }
    }

    @Test
    void threeMachinesPublishingAtOnceLeaveExactlyTheUnionOfTheirMemories(@TempDir Path dir) throws Exception {
        // Each machine has memories of its own and a few it shares with the others (the same
        // memories, so the same ids: one shared log indexed on every machine). Small pages, so
        // that the three publishes interleave their lookups, uploads and commits.
        List<Memory> shared = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            shared.add(memory("shared-" + (i % 4), "Shared runbook step " + i + ": restart the " + SERVICES[i % SERVICES.length]
                    + " service after rotating its certificate, then check the health endpoint."));
        }
        Map<String, Memory> union = new LinkedHashMap<>();
        shared.forEach(m -> union.put(m.id(), m));
        List<Machine> machines = new ArrayList<>();
        try {
            for (String name : List.of("machine-a", "machine-b", "machine-c")) {
                List<Memory> memories = new ArrayList<>(shared);
                for (int i = 0; i < 160; i++) {
                    memories.add(memory(name + "-" + (i % 8), "On " + name + ", change " + i + " to the "
                            + SERVICES[i % SERVICES.length] + " service: " + CHANGES[i % CHANGES.length] + "."));
                }
                memories.forEach(m -> union.put(m.id(), m));
                machines.add(new Machine(name, dir.resolve(name), memories));
            }
            assertThat(union).hasSize(20 + 3 * 160);

            List<TeamPublish.Report> first = publishAtOnce(machines, 25);
            for (TeamPublish.Report r : first) {
                assertThat(r.read()).isEqualTo(180);
                assertThat(r.stored().added() + r.stored().unchanged()).isEqualTo(180);
                assertThat(r.stored().embedded()).isZero();
            }
            assertCollectionHolds(union);

            // Run again, at once, from the cursors: nothing is sent; from the start: all there already.
            for (TeamPublish.Report r : publishAtOnce(machines, 25)) {
                assertThat(r.stored().added()).isZero();
                assertThat(r.deleted()).isZero();
            }
            machines.forEach(m -> m.cursor = TeamPublish.Cursor.START);
            for (TeamPublish.Report r : publishAtOnce(machines, 25)) {
                assertThat(r.stored().added()).isZero();
                assertThat(r.stored().unchanged()).isEqualTo(180);
            }
            assertCollectionHolds(union);
        } finally {
            machines.forEach(Machine::close);
        }
    }

    private static final String[] SERVICES = {"billing", "search", "gateway", "auth", "scheduler", "ledger", "mailer"};
    private static final String[] CHANGES = {
        "raised the connection pool from 20 to 50 after timeouts under load",
        "pinned the JDK to 17.0.11 because 17.0.12 changed the TLS defaults",
        "moved the cron job to 02:30 UTC so it stops overlapping the backup",
        "replaced the hand-written retry loop with exponential backoff and jitter",
        "added an index on orders(customer_id, created_at) for the slow report query",
        "split the integration tests into their own Gradle source set",
        "turned off HTTP/2 on the internal load balancer, which reset long uploads",
        "documented the rollback command in the runbook"};

    /** Publishes every machine on a thread of its own, all started together; their reports in order. */
    private static List<TeamPublish.Report> publishAtOnce(List<Machine> machines, int page) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(machines.size());
        try {
            CyclicBarrier start = new CyclicBarrier(machines.size());
            List<Future<TeamPublish.Report>> running = new ArrayList<>();
            for (Machine m : machines) {
                running.add(threads.submit(() -> {
                    start.await(1, TimeUnit.MINUTES);
                    return m.publish(page);
                }));
            }
            List<TeamPublish.Report> reports = new ArrayList<>();
            for (Future<TeamPublish.Report> f : running) {
                reports.add(f.get(5, TimeUnit.MINUTES)); // a guard against a hang, not a timing assertion
            }
            return reports;
        } finally {
            threads.shutdownNow();
        }
    }

    /** The collection holds these memories, each once and as stored locally, and no other. */
    private void assertCollectionHolds(Map<String, Memory> memories) {
        try (SolrMemoryStore t = team("reader-view")) {
            assertThat(t.stats().memories()).isEqualTo(memories.size());
            Map<String, Memory> stored = t.getAll(memories.keySet());
            assertThat(stored).hasSize(memories.size());
            for (Memory m : memories.values()) {
                assertThat(stored.get(m.id())).as(m.id()).isEqualTo(m);
            }
            // Every memory has its own vector: the nearest to a text's is its own memory.
            Memory probe = memories.values().iterator().next();
            assertThat(t.search(SearchRequest.of(probe.text())).get(0).memory().id()).isEqualTo(probe.id());
        }
    }

    @Test
    void aMemoryMarkedChangedAfterItWasPublishedIsSentAgainWithItsMark(@TempDir Path dir) {
        Path log = dir.resolve("logs/session.jsonl");
        Memory cited = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "Pinned the Gradle wrapper to 8.7 because"
                        + " 8.8 broke the Kotlin DSL plugin resolution.").project("/work/app").session("m1")
                .provenance(new dev.funes.Provenance(log, 1, 4, 0, 400, List.of("u1"))).build();
        Memory other = memory("m2", "Moved the integration tests to their own source set.");
        try (Machine m = new Machine("machine-m", dir.resolve("m"), List.of(other))) {
            dev.funes.SourceCheckpoints local = m.local.checkpoints().orElseThrow();
            local.addAll(List.of(cited), checkpoint(log, 400, "2025-06-02T00:00:00Z"));
            assertThat(m.publish().stored().added()).isEqualTo(2);

            // The log was rewritten: the memory stays, marked in place (same id, same position).
            local.updateSource(List.of(), checkpoint(log, 300, "2025-06-03T00:00:00Z"), Set.of(), Set.of());
            Memory marked = m.local.get(cited.id()).orElseThrow();
            assertThat(marked.metadata()).containsEntry(dev.funes.SourceState.CHANGED_KEY, "2025-06-03T00:00:00Z");

            TeamPublish.Report r = m.publish();
            assertThat(r.changed()).isEqualTo(1);
            assertThat(r.stored().added()).isZero();
            try (SolrMemoryStore t = team("reader-view")) {
                assertThat(t.get(cited.id())).contains(marked);
                assertThat(t.get(other.id())).contains(other);
                assertThat(t.stats().memories()).isEqualTo(2);
            }
            assertThat(m.publish().changed()).as("sent once: the team's copy has the mark now").isZero();

            // Another machine's copy of the same memory is not this origin's to change.
            try (Machine n = new Machine("machine-n", dir.resolve("n"), List.of())) {
                n.local.checkpoints().orElseThrow().addAll(List.of(cited), checkpoint(log, 400, "2025-06-02T00:00:00Z"));
                n.local.checkpoints().orElseThrow().updateSource(List.of(), checkpoint(log, 200, "2025-06-04T00:00:00Z"),
                        Set.of(), Set.of());
                TeamPublish.Report theirs = n.publish();
                assertThat(theirs.changed()).isZero();
                assertThat(theirs.stored().unchanged()).isEqualTo(1);
                try (SolrMemoryStore t = team("reader-view")) {
                    assertThat(t.get(cited.id())).contains(marked);
                }
            }
        }
    }

    private static dev.funes.SourceState checkpoint(Path file, long bytes, String indexedAt) {
        return new dev.funes.SourceState(file, bytes, java.time.Instant.parse("2025-06-01T00:00:00Z"), bytes, bytes / 100,
                "abc123", "claude-code", java.time.Instant.parse(indexedAt));
    }

    @Test
    void theDenseCandidatesAreTheNearestTextsAsInTheLocalStoreNotTheNearestCopies(@TempDir Path dir) {
        // More copies of one text than a search takes candidates: the local store holds its vector
        // once, the collection once per memory. The file filter applies to the candidates, so the
        // one memory naming the file is found only if the next text is among them.
        String copied = "The nightly build publishes the Docker image to the registry after the smoke tests pass.";
        int copies = StoreOptions.defaults().candidates() + 20;
        List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < copies; i++) {
            memories.add(memory("copy-" + i, copied));
        }
        Memory other = memory("other", "src/ci/NightlyBuild.java pushes the container image once the smoke tests"
                + " are green.");
        memories.add(other);
        SearchRequest request = SearchRequest.builder(copied).file("NightlyBuild.java")
                .retrieval(dev.funes.Retrieval.DENSE).limit(10).build();
        try (MemoryStore local = FunesStore.open(dir, embedder); SolrMemoryStore t = team("machine-d")) {
            local.addAll(memories);
            TeamPublish.publish(local, t, Set.of(), TeamPublish.Cursor.START, "machine-d", c -> { });
            List<SearchHit> mine = local.search(request);
            List<SearchHit> theirs = t.search(request);
            assertThat(mine).as("the local store's answer").extracting(h -> h.memory().id()).containsExactly(other.id());
            assertThat(theirs).extracting(h -> h.memory().id()).containsExactly(other.id());
            assertThat(theirs.get(0).parts().denseRank()).isEqualTo(mine.get(0).parts().denseRank());
            assertThat(theirs.get(0).parts().denseSimilarity()).isCloseTo(mine.get(0).parts().denseSimilarity(),
                    org.assertj.core.data.Offset.offset(1e-3));
        }
    }

    @Test
    void whatIsPublishedIsRedactedAgainOnTheWayOut(@TempDir Path dir) {
        Memory ticket = memory("r1", "Support ticket ACME-4821 traced the outage to the expired certificate.");
        Redactor teamRules = Redactor.builder().addRule("acme-ticket", Pattern.compile("ACME-\\d{4}")).build();
        try (MemoryStore local = FunesStore.open(dir, embedder);
             SolrMemoryStore t = team("machine-r", TeamCluster.PUBLISHER, teamRules)) {
            local.add(ticket);
            TeamPublish.Report r = TeamPublish.publish(local, t, Set.of(), TeamPublish.Cursor.START, "machine-r", c -> { });
            assertThat(r.stored().added()).isEqualTo(1);
            assertThat(r.stored().embedded()).as("the redacted text is a new text").isEqualTo(1);
            assertThat(local.get(ticket.id())).contains(ticket);
            assertThat(t.get(ticket.id())).isEmpty();
            List<SearchHit> hits = t.search(SearchRequest.of("expired certificate outage"));
            assertThat(hits).hasSize(1);
            assertThat(hits.get(0).memory().text()).contains("[REDACTED:acme-ticket]").doesNotContain("4821");
        }
    }

    @Test
    void aPassageHitRollsUpToItsExchangeWithThePassage() {
        Memory exchange = Memory.builder(MemoryKind.EXCHANGE, "claude-code",
                "User: our builds take ages, any idea?\nAssistant: a few options are below.").session("p1").build();
        Memory passage = Memory.builder(MemoryKind.PASSAGE, "claude-code",
                "Builds take ages\nEnable the Gradle configuration cache to cut a minute off every build.")
                .session("p1").metadata(Memory.PASSAGE_OF, exchange.id()).build();
        try (SolrMemoryStore t = team("machine-x")) {
            t.addAll(List.of(exchange, passage));
            List<SearchHit> hits = t.search(SearchRequest.of("gradle configuration cache"));
            assertThat(hits).hasSize(1);
            assertThat(hits.get(0).memory()).isEqualTo(exchange);
            assertThat(hits.get(0).passage()).isEqualTo(passage);
        }
    }

    @Test
    void aTeamHitReturnsTheFurtherPassagesThatMatchedNearlyAsWell() {
        Memory exchange = Memory.builder(MemoryKind.EXCHANGE, "claude-code",
                "User: our builds take ages, any idea?\nAssistant: two settings below.").session("p2").build();
        Memory ci = Memory.builder(MemoryKind.PASSAGE, "claude-code", "Settings\nzephyr quokka cache enabled in CI")
                .session("p2").metadata(Memory.PASSAGE_OF, exchange.id()).build();
        Memory local = Memory.builder(MemoryKind.PASSAGE, "claude-code", "Settings\nzephyr quokka cache enabled locally")
                .session("p2").metadata(Memory.PASSAGE_OF, exchange.id()).build();
        Memory unrelated = Memory.builder(MemoryKind.PASSAGE, "claude-code", "Settings\nthe disk was cleaned up")
                .session("p2").metadata(Memory.PASSAGE_OF, exchange.id()).build();
        // Another memory matching one query word: the low end of the lexical scores.
        Memory other = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "User: a zephyr release note").session("p3")
                .build();
        try (SolrMemoryStore t = team("machine-x")) {
            t.addAll(List.of(exchange, ci, local, unrelated, other));
            List<SearchHit> hits = t.search(SearchRequest.builder("zephyr quokka")
                    .retrieval(dev.funes.Retrieval.LEXICAL).build());
            assertThat(hits).extracting(h -> h.memory().id()).containsExactly(exchange.id(), other.id());
            assertThat(hits.get(0).passages()).extracting(Memory::id).containsExactlyInAnyOrder(ci.id(), local.id());
        }
    }

    @Test
    void aTeamPassageIsFoundByItsOwnWordsNotByTheRequestItsHeaderQuotes() {
        String request = "wire the zanzibar flux helper into the build";
        Memory exchange = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "User: " + request).session("p5").build();
        Memory passage = Memory.builder(MemoryKind.PASSAGE, "claude-code",
                        "Assistant \u00b7 2025-10-14 \u00b7 on: " + request + "\nthe wombat capacitor was replaced")
                .session("p5").metadata(Memory.PASSAGE_OF, exchange.id()).build();
        try (SolrMemoryStore t = team("machine-l")) {
            t.addAll(List.of(exchange, passage));
            List<SearchHit> byRequest = t.search(SearchRequest.builder("zanzibar flux")
                    .retrieval(dev.funes.Retrieval.LEXICAL).build());
            assertThat(byRequest).singleElement().satisfies(hit -> {
                assertThat(hit.memory().id()).isEqualTo(exchange.id());
                assertThat(hit.passages()).extracting(Memory::id).doesNotContain(passage.id());
            });
            SearchHit byBody = t.search(SearchRequest.builder("wombat capacitor")
                    .retrieval(dev.funes.Retrieval.LEXICAL).build()).get(0);
            assertThat(byBody.memory().id()).isEqualTo(exchange.id());
            assertThat(byBody.passage().id()).isEqualTo(passage.id());
        }
    }

    @Test
    void recentSessionsAreLatestFirstWithTheirCountsAndTimes() {
        java.time.Instant t = java.time.Instant.parse("2025-05-01T10:00:00Z");
        Memory early = Memory.builder(MemoryKind.NOTE, "codex", "Early session, first note.").session("early")
                .project("/p/one").time(t, t.plusSeconds(60)).build();
        Memory early2 = Memory.builder(MemoryKind.NOTE, "codex", "Early session, second note.").session("early")
                .project("/p/one").time(t.plusSeconds(120), t.plusSeconds(180)).build();
        Memory late = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "Late session exchange.").session("late")
                .project("/p/two").time(t.plusSeconds(3600), t.plusSeconds(3700)).build();
        Memory latePassage = Memory.builder(MemoryKind.PASSAGE, "claude-code", "Late\nsession passage.")
                .session("late").project("/p/two").time(t.plusSeconds(3600), t.plusSeconds(3700))
                .metadata(Memory.PASSAGE_OF, late.id()).build();
        Memory undated = Memory.builder(MemoryKind.NOTE, "codex", "A session without times.").session("undated").build();
        try (SolrMemoryStore team = team("machine-s")) {
            team.addAll(List.of(early, early2, late, latePassage, undated));
            List<dev.funes.SessionInfo> sessions = team.recentSessions(10);
            assertThat(sessions).extracting(dev.funes.SessionInfo::session).containsExactly("late", "early", "undated");
            dev.funes.SessionInfo lateInfo = sessions.get(0);
            assertThat(lateInfo.agent()).isEqualTo("claude-code");
            assertThat(lateInfo.project()).isEqualTo("/p/two");
            assertThat(lateInfo.memories()).as("passages do not count").isEqualTo(1);
            assertThat(lateInfo.lastAt()).isEqualTo(t.plusSeconds(3700));
            dev.funes.SessionInfo earlyInfo = sessions.get(1);
            assertThat(earlyInfo.memories()).isEqualTo(2);
            assertThat(earlyInfo.firstAt()).isEqualTo(t);
            assertThat(earlyInfo.lastAt()).isEqualTo(t.plusSeconds(180));
            assertThat(sessions.get(2).lastAt()).isNull();
            assertThat(team.recentSessions(1)).extracting(dev.funes.SessionInfo::session).containsExactly("late");
        }
    }

    @Test
    void initIsSafeToRunAgainAndAnotherModelIsRefused() {
        try (TeamConnection conn = cluster.connect(COLLECTION)) {
            TeamSetup.Outcome again = TeamSetup.init(conn, embedder.modelId(), embedder.dimension(), 2, 2);
            assertThat(again.created()).isFalse();
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() ->
                    TeamSetup.init(conn, "bge-small-en-v15-q", 384, 2, 2)))
                    .hasMessageContaining("exists with model " + embedder.modelId());
        }
        // The same vectors under another model's name: what a store of another model looks like.
        Embedder other = new dev.funes.ForwardingEmbedder(embedder, false) {
            @Override
            public String modelId() {
                return "another-model";
            }
        };
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> SolrMemoryStore.open(
                cluster.connect(COLLECTION, TeamCluster.READER), other, TeamOptions.defaults())))
                .hasMessageContaining("holds vectors of model " + embedder.modelId())
                .hasMessageContaining("another-model");
    }

    @Test
    void onlyTheNamedProjectsArePublished(@TempDir Path dir) {
        Memory mine = Memory.builder(MemoryKind.NOTE, "codex", "Shared knowledge about the billing service.")
                .project("/work/billing").build();
        Memory privateOne = Memory.builder(MemoryKind.NOTE, "codex", "Notes about my side project.")
                .project("/home/me/side").build();
        try (MemoryStore local = FunesStore.open(dir, embedder); SolrMemoryStore t = team("machine-p")) {
            local.addAll(List.of(mine, privateOne));
            TeamPublish.publish(local, t, Set.of("/work/billing"), TeamPublish.Cursor.START, "machine-p", c -> { });
            assertThat(t.get(mine.id())).isPresent();
            assertThat(t.get(privateOne.id())).isEmpty();
            assertThat(t.stats().memories()).isEqualTo(1);
        }
    }

    @Test
    void aFailingTeamLeavesTheLocalSearchAnsweringWithAWarning(@TempDir Path dir) throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        TeamUrl nowhere = new TeamUrl(List.of(URI.create("http://127.0.0.1:" + closedPort + "/solr")), COLLECTION);
        try (MemoryStore local = FunesStore.open(dir, embedder)) {
            local.addAll(List.of(memory("l1", "Rotate the signing keys every ninety days."),
                    memory("l2", "The staging database is restored from a snapshot every night.")));
            SearchRequest request = SearchRequest.of("how often are the signing keys rotated");
            FederatedSearch.Result r = FederatedSearch.search(local, () -> SolrMemoryStore.open(
                    TeamConnection.open(nowhere, Optional.empty()), embedder, TeamOptions.defaults()), request, 60_000);
            assertThat(r.warning()).hasValueSatisfying(w -> assertThat(w).contains("could not be searched")
                    .contains("local results only"));
            List<String> localIds = local.search(request).stream().map(h -> h.memory().id()).toList();
            assertThat(r.hits()).extracting(h -> h.hit().memory().id()).containsExactlyElementsOf(localIds);
            assertThat(r.hits()).allSatisfy(h -> assertThat(h.source()).isEqualTo(FederatedSearch.Source.LOCAL));
        }
    }

    @Test
    void aReaderMaySearchButNotPublish(@TempDir Path dir) {
        Memory m = memory("w1", "Readers may search the team memory but not write to it.");
        try (MemoryStore local = FunesStore.open(dir, embedder);
             SolrMemoryStore asReader = team("machine-w", TeamCluster.READER, Redactor.standard())) {
            local.add(m);
            List<TeamPublish.Cursor> saved = new ArrayList<>();
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> TeamPublish.publish(local, asReader, Set.of(),
                    TeamPublish.Cursor.START, "machine-w", saved::add)))
                    .isInstanceOf(dev.funes.StoreException.class)
                    .hasMessageContaining("user reader may not do this")
                    .hasMessageContaining("HTTP 403");
            assertThat(saved).as("the cursor does not move past what failed").isEmpty();
            assertThat(asReader.search(SearchRequest.of("team memory readers"))).isEmpty();
            assertThat(asReader.stats().memories()).isZero();
        }
    }
}
