package dev.funes.bench.eval;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Recovering each retriever's own ranking from the ranks carried by fused hits. */
class RetrievalTest {

    private static SearchHit hit(String text, int denseRank, int lexicalRank) {
        Memory m = Memory.builder(MemoryKind.NOTE, "test", text).build();
        return new SearchHit(m, 0, new ScoreParts(denseRank, denseRank > 0 ? 0.5 : Double.NaN, lexicalRank,
                lexicalRank > 0 ? 1 : Double.NaN, 0));
    }

    @Test
    void eachRetrieverRankingIsItsCandidatesInRankOrder() {
        List<SearchHit> fused = List.of(hit("a", 2, 1), hit("b", 1, 0), hit("c", 0, 2), hit("d", 3, 3), hit("e", 3, 0));
        assertThat(Retrieval.rankBy(fused, h -> h.parts().denseRank(), "dense", "q"))
                .extracting(Memory::text).containsExactly("b", "a", "d", "e"); // d and e share one vector
        assertThat(Retrieval.rankBy(fused, h -> h.parts().lexicalRank(), "lexical", "q"))
                .extracting(Memory::text).containsExactly("a", "c", "d");
    }

    @Test
    void rankingsAreCutAtTheDeepestCutoff() {
        List<SearchHit> many = new ArrayList<>();
        for (int r = 30; r >= 1; r--) {
            many.add(hit("m" + r, r, 0));
        }
        List<Memory> ranked = Retrieval.rankBy(many, h -> h.parts().denseRank(), "dense", "q");
        assertThat(ranked).hasSize(Metrics.DEPTH);
        assertThat(ranked.get(0).text()).isEqualTo("m1");
        assertThat(ranked.get(Metrics.DEPTH - 1).text()).isEqualTo("m20");
    }

    @Test
    void aGapInATruncatedWideSearchIsAnError() {
        List<SearchHit> wide = new ArrayList<>();
        wide.add(hit("first", 1, 0));
        wide.add(hit("third", 3, 0));
        while (wide.size() < SearchRequest.MAX_LIMIT) {
            wide.add(hit("filler " + wide.size(), 0, 0));
        }
        assertThatThrownBy(() -> Retrieval.rankBy(wide, h -> h.parts().denseRank(), "dense", "q"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("lacks rank 2");
        // Not truncated: the store returned every candidate, so a gap cannot hide one.
        assertThat(Retrieval.rankBy(wide.subList(0, 10), h -> h.parts().denseRank(), "dense", "q")).hasSize(2);
    }
}
