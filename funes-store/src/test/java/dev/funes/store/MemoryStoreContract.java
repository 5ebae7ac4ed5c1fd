package dev.funes.store;

import dev.funes.AddResult;
import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import dev.funes.StoreStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The behaviour every {@link MemoryStore} must show, written once: a subclass supplies a real
 * embedder and a way to open its store in a directory. Stores are filled from {@link TestCorpus}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MemoryStoreContract {

    /** The real embedder the stores use; owned by the subclass. */
    protected abstract Embedder embedder();

    /** Opens (or creates) the store kept in {@code dir}. */
    protected abstract MemoryStore open(Path dir, Embedder embedder);

    private final TestCorpus corpus = TestCorpus.create();

    private MemoryStore openWithCorpus(Path dir) {
        MemoryStore store = open(dir, embedder());
        store.addAll(corpus.all());
        return store;
    }

    private static List<String> ids(List<SearchHit> hits) {
        return hits.stream().map(h -> h.memory().id()).toList();
    }

    // ------------------------------------------------------------ add, get, delete

    @Test
    void getReturnsAnEqualMemoryWithEveryField(@TempDir Path dir) {
        Memory precise = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "Nanosecond timestamps survive storage.")
                .time(Instant.parse("2025-07-01T10:00:00.123456789Z"), Instant.parse("2025-07-01T10:00:01.987654321Z"))
                .project("/p").session("s").metadata("parentSession", "x").metadata("gitBranch", "main")
                .provenance(new Provenance(Path.of("/logs/a/../a/s.jsonl"), 7, 9, 100, 250, List.of("u1", "u2", "u3")))
                .build();
        try (MemoryStore store = openWithCorpus(dir)) {
            store.add(precise);
            for (Memory m : corpus.all()) {
                assertThat(store.get(m.id())).contains(m);
            }
            assertThat(store.get(precise.id())).contains(precise);
        }
    }

    @Test
    void getOfAnUnknownIdIsEmpty(@TempDir Path dir) {
        try (MemoryStore store = open(dir, embedder())) {
            assertThat(store.get("0123456789abcdef0123456789abcdef")).isEmpty();
        }
    }

    @Test
    void addingTheSameMemoriesAgainIsCountedAsUnchanged(@TempDir Path dir) {
        try (MemoryStore store = open(dir, embedder())) {
            int n = corpus.size();
            assertThat(store.addAll(corpus.all())).isEqualTo(new AddResult(n, 0, n));
            assertThat(store.addAll(corpus.all())).isEqualTo(new AddResult(0, n, 0));
            assertThat(store.add(corpus.get("ci-branch"))).isFalse();
            assertThat(store.stats().memories()).isEqualTo(n);
        }
    }

    @Test
    void aRepeatedIdInOneBatchIsStoredOnce(@TempDir Path dir) {
        Memory a = corpus.get("ci-branch");
        Memory b = corpus.get("tls-port");
        try (MemoryStore store = open(dir, embedder())) {
            assertThat(store.addAll(List.of(a, b, a))).isEqualTo(new AddResult(2, 1, 2));
            assertThat(store.stats().memories()).isEqualTo(2);
        }
    }

    @Test
    void equalTextsAreEmbeddedOnceAndFoundAsEveryMemory(@TempDir Path dir) {
        String text = "Run the database migrations before starting the API server.";
        Memory first = Memory.builder(MemoryKind.CONVENTION, "claude-code", text).session("one").build();
        Memory second = Memory.builder(MemoryKind.CONVENTION, "claude-code", text).session("two").build();
        Memory third = Memory.builder(MemoryKind.CONVENTION, "codex", text).session("three").build();
        try (MemoryStore store = openWithCorpus(dir)) {
            long vectors = store.stats().vectors();
            assertThat(store.addAll(List.of(first, second))).isEqualTo(new AddResult(2, 0, 1));
            assertThat(store.addAll(List.of(third))).isEqualTo(new AddResult(1, 0, 0));
            assertThat(store.stats().vectors()).isEqualTo(vectors + 1);

            List<SearchHit> hits = store.search(SearchRequest.builder("apply migrations before the server starts")
                    .limit(3).build());
            assertThat(ids(hits)).containsExactlyInAnyOrder(first.id(), second.id(), third.id());
            assertThat(hits).extracting(h -> h.parts().denseRank()).containsOnly(1);

            assertThat(store.delete(first.id())).isTrue();
            assertThat(store.delete(second.id())).isTrue();
            assertThat(store.stats().vectors()).isEqualTo(vectors + 1);
            assertThat(ids(store.search(SearchRequest.builder("apply migrations before the server starts")
                    .limit(1).build()))).containsExactly(third.id());
            assertThat(store.delete(third.id())).isTrue();
            assertThat(store.stats().vectors()).isEqualTo(vectors);
        }
    }

    @Test
    void deleteRemovesTheMemoryFromGetSearchAndStats(@TempDir Path dir) {
        Memory tls = corpus.get("tls-port");
        Memory docker = corpus.get("docker-gcc"); // the other memory of session b1
        try (MemoryStore store = openWithCorpus(dir)) {
            StoreStats before = store.stats();
            assertThat(ids(store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")))).first().isEqualTo(tls.id());

            assertThat(store.delete(tls.id())).isTrue();
            assertThat(store.delete(tls.id())).isFalse();
            assertThat(store.get(tls.id())).isEmpty();
            List<SearchHit> hits = store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR nginx TLS port 443"));
            assertThat(ids(hits)).doesNotContain(tls.id());
            assertThat(hits).allSatisfy(h -> assertThat(h.parts().lexicalRank()).isZero()); // no text has those words left
            StoreStats after = store.stats();
            assertThat(after.memories()).isEqualTo(before.memories() - 1);
            assertThat(after.vectors()).isEqualTo(before.vectors() - 1);
            assertThat(after.byAgent().get("codex")).isEqualTo(before.byAgent().get("codex") - 1);
            assertThat(after.sessions()).isEqualTo(before.sessions());

            assertThat(store.delete(docker.id())).isTrue();
            assertThat(store.stats().sessions()).isEqualTo(before.sessions() - 1);
        }
    }

    @Test
    void statsCountWhatIsStored(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            StoreStats stats = store.stats();
            List<Memory> all = corpus.all();
            assertThat(stats.memories()).isEqualTo(all.size());
            assertThat(stats.vectors()).isEqualTo(all.size());
            assertThat(stats.sessions()).isEqualTo(all.stream().filter(m -> m.session() != null)
                    .map(m -> m.agent() + "/" + m.session()).distinct().count());
            assertThat(stats.byAgent()).isEqualTo(all.stream()
                    .collect(Collectors.groupingBy(Memory::agent, Collectors.counting())));
            assertThat(stats.byKind()).isEqualTo(all.stream()
                    .collect(Collectors.groupingBy(m -> m.kind().label(), Collectors.counting())));
            assertThat(stats.modelId()).isEqualTo(embedder().modelId());
            assertThat(stats.dimension()).isEqualTo(embedder().dimension());
            assertThat(stats.databaseBytes()).isPositive();
        }
    }

    // ------------------------------------------------------------ ranking

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "why did the build test the wrong branch in continuous integration | ci-branch",
            "container killed for using too much memory | oom-killed",
            "test failing randomly because of the system time | flaky-clock",
            "page kept reconnecting the socket over and over | websocket-loop",
            "slow dashboard sql fixed with an index | composite-index"})
    void aParaphrasedQueryRanksTheRelevantMemoryFirst(String query, String expected, @TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.of(query));
            assertThat(ids(hits)).first().as(hits.get(0).memory().text()).isEqualTo(corpus.get(expected).id());
            assertThat(hits.get(0).parts().denseRank()).isEqualTo(1);
        }
    }

    /**
     * A known weakness of min-max fusion, pinned so that a change of fusion shows here: the query's
     * one rare word that matches ("stop", in "stopped the reconnect loop") makes an unrelated memory
     * the top of the lexical list, worth the lexical list's whole weight, while the answer, first
     * by meaning, matches only "JSON". RRF would put the answer first; the evaluation
     * (docs/EVALUATION.md) measures min-max ahead overall.
     */
    @Test
    void aRareWordMatchedAloneCanOutrankTheParaphraseAnswer(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.of("why did we stop using the incremental JSON reader"));
            assertThat(ids(hits).get(0)).isEqualTo(corpus.get("websocket-loop").id());
            assertThat(hits.get(0).parts().lexicalRank()).isEqualTo(1);
            assertThat(ids(hits).subList(1, 3)).contains(corpus.get("json-parser").id());
            assertThat(hits.get(ids(hits).indexOf(corpus.get("json-parser").id())).parts().denseRank()).isEqualTo(1);
        }
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "ERR_SSL_PROTOCOL_ERROR | tls-port",
            "MaxRAMPercentage | oom-killed",
            "DataLoader | graphql-n-plus-one",
            "journal_mode | sqlite-wal"})
    void anExactKeywordQueryRanksTheRelevantMemoryFirst(String query, String expected, @TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.of(query));
            assertThat(ids(hits)).first().isEqualTo(corpus.get(expected).id());
            assertThat(hits.get(0).parts().lexicalRank()).isEqualTo(1);
            assertThat(hits.get(0).parts().lexicalScore()).isPositive();
        }
    }

    @Test
    void scorePartsExplainTheScore(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.builder("nginx TLS port").limit(25).build());
            assertThat(hits).isNotEmpty();
            for (SearchHit h : hits) {
                var p = h.parts();
                assertThat(p.fused()).isEqualTo(h.score());
                // Default min-max fusion: each list gives at most its weight; the rerank stage adds
                // at most 0.1 (proximity) or takes 0.5 (near-duplicate); the parts add up.
                assertThat(p.denseContribution()).isBetween(0.0, FusionOptions.MINMAX.denseWeight());
                assertThat(p.lexicalContribution()).isBetween(0.0, FusionOptions.MINMAX.lexicalWeight());
                if (p.denseRank() == 0) {
                    assertThat(p.denseContribution()).isZero();
                }
                if (p.lexicalRank() == 0) {
                    assertThat(p.lexicalContribution()).isZero();
                }
                assertThat(p.rerankAdjustment()).isBetween(-0.5, 0.1);
                assertThat(p.denseContribution() + p.lexicalContribution() + p.rerankAdjustment())
                        .isCloseTo(h.score(), org.assertj.core.data.Offset.offset(1e-12));
                assertThat(Double.isNaN(p.denseSimilarity())).isEqualTo(p.denseRank() == 0);
                assertThat(Double.isNaN(p.lexicalScore())).isEqualTo(p.lexicalRank() == 0);
                if (p.denseRank() > 0) {
                    assertThat(p.denseSimilarity()).isBetween(-1.0001, 1.0001);
                }
            }
            for (int i = 1; i < hits.size(); i++) {
                assertThat(hits.get(i).score()).isLessThanOrEqualTo(hits.get(i - 1).score());
            }
        }
    }

    @Test
    void theLimitIsRespected(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            assertThat(store.search(SearchRequest.builder("database").limit(1).build())).hasSize(1);
            assertThat(store.search(SearchRequest.builder("database").limit(3).build())).hasSize(3);
            assertThat(store.search(SearchRequest.builder("database").limit(1000).build())).hasSize(corpus.size());
        }
    }

    // ------------------------------------------------------------ filters

    @Test
    void theProjectFilterKeepsOnlyThatProject(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.builder("database table migration and index")
                    .project(TestCorpus.BETA).limit(20).build());
            assertThat(hits).isNotEmpty().allSatisfy(h -> assertThat(h.memory().project()).isEqualTo(TestCorpus.BETA));
            assertThat(ids(hits)).contains(corpus.get("not-null-migration").id(), corpus.get("composite-index").id())
                    .doesNotContain(corpus.get("sqlite-wal").id());
        }
    }

    @Test
    void theAgentFilterKeepsOnlyThatAgent(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.builder("the build failed").agent("codex").limit(20).build());
            assertThat(hits).isNotEmpty().allSatisfy(h -> assertThat(h.memory().agent()).isEqualTo("codex"));
            assertThat(ids(hits)).first().isEqualTo(corpus.get("docker-gcc").id());
        }
    }

    @Test
    void theSessionFilterFindsEveryMemoryOfTheSessionAndNoOther(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.builder("memory leak in a cache").session("b2")
                    .limit(10).build());
            assertThat(ids(hits)).containsExactly(corpus.get("cache-leak").id(), corpus.get("flaky-clock").id());
        }
    }

    @Test
    void theKindFilterKeepsOnlyThoseKinds(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.builder("what should we always do")
                    .kinds(MemoryKind.CONVENTION, MemoryKind.DECISION).limit(20).build());
            assertThat(hits).extracting(h -> h.memory().kind())
                    .isNotEmpty().allMatch(k -> k == MemoryKind.CONVENTION || k == MemoryKind.DECISION);
            long expected = corpus.all().stream()
                    .filter(m -> m.kind() == MemoryKind.CONVENTION || m.kind() == MemoryKind.DECISION).count();
            assertThat(hits).hasSize((int) expected);
        }
    }

    @Test
    void theTimeFilterIncludesAfterExcludesBeforeAndSkipsUndatedMemories(@TempDir Path dir) {
        Memory tls = corpus.get("tls-port");          // ends 2025-03-01T09:31:30Z
        Memory rateLimit = corpus.get("rate-limit");  // ends 2025-03-20T13:01:30Z
        try (MemoryStore store = openWithCorpus(dir)) {
            List<SearchHit> hits = store.search(SearchRequest.builder("deploy to staging")
                    .after(tls.endedAt()).before(rateLimit.endedAt()).limit(20).build());
            assertThat(ids(hits)).containsExactlyInAnyOrder(tls.id(), corpus.get("websocket-loop").id(),
                    corpus.get("not-null-migration").id());

            List<SearchHit> all = store.search(SearchRequest.builder("deploy to staging")
                    .after(Instant.parse("2000-01-01T00:00:00Z")).limit(1000).build());
            assertThat(ids(all)).hasSize(corpus.size() - 1).doesNotContain(corpus.get("deploy-note").id());
        }
    }

    @Test
    void filtersThatMatchNothingGiveNoHits(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            assertThat(store.search(SearchRequest.builder("docker").project(TestCorpus.ALPHA).session("b1").build()))
                    .isEmpty();
        }
    }

    // ------------------------------------------------------------ atomic batches and checkpoints

    private static SourceState checkpoint(Path file, long bytes) {
        return new SourceState(file, bytes, Instant.parse("2025-06-01T00:00:00Z"), bytes, bytes / 100, "abc123",
                "claude-code", Instant.parse("2025-06-02T00:00:00Z"));
    }

    @Test
    void addAllStoresTheCheckpointWithTheMemoriesAndReplacesIt(@TempDir Path dir) {
        Path log = dir.resolve("logs/session.jsonl");
        List<Memory> all = corpus.all();
        try (MemoryStore store = open(dir.resolve("store"), embedder())) {
            assertThat(store.checkpoints().orElseThrow().source(log)).isEmpty();
            store.checkpoints().orElseThrow().addAll(all.subList(0, 5), checkpoint(log, 1000));
            assertThat(store.checkpoints().orElseThrow().source(log)).contains(checkpoint(log, 1000));
            store.checkpoints().orElseThrow().addAll(all.subList(5, 10), checkpoint(log, 5000));
            assertThat(store.checkpoints().orElseThrow().source(dir.resolve("logs/../logs/session.jsonl"))).contains(checkpoint(log, 5000));
            assertThat(store.stats().sources()).isEqualTo(1);
            store.checkpoints().orElseThrow().addAll(List.of(), checkpoint(dir.resolve("other.jsonl"), 10));
            assertThat(store.stats().sources()).isEqualTo(2);
        }
    }

    @Test
    void aBatchThatFailsStoresNothingOfItself(@TempDir Path dir) {
        Path log = dir.resolve("session.jsonl");
        List<Memory> all = corpus.all();
        Memory poison = Memory.builder(MemoryKind.NOTE, "me", "this one is " + FailingEmbedder.MARKER).build();
        try (MemoryStore store = open(dir.resolve("store"), new FailingEmbedder(embedder()))) {
            store.checkpoints().orElseThrow().addAll(all.subList(0, 3), checkpoint(log, 1000));
            StoreStats before = store.stats();

            List<Memory> batch = new ArrayList<>(all.subList(3, 8));
            batch.add(poison);
            assertThatThrownBy(() -> store.checkpoints().orElseThrow().addAll(batch, checkpoint(log, 9000))).isInstanceOf(EmbeddingException.class);

            assertThat(store.checkpoints().orElseThrow().source(log)).contains(checkpoint(log, 1000));
            for (Memory m : batch) {
                assertThat(store.get(m.id())).isEmpty();
            }
            assertThat(store.stats()).usingRecursiveComparison().ignoringFields("databaseBytes", "indexBytes")
                    .isEqualTo(before);
            assertThat(ids(store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")))).doesNotContain(corpus.get("tls-port").id());

            assertThat(store.checkpoints().orElseThrow().addAll(all.subList(3, 8), checkpoint(log, 9000)).added()).isEqualTo(5);
            assertThat(store.checkpoints().orElseThrow().source(log)).contains(checkpoint(log, 9000));
        }
    }

    // ------------------------------------------------------------ threads

    @Test
    void concurrentSearchesSeeEachBatchWholeOrNotAtAll(@TempDir Path dir) throws Exception {
        int batches = 8;
        int perBatch = 5;
        try (MemoryStore store = openWithCorpus(dir)) {
            ExecutorService pool = Executors.newFixedThreadPool(3, r -> {
                Thread t = new Thread(r, "contract-searcher");
                t.setDaemon(true);
                return t;
            });
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger searches = new AtomicInteger();
            ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
            CountDownLatch started = new CountDownLatch(3);
            List<Future<?>> searchers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int offset = t;
                searchers.add(pool.submit(() -> {
                    started.countDown();
                    for (int i = offset; writing.get() || i < offset + batches; i++) {
                        int b = i % batches;
                        List<SearchHit> hits = store.search(SearchRequest.builder("release checklist zebracorn" + b)
                                .session("release-" + b).limit(10).build());
                        if (hits.size() != 0 && hits.size() != perBatch) {
                            violations.add("batch " + b + ": " + hits.size() + " hits");
                        }
                        List<SearchHit> any = store.search(SearchRequest.of("which branch does CI check out"));
                        if (!ids(any).contains(corpus.get("ci-branch").id())) {
                            violations.add("lost a stored memory: " + ids(any));
                        }
                        searches.incrementAndGet();
                    }
                    return null;
                }));
            }
            assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();
            for (int b = 0; b < batches; b++) {
                List<Memory> batch = new ArrayList<>();
                for (int j = 0; j < perBatch; j++) {
                    batch.add(Memory.builder(MemoryKind.NOTE, "me", "Release checklist step " + j + " of batch "
                            + b + ": verify the zebracorn" + b + " artifact signature " + j).session("release-" + b).build());
                }
                assertThat(store.addAll(batch).added()).isEqualTo(perBatch);
            }
            writing.set(false);
            for (Future<?> f : searchers) {
                f.get(2, TimeUnit.MINUTES);
            }
            pool.shutdown();
            assertThat(violations).isEmpty();
            assertThat(searches.get()).isGreaterThanOrEqualTo(3 * batches);
            for (int b = 0; b < batches; b++) {
                assertThat(store.search(SearchRequest.builder("zebracorn" + b).session("release-" + b).build()))
                        .hasSize(perBatch);
            }
        }
    }

    // ------------------------------------------------------------ lifecycle

    @Test
    void aClosedStoreRefusesEveryCallButClose(@TempDir Path dir) {
        MemoryStore store = openWithCorpus(dir);
        Memory m = corpus.get("ci-branch");
        store.close();
        store.close();
        assertThatThrownBy(() -> store.add(m)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> store.checkpoints().orElseThrow().addAll(List.of(m), null)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> store.get(m.id())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> store.delete(m.id())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> store.search(SearchRequest.of("ci"))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(store::stats).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> store.checkpoints().orElseThrow().source(dir)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingTheStoreLeavesTheEmbedderOpen(@TempDir Path dir) {
        open(dir, embedder()).close();
        assertThat(embedder().embedQuery("still open")).hasSize(embedder().dimension());
    }

    /** Every kind label a store reports is a valid {@link MemoryKind} label. */
    @Test
    void kindsRoundTripThroughTheirLabels(@TempDir Path dir) {
        try (MemoryStore store = openWithCorpus(dir)) {
            Set<String> labels = store.stats().byKind().keySet();
            assertThat(labels).allSatisfy(l -> assertThat(MemoryKind.fromLabel(l).label()).isEqualTo(l));
        }
    }
}
