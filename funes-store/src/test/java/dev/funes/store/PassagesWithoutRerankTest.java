package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A hit carries its memory's best passages whatever the rerank options: with the rerank stage off
 * ({@link RerankOptions#NONE}) the roll-up still reads the best {@link StoreOptions#candidates()}
 * candidates for them, so an exchange that ranks above its own passages returns them, at any limit.
 */
class PassagesWithoutRerankTest {

    @Test
    void anExchangeRankedAboveItsPassagesStillReturnsThemWithTheRerankStageOff(@TempDir Path dir) {
        // The exchange holds both query words, so BM25 ranks it above its passages, which hold
        // one each; the fillers hold one too and rank between them.
        Memory exchange = Memory.builder(MemoryKind.EXCHANGE, "claude-code",
                "User: why does the zebra crossing light stay red?\nAssistant: the zebra crossing timer was never reset.")
                .id("exchange").session("s1").build();
        Memory first = passage("p1", exchange, "Assistant · 2025-09-20\nthe timer of the crossing was never reset after a power cut");
        Memory second = passage("p2", exchange, "Assistant · 2025-09-20\nthe crossing controller reboots the timer now");
        List<Memory> memories = new ArrayList<>(List.of(exchange, first, second));
        for (int i = 0; i < 8; i++) {
            memories.add(Memory.builder(MemoryKind.NOTE, "test", "a note on the crossing of river " + i + " by ferry")
                    .id("filler" + i).session("s" + (i + 2)).build());
        }
        // The lexical list's last candidate, which min-max scales to 0: a long text saying "crossing" once.
        memories.add(Memory.builder(MemoryKind.NOTE, "test", "crossing " + "and the weather was fine that day ".repeat(20))
                .id("long").session("s10").build());
        StoreOptions off = StoreOptions.builder().rerank(RerankOptions.NONE).build();
        assertThat(Rollup.window(off)).isEqualTo(off.candidates());
        assertThat(Rollup.window(StoreOptions.defaults())).isEqualTo(RerankOptions.DEFAULT.depth());
        try (MemoryStore store = FunesStore.open(dir, TestModel.shared(), off)) {
            store.addAll(memories);
            for (int limit : new int[] {1, 3, 10}) {
                List<SearchHit> hits = store.search(SearchRequest.builder("zebra crossing")
                        .retrieval(Retrieval.LEXICAL).limit(limit).build());
                SearchHit top = hits.get(0);
                assertThat(top.memory().id()).as("limit %d", limit).isEqualTo("exchange");
                // Its passages ranked below it, behind other memories' candidates: still its own.
                assertThat(top.passage()).as("limit %d", limit).isNotNull();
                List<String> returned = new ArrayList<>(List.of(top.passage().id()));
                top.morePassages().forEach(p -> returned.add(p.id()));
                assertThat(returned).as("limit %d", limit).containsExactlyInAnyOrder("p1", "p2");
                assertThat(top.score()).as("no rerank part").isEqualTo(top.parts().fused());
                assertThat(top.parts().rerankAdjustment()).isZero();
            }
        }
    }

    private static Memory passage(String id, Memory of, String text) {
        return Memory.builder(MemoryKind.PASSAGE, "claude-code", text).id(id).session("s1")
                .metadata(Memory.PASSAGE_OF, of.id()).build();
    }
}
