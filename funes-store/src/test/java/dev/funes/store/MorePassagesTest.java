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

/**
 * A real store's hit returns, after its best passage, the passages of the same memory that matched
 * nearly as well or hold a query word the ones before them lack (the record beside the best match
 * often holds the answer), and not those that matched far less with no new word.
 */
class MorePassagesTest {

    private final Embedder embedder = TestModel.shared();

    @Test
    void aHitReturnsTheOtherPassagesThatMatchedNearlyAsWellAndNotTheRest(@TempDir Path dir) {
        Memory exchange = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "checked the hook configuration")
                .session("s1").build();
        Memory command = TestCorpus.passage(exchange, "[Bash] grep -n zephyr-check .lefthook.yml");
        Memory output = TestCorpus.passage(exchange, "12: zephyr-check: run .lefthook.yml");
        Memory unrelated = TestCorpus.passage(exchange, "the cache was cleared before the next commit");
        // Another memory matching one query word less: the low end of the lexical scores.
        Memory other = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "renamed the zephyr release notes")
                .session("s1").build();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(List.of(exchange, command, output, unrelated, other));

            List<SearchHit> hits = store.search(SearchRequest.builder("zephyr-check lefthook.yml")
                    .retrieval(Retrieval.LEXICAL).build());
            assertThat(hits).extracting(h -> h.memory().id()).containsExactly(exchange.id(), other.id());
            SearchHit hit = hits.get(0);
            assertThat(hit.passages()).extracting(Memory::id)
                    .containsExactlyInAnyOrder(command.id(), output.id());
            assertThat(hit.returnedText()).contains("grep -n zephyr-check").contains("12: zephyr-check")
                    .doesNotContain("cache was cleared");

            // A query only one passage answers returns that passage alone.
            SearchHit alone = store.search(SearchRequest.builder("cache cleared")
                    .retrieval(Retrieval.LEXICAL).build()).get(0);
            assertThat(alone.passage().id()).isEqualTo(unrelated.id());
            assertThat(alone.morePassages()).isEmpty();
        }
    }
}
