package dev.funes.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RollupTest {

    /** The rerank depth the tests roll up with: the window of candidates that add a bonus. */
    private static final int DEPTH = 8;

    private final Map<String, Memory> stored = new HashMap<>();

    private Memory exchange(String id) {
        Memory m = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "exchange " + id).id(id).session("s").build();
        stored.put(id, m);
        return m;
    }

    private static Memory passage(String id, String of) {
        return passage(id, of, "passage " + id);
    }

    private static Memory passage(String id, String of, String text) {
        return Memory.builder(MemoryKind.PASSAGE, "claude-code", text).id(id).session("s")
                .metadata(Memory.PASSAGE_OF, of).build();
    }

    private static SearchHit candidate(Memory m, double dense, double lexical) {
        ScoreParts parts = ScoreParts.of(1, 0.5, 1, 10, dense, lexical, 0);
        return new SearchHit(m, parts.fused(), parts);
    }

    private List<SearchHit> rollup(List<SearchHit> ranked, int limit, double weight) throws Exception {
        return rollup(ranked, limit, weight, List.of());
    }

    private List<SearchHit> rollup(List<SearchHit> ranked, int limit, double weight, List<String> queryTerms)
            throws Exception {
        return rollup(ranked, limit, DEPTH, weight, queryTerms);
    }

    private List<SearchHit> rollup(List<SearchHit> ranked, int limit, int depth, double weight,
                                   List<String> queryTerms) throws Exception {
        return Rollup.apply(ranked, limit, depth, weight, ids -> {
            Map<String, Memory> found = new HashMap<>();
            ids.forEach(id -> found.put(id, stored.get(id)));
            return found;
        }, queryTerms);
    }

    /** One exchange answering in one sentence, another in three: ranked as their best, then by all. */
    private List<SearchHit> ranked() {
        exchange("one");
        exchange("three");
        return List.of(
                candidate(passage("one-a", "one"), 0.5, 0.4),     // 0.90
                candidate(passage("three-a", "three"), 0.4, 0.4), // 0.80
                candidate(passage("three-b", "three"), 0.3, 0.3), // 0.60
                candidate(passage("three-c", "three"), 0.2, 0.2), // 0.40
                candidate(passage("three-d", "three"), 0.2, 0.1)); // 0.30, past the two that count
    }

    @Test
    void withoutAPassageWeightAMemoryTakesItsBestCandidatesPlace() throws Exception {
        List<SearchHit> hits = rollup(ranked(), 10, 0);
        assertThat(hits).extracting(h -> h.memory().id()).containsExactly("one", "three");
        assertThat(hits.get(0).score()).isCloseTo(0.9, within(1e-9));
        assertThat(hits.get(0).passage().id()).isEqualTo("one-a");
        assertThat(hits.get(1).score()).isCloseTo(0.8, within(1e-9));
    }

    @Test
    void moreMatchingPassagesLiftTheirMemoryAndThePartsStillAddUp() throws Exception {
        List<SearchHit> hits = rollup(ranked(), 10, 0.25);
        assertThat(hits).extracting(h -> h.memory().id()).containsExactly("three", "one");
        SearchHit three = hits.get(0);
        // 0.80 + 0.25 × (0.60 + 0.40): the next two candidates count, the fourth does not.
        assertThat(three.score()).isCloseTo(1.05, within(1e-9));
        assertThat(three.parts().rerankAdjustment()).isCloseTo(0.25, within(1e-9));
        ScoreParts p = three.parts();
        assertThat(p.denseContribution() + p.lexicalContribution() + p.rerankAdjustment()).isCloseTo(three.score(),
                within(1e-9));
        assertThat(three.passage().id()).isEqualTo("three-a");
        assertThat(hits.get(1).score()).isCloseTo(0.9, within(1e-9));
    }

    @Test
    void passagesSharingTheirExchangesVectorAddOnlyWhatTheirWordsMatched() throws Exception {
        // As the indexer names it: the content hash of the exchange's text, not its id.
        String vector = exchange("tools").contentHash();
        Memory output1 = Memory.builder(MemoryKind.PASSAGE, "claude-code", "output one").id("out-1").session("s")
                .metadata(Memory.PASSAGE_OF, "tools").metadata(Memory.VECTOR_OF, vector).build();
        Memory output2 = Memory.builder(MemoryKind.PASSAGE, "claude-code", "output two").id("out-2").session("s")
                .metadata(Memory.PASSAGE_OF, "tools").metadata(Memory.VECTOR_OF, vector).build();
        List<SearchHit> ranked = List.of(
                candidate(stored.get("tools"), 0.5, 0.0),  // the exchange's vector matched
                candidate(output1, 0.5, 0.2),             // the same vector, and its words
                candidate(output2, 0.5, 0.0));            // the same vector alone: no more evidence
        SearchHit hit = rollup(ranked, 10, 0.25).get(0);
        assertThat(hit.parts().rerankAdjustment()).isCloseTo(0.25 * 0.2, within(1e-9));
        assertThat(hit.score()).isCloseTo(0.5 + 0.25 * 0.2, within(1e-9));
    }

    @Test
    void furtherCandidatesAddTheirWordsOnlyWhenTheyHoldAQueryWordNewToTheirMemory() throws Exception {
        exchange("commit");
        List<String> query = List.of("content", "string", "wrapped");
        Memory command = Memory.builder(MemoryKind.PASSAGE, "claude-code",
                "git commit -m 'send the content string directly'").id("cmd").session("s")
                .metadata(Memory.PASSAGE_OF, "commit").build();
        // The command's output repeats its message under the command's vector: nothing new.
        Memory output = Memory.builder(MemoryKind.PASSAGE, "claude-code",
                "[main 1a2b3c4] send the content string directly").id("out").session("s")
                .metadata(Memory.PASSAGE_OF, "commit").metadata(Memory.VECTOR_OF, command.contentHash()).build();
        Memory reason = Memory.builder(MemoryKind.PASSAGE, "claude-code",
                "the Content had been wrapped in an object").id("why").session("s")
                .metadata(Memory.PASSAGE_OF, "commit").build();
        // No query word the check can see (FTS5's stemmer matched what this one does not): counted.
        Memory unseen = Memory.builder(MemoryKind.PASSAGE, "claude-code", "nothing of it here").id("unseen")
                .session("s").metadata(Memory.PASSAGE_OF, "commit").metadata(Memory.VECTOR_OF, command.contentHash())
                .build();
        List<SearchHit> ranked = List.of(
                candidate(command, 0.3, 0.5),
                candidate(output, 0.3, 0.4),  // the same words, the same vector: no evidence
                candidate(reason, 0.1, 0.2),  // "wrapped" is new: its words and its own vector count
                candidate(unseen, 0.3, 0.1)); // counted for its words; its vector is the command's
        SearchHit hit = rollup(ranked, 10, 0.25, query).get(0);
        assertThat(hit.parts().rerankAdjustment()).isCloseTo(0.25 * ((0.2 + 0.1) + 0.1), within(1e-9));
        ScoreParts p = hit.parts();
        assertThat(p.denseContribution() + p.lexicalContribution() + p.rerankAdjustment()).isCloseTo(hit.score(),
                within(1e-9));

        // Without query terms every lexical contribution counts, as for a dense search.
        SearchHit all = rollup(ranked, 10, 0.25).get(0);
        assertThat(all.parts().rerankAdjustment()).isCloseTo(0.25 * (0.4 + (0.2 + 0.1)), within(1e-9));
    }

    @Test
    void aMemoryPastTheLimitCanClimbIntoItWithThePassageWeight() throws Exception {
        assertThat(rollup(ranked(), 1, 0)).extracting(h -> h.memory().id()).containsExactly("one");
        assertThat(rollup(ranked(), 1, 0.25)).extracting(h -> h.memory().id()).containsExactly("three");
    }

    @Test
    void theHitsAskedForAreFilledWhenTheBestCandidatesArePassagesOfFewerMemories() throws Exception {
        exchange("long");
        exchange("other");
        exchange("third");
        List<SearchHit> ranked = new java.util.ArrayList<>();
        // The window (DEPTH) and two more of one exchange's passages, then two more memories.
        for (int i = 0; i < DEPTH + 2; i++) {
            ranked.add(candidate(passage("long-" + i, "long"), 0.5, 0.5 - i * 0.01));
        }
        ranked.add(candidate(passage("other-a", "other"), 0.2, 0.2));
        ranked.add(candidate(exchange("third"), 0.1, 0.1));
        for (double weight : new double[] {0, 0.25}) {
            List<SearchHit> hits = rollup(ranked, 2, weight);
            assertThat(hits).as("weight %s", weight).extracting(h -> h.memory().id()).containsExactly("long", "other");
            assertThat(hits.get(1).passage().id()).isEqualTo("other-a");
            // Past the window a candidate only takes a free place: it adds nothing to a memory placed.
            assertThat(hits.get(0).parts().rerankAdjustment()).isCloseTo(weight * ((0.5 + 0.49) + (0.5 + 0.48)),
                    within(1e-9));
        }
    }

    @Test
    void theFirstHitsAreTheSameWhicheverNumberOfHitsIsAskedFor() throws Exception {
        exchange("first");
        exchange("deep");
        List<SearchHit> ranked = new java.util.ArrayList<>();
        ranked.add(candidate(passage("first-a", "first"), 0.5, 0.5));             // 1.00
        ranked.add(candidate(passage("deep-a", "deep"), 0.45, 0.45));             // 0.90
        for (int i = 0; i < 30; i++) {                                            // 30 memories between
            ranked.add(candidate(exchange("mid-" + i), 0.4 - i * 0.005, 0.4));
        }
        ranked.add(candidate(passage("deep-b", "deep"), 0.3, 0.2));               // 0.50, the 33rd candidate
        int depth = 40; // the candidates the rerank stage adjusted: all roll up, whatever the limit
        List<SearchHit> one = rollup(ranked, 1, depth, 0.5, List.of());
        List<SearchHit> twenty = rollup(ranked, 20, depth, 0.5, List.of());
        // deep's second passage, far down the candidates, lifts it over first: 0.90 + 0.25 > 1.00.
        assertThat(twenty.get(0).memory().id()).isEqualTo("deep");
        assertThat(twenty.get(0).score()).isCloseTo(0.90 + 0.5 * 0.5, within(1e-9));
        assertThat(one).extracting(h -> h.memory().id()).containsExactly("deep");
        assertThat(one.get(0).score()).isEqualTo(twenty.get(0).score());
        for (int limit : new int[] {5, 30}) {
            assertThat(rollup(ranked, limit, depth, 0.5, List.of())).extracting(h -> h.memory().id())
                    .startsWith(twenty.subList(0, Math.min(limit, 20)).stream().map(h -> h.memory().id())
                            .toArray(String[]::new));
        }
    }

    @Test
    void aHitReturnsAtMostTwoFurtherPassagesThatMatchedNearlyAsWellAsItsBest() throws Exception {
        // Without query terms no passage holds a new word: the share alone decides.
        exchange("near");
        exchange("far");
        List<SearchHit> ranked = List.of(
                candidate(passage("near-a", "near"), 0.5, 0.5),  // 1.00, the best passage
                candidate(exchange("near"), 0.45, 0.45),          // 0.90, the memory itself: not a passage
                candidate(passage("near-b", "near"), 0.45, 0.4),  // 0.85
                candidate(passage("far-a", "far"), 0.4, 0.4),     // 0.80
                candidate(passage("near-c", "near"), 0.4, 0.41),  // 0.81, just over 0.8 × 1.00
                candidate(passage("near-d", "near"), 0.4, 0.41),  // 0.81, but two are returned already
                candidate(passage("far-b", "far"), 0.3, 0.33),    // 0.63, under 0.8 × 0.80
                candidate(passage("near-e", "near"), 0.4, 0.39)); // 0.79, under 0.8 × 1.00
        for (double weight : new double[] {0, 0.5}) {
            List<SearchHit> hits = rollup(ranked, 10, weight);
            SearchHit near = hits.stream().filter(h -> h.memory().id().equals("near")).findFirst().orElseThrow();
            assertThat(near.passage().id()).isEqualTo("near-a");
            assertThat(near.morePassages()).extracting(Memory::id).containsExactly("near-b", "near-c");
            assertThat(near.passages()).extracting(Memory::id).containsExactly("near-a", "near-b", "near-c");
            assertThat(near.returnedText()).isEqualTo("passage near-a\n\npassage near-b\n\npassage near-c");
            SearchHit far = hits.stream().filter(h -> h.memory().id().equals("far")).findFirst().orElseThrow();
            assertThat(far.passage().id()).isEqualTo("far-a");
            assertThat(far.morePassages()).isEmpty();
            assertThat(far.returnedText()).isEqualTo("passage far-a");
        }
    }

    @Test
    void aFurtherPassageHoldingAQueryWordThePassagesReturnedLackIsReturnedHoweverItScored() throws Exception {
        exchange("timer");
        List<SearchHit> ranked = List.of(
                candidate(passage("timer-a", "timer", "the crossing timer stayed red"), 0.5, 0.5),  // 1.00
                candidate(passage("timer-b", "timer", "the timer again, and red"), 0.2, 0.2),      // 0.40: no new word
                candidate(passage("timer-c", "timer", "a power cut reset it"), 0.1, 0.1),          // 0.20: "reset"
                candidate(passage("timer-d", "timer", "reset after the cut"), 0.1, 0.1),           // 0.20: "reset" again
                candidate(passage("timer-e", "timer", "the controller reboots"), 0.05, 0.05),      // 0.10: "controller"
                candidate(passage("timer-f", "timer", "the firmware was old"), 0.05, 0.05));       // 0.10: two returned
        List<String> query = List.of("timer", "reset", "controller", "firmware");
        for (double weight : new double[] {0, 0.5}) {
            SearchHit hit = rollup(ranked, 10, weight, query).get(0);
            assertThat(hit.passage().id()).isEqualTo("timer-a");
            assertThat(hit.morePassages()).extracting(Memory::id).containsExactly("timer-c", "timer-e");
        }
        // Without query terms only the share counts: none scored 0.8 of the best.
        assertThat(rollup(ranked, 10, 0).get(0).morePassages()).isEmpty();
    }

    @Test
    void aBestPassageWithoutAPositiveScoreReturnsNoOther() throws Exception {
        exchange("demoted");
        ScoreParts low = ScoreParts.of(1, 0.5, 1, 10, 0.1, 0.1, -0.5);
        List<SearchHit> ranked = List.of(
                new SearchHit(passage("demoted-a", "demoted"), low.fused(), low),
                new SearchHit(passage("demoted-b", "demoted"), low.fused(), low));
        SearchHit hit = rollup(ranked, 10, 0).get(0);
        assertThat(hit.passage().id()).isEqualTo("demoted-a");
        assertThat(hit.morePassages()).isEmpty();
        assertThat(hit.returnedText()).isEqualTo("passage demoted-a");
    }
}
