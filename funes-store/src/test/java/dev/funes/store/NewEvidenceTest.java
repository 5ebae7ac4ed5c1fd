package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * A real store's search rolls passages up with the query's words: a further passage that repeats
 * the words its memory already matched by adds nothing, one that brings a new query word adds its
 * share ({@link RerankOptions#passageWeight()}). Lexical retrieval, so only words are evidence, and
 * no proximity bonus or demotion, so a hit's rerank part is the roll-up's bonus alone.
 */
class NewEvidenceTest {

    private final Embedder embedder = TestModel.shared();

    @Test
    void aPassageRepeatingItsMemorysWordsAddsNothingAndOneWithANewQueryWordAddsItsShare(@TempDir Path dir) {
        Memory exchange = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "committed the streaming fix")
                .session("s1").build();
        Memory command = TestCorpus.passage(exchange, "git commit -m 'fix: send the zephyr payload directly'");
        // The command's output repeats its message, as git prints it.
        Memory output = TestCorpus.passage(exchange, "[main 1a2b3c4] fix: send the zephyr payload directly");
        Memory reason = TestCorpus.passage(exchange, "the zephyr payload had been wrapped in a quokka envelope");
        RerankOptions bonusOnly = new RerankOptions(0, 0, 0.8, 100, 0.5);
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().rerank(bonusOnly).build())) {
            store.addAll(List.of(exchange, command, output, reason));

            // All three passages match "zephyr payload"; the third adds nothing new either.
            SearchHit repeated = only(store, "zephyr payload");
            assertThat(repeated.memory().id()).isEqualTo(exchange.id());
            assertThat(repeated.parts().rerankAdjustment()).isZero();

            // "quokka" only the reason holds, "directly" only the command and its output: whichever
            // ranks first, a further passage brings a query word it lacks and adds half its share.
            SearchHit added = only(store, "zephyr directly quokka");
            assertThat(added.memory().id()).isEqualTo(exchange.id());
            assertThat(added.parts().rerankAdjustment()).isGreaterThan(0);
            assertThat(added.parts().denseContribution() + added.parts().lexicalContribution()
                    + added.parts().rerankAdjustment()).isCloseTo(added.score(), within(1e-9));
        }
    }

    private static SearchHit only(MemoryStore store, String query) {
        List<SearchHit> hits = store.search(SearchRequest.builder(query).retrieval(Retrieval.LEXICAL).build());
        assertThat(hits).as(query).hasSize(1);
        return hits.get(0);
    }
}
