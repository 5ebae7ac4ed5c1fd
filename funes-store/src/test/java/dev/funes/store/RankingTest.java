package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Pins ranking behaviour on small corpora written here, with the real model, SQLite and JVector:
 * code-aware lexical matching, paraphrases, every filter, near-duplicate demotion, the retrieval
 * modes and the score parts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RankingTest {

    private final Embedder embedder = TestModel.shared();

    /** Distractors every corpus holds, so that a lexical match has competition. */
    private static final String[] FILLER = {
            "The build failed because the Maven cache was cold; a second run passed.",
            "We agreed to keep the README short and move the details to docs/.",
            "Renamed the logging helper and updated its callers in the CLI module.",
            "The user prefers tabs over spaces in Makefiles only.",
            "Tried upgrading the JSON library, reverted because of a breaking change in the parser.",
            "Release notes for 0.3 mention the new export command and the smaller index file.",
    };

    private static Memory memory(String id, String session, String text, String time) {
        return Memory.builder(MemoryKind.EXCHANGE, "claude-code", text).session(session).project("/p/app")
                .time(Instant.parse(time), Instant.parse(time)).metadata("tag", id).build();
    }

    private MemoryStore store(Path dir, StoreOptions options, String... texts) {
        MemoryStore store = FunesStore.open(dir, embedder, options);
        List<Memory> memories = new ArrayList<>();
        int i = 0;
        for (String f : FILLER) {
            memories.add(memory("filler" + i, "s-filler", f, "2025-01-0" + (1 + i++ % 9) + "T10:00:00Z"));
        }
        int j = 0;
        for (String t : texts) {
            memories.add(memory("m" + j, "s" + j, t, "2025-02-1" + j++ + "T10:00:00Z"));
        }
        store.addAll(memories);
        return store;
    }

    private static String top(MemoryStore store, String query, Retrieval retrieval) {
        List<SearchHit> hits = store.search(SearchRequest.builder(query).retrieval(retrieval).limit(5).build());
        assertThat(hits).as(query).isNotEmpty();
        return hits.get(0).memory().text();
    }

    @Test
    void camelCaseIdentifierIsFoundByItsWordsAndTheOtherWayRound(@TempDir Path a, @TempDir Path b) {
        try (MemoryStore store = store(a, StoreOptions.defaults(), "Added parseHttpHeader to the request reader.")) {
            assertThat(top(store, "parse http header", Retrieval.LEXICAL)).contains("parseHttpHeader");
        }
        try (MemoryStore store = store(b, StoreOptions.defaults(), "We parse every http header line by hand.")) {
            assertThat(top(store, "parseHttpHeader", Retrieval.LEXICAL)).contains("http header line");
        }
    }

    @Test
    void migrationFillsTheTermsOfAnOlderStore(@TempDir Path dir) throws Exception {
        store(dir, StoreOptions.defaults(), "Added parseHttpHeader to the request reader.").close();
        OldStores.downgradeToVersion1(dir);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(FunesStore.openReport(store).schemaVersionFound()).isEqualTo(1);
            assertThat(top(store, "parse http header", Retrieval.LEXICAL)).contains("parseHttpHeader");
        }
        CheckReport report = FunesStore.check(dir, embedder, false);
        assertThat(report.healthy()).as(report.toString()).isTrue();
    }

    @Test
    void snakeCaseWholeNameBeatsItsScatteredWords(@TempDir Path dir) {
        try (MemoryStore store = store(dir, StoreOptions.defaults(),
                "The name of the case was snake, a nickname from school.",
                "Renamed the column to snake_case_name in the migration.")) {
            assertThat(top(store, "snake_case_name", Retrieval.LEXICAL)).contains("column to snake_case_name");
            assertThat(top(store, "snakeCaseName", Retrieval.LEXICAL)).contains("column to snake_case_name");
        }
    }

    @Test
    void pathIsFoundByItsFileNameAndFlagByItself(@TempDir Path dir) {
        try (MemoryStore store = store(dir, StoreOptions.defaults(),
                "Edited funes-store/src/main/java/dev/funes/store/FtsQuery.java to quote every word.",
                "The query planner in Java skips the full text search when a filter is empty.",
                "Run the migration with --dry-run before touching production.",
                "The dry season made the run to the lake short.")) {
            assertThat(top(store, "FtsQuery.java", Retrieval.LEXICAL)).contains("store/FtsQuery.java");
            assertThat(top(store, "fts query", Retrieval.LEXICAL)).contains("store/FtsQuery.java");
            assertThat(top(store, "--dry-run", Retrieval.LEXICAL)).contains("with --dry-run");
        }
    }

    @Test
    void paraphraseIsFoundByDenseRetrievalOnly(@TempDir Path dir) {
        String answer = "My dog is sick and the veterinarian prescribed antibiotics for ten days.";
        try (MemoryStore store = store(dir, StoreOptions.defaults(), answer)) {
            String query = "What medicine did the vet give my puppy?";
            assertThat(store.search(SearchRequest.builder(query).retrieval(Retrieval.LEXICAL).build()))
                    .extracting(h -> h.memory().text()).doesNotContain(answer);
            assertThat(top(store, query, Retrieval.DENSE)).isEqualTo(answer);
            assertThat(top(store, query, Retrieval.HYBRID)).isEqualTo(answer);
        }
    }

    @Test
    void singleModesReturnOnlyTheirSideAndPartsAddUp(@TempDir Path dir) {
        try (MemoryStore store = store(dir, StoreOptions.defaults(), "Added parseHttpHeader to the request reader.")) {
            for (SearchHit h : store.search(SearchRequest.builder("parse header").retrieval(Retrieval.DENSE).build())) {
                assertThat(h.parts().lexicalRank()).isZero();
                assertThat(h.parts().denseRank()).isPositive();
                assertThat(h.parts().lexicalContribution()).isZero();
            }
            List<SearchHit> lexical = store.search(SearchRequest.builder("parse header").retrieval(Retrieval.LEXICAL).build());
            assertThat(lexical).isNotEmpty().allSatisfy(h -> {
                assertThat(h.parts().denseRank()).isZero();
                assertThat(h.parts().lexicalRank()).isPositive();
            });
            List<SearchHit> hybrid = store.search(SearchRequest.of("parse the http header"));
            assertThat(hybrid.get(0).parts().denseRank()).isPositive();
            assertThat(hybrid.get(0).parts().lexicalRank()).isPositive();
            for (SearchHit h : hybrid) {
                ScoreParts p = h.parts();
                assertThat(p.hasContributions()).isTrue();
                assertThat(p.denseContribution() + p.lexicalContribution() + p.rerankAdjustment())
                        .isCloseTo(h.score(), within(1e-12));
                assertThat(p.fused()).isEqualTo(h.score());
            }
            // min-max: the best of the lexical list scores the lexical list's whole weight.
            assertThat(hybrid.get(0).parts().lexicalContribution())
                    .isCloseTo(FusionOptions.MINMAX.lexicalWeight(), within(1e-9));
            assertThat(hybrid.get(0).parts().explain()).contains("dense #").contains("lexical #").contains(" = ");
        }
    }

    @Test
    void nearDuplicateFromOneSessionDropsBelowADistinctRelevantMemory(@TempDir Path dir, @TempDir Path plain) {
        String first = "The deploy failed because the staging database password expired; rotated it in the vault.";
        String repeat = "The deploy failed because the staging database password expired; rotated it in the vault!";
        String distinct = "Staging deploys kept failing: the database migration timed out.";
        List<Memory> memories = new ArrayList<>(List.of(
                memory("a", "s1", first, "2025-02-01T10:00:00Z"),
                memory("b", "s1", repeat, "2025-02-01T10:05:00Z"),
                memory("c", "s2", distinct, "2025-02-02T10:00:00Z")));
        for (int i = 0; i < FILLER.length; i++) {
            memories.add(memory("f" + i, "s-filler", FILLER[i], "2025-01-0" + (1 + i) + "T10:00:00Z"));
        }
        String query = "staging deploy failed, database password expired";
        try (MemoryStore store = FunesStore.open(plain, embedder,
                StoreOptions.builder().rerank(RerankOptions.NONE).build())) {
            store.addAll(memories);
            List<String> order = store.search(SearchRequest.builder(query).limit(3).build()).stream()
                    .map(h -> h.memory().text()).toList();
            // Without the rerank stage the two near-identical memories take the first two places.
            assertThat(order.subList(0, 2)).containsExactlyInAnyOrder(first, repeat);
            assertThat(order.get(2)).isEqualTo(distinct);
        }
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(memories);
            List<SearchHit> hits = store.search(SearchRequest.builder(query).limit(3).build());
            List<String> order = hits.stream().map(h -> h.memory().text()).toList();
            // The second of the pair drops below the distinct memory; the first keeps the top.
            assertThat(order.get(0)).isIn(first, repeat);
            assertThat(order.get(1)).isEqualTo(distinct);
            assertThat(order.get(2)).isIn(first, repeat);
            assertThat(hits.get(2).parts().rerankAdjustment()).isLessThan(-0.4);
            assertThat(hits.get(0).parts().rerankAdjustment()).isGreaterThanOrEqualTo(0);
        }
    }

    @Test
    void everyFilterRestrictsTheHits(@TempDir Path dir) {
        Memory alpha = Memory.builder(MemoryKind.EXCHANGE, "claude-code",
                        "Fixed the flaky retry test in funes-store/src/test/RetryTest.java.")
                .session("s1").project("/p/alpha").time(Instant.parse("2025-03-01T10:00:00Z"), null).build();
        Memory beta = Memory.builder(MemoryKind.DECISION, "codex",
                        "Decided the retry test waits on a latch instead of sleeping; see RetryTest.java.")
                .session("s2").project("/p/beta").time(Instant.parse("2025-04-01T10:00:00Z"), null).build();
        Memory gamma = Memory.builder(MemoryKind.EXCHANGE, "codex",
                        "The retry test in OtherRetryTest.java still sleeps.")
                .session("s3").project("/p/beta").time(Instant.parse("2025-05-01T10:00:00Z"), null)
                .metadata("file", "/repo/lib/Legacy.java").build();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(List.of(alpha, beta, gamma));
            assertThat(ids(store, SearchRequest.builder("retry test").project("/p/alpha"))).containsExactly(alpha.id());
            assertThat(ids(store, SearchRequest.builder("retry test").agent("codex")))
                    .containsExactlyInAnyOrder(beta.id(), gamma.id());
            assertThat(ids(store, SearchRequest.builder("retry test").session("s3"))).containsExactly(gamma.id());
            assertThat(ids(store, SearchRequest.builder("retry test").kinds(MemoryKind.DECISION)))
                    .containsExactly(beta.id());
            assertThat(ids(store, SearchRequest.builder("retry test").after(Instant.parse("2025-03-15T00:00:00Z"))
                    .before(Instant.parse("2025-04-15T00:00:00Z")))).containsExactly(beta.id());
            assertThat(ids(store, SearchRequest.builder("retry test").file("RetryTest.java")))
                    .containsExactlyInAnyOrder(alpha.id(), beta.id());
            assertThat(ids(store, SearchRequest.builder("retry test").file("src/test/RetryTest.java")))
                    .containsExactly(alpha.id());
            assertThat(ids(store, SearchRequest.builder("retry test").file("Legacy.java"))).containsExactly(gamma.id());
            for (Retrieval mode : Retrieval.values()) {
                assertThat(ids(store, SearchRequest.builder("retry test").file("RetryTest.java").retrieval(mode)))
                        .as(mode.label()).doesNotContain(gamma.id());
            }
        }
    }

    @Test
    void rrfRemainsSelectable(@TempDir Path dir) {
        try (MemoryStore store = store(dir, StoreOptions.builder().fusion(FusionOptions.RRF)
                .rerank(RerankOptions.NONE).build(), "Added parseHttpHeader to the request reader.")) {
            SearchHit top = store.search(SearchRequest.of("parseHttpHeader")).get(0);
            int d = top.parts().denseRank();
            int l = top.parts().lexicalRank();
            assertThat(top.score()).isCloseTo((d > 0 ? 1.0 / (60 + d) : 0) + (l > 0 ? 1.0 / (60 + l) : 0),
                    within(1e-12));
        }
    }

    private static List<String> ids(MemoryStore store, SearchRequest.Builder request) {
        return store.search(request.limit(10).build()).stream().map(h -> h.memory().id()).toList();
    }
}
