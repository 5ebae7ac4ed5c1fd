package dev.funes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.StoreStats;
import dev.funes.bench.corpus.VectorCorpus;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmarks' corpus store in its passages shape, built for real from the smoke corpus: the
 * rows are exchanges and passages in the stated proportions, output passages share their
 * exchange's vector, and a search returns the exchange with the passage that matched.
 */
class StoreCorpusTest {

    static final Path SHARED = Path.of(System.getProperty("funes.shared.dir", "../../shared"));

    @TempDir
    Path dir;

    @Test
    void aPassagesStoreHoldsExchangesWithTheirPassagesAndSearchesRollThemUp() throws IOException {
        assumeTrue(Files.isDirectory(SHARED.resolve("fixtures")) && Files.isRegularFile(SHARED.resolve("eval/locomo10.json")),
                "skipped: no fixtures or LoCoMo data under " + SHARED.toAbsolutePath().normalize());
        PrintStream quiet = new PrintStream(new ByteArrayOutputStream());
        int size = 300; // 25 groups of 12 rows
        VectorCorpus corpus = VectorCorpus.load("smoke", size, 20, 42, SHARED, dir.resolve("cache"), quiet);
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT)) {
            Path store = StoreCorpus.ensure(corpus, dir.resolve("store"), embedder, 100, StoreCorpus.Shape.PASSAGES, quiet);
            assertThat(store.resolve(StoreCorpus.BUILT)).content().contains("300 memories (passages)");
            try (MemoryStore s = FunesStore.open(store, embedder)) {
                StoreStats stats = s.stats();
                assertThat(stats.memories()).isEqualTo(size);
                assertThat(stats.byKind()).containsEntry("exchange", 25L).containsEntry("passage", 275L);
                // An exchange's vector, and five passages of its eleven with their own: six a group,
                // fewer where the variations repeat a text.
                assertThat(stats.vectors()).isBetween(140L, 150L);

                // A passage of its own and an output passage of group 3, each found by its words and
                // returned as the passage of its exchange.
                for (int row : new int[] {3 * StoreCorpus.GROUP + 2, 3 * StoreCorpus.GROUP + 3}) {
                    String exchangeId = String.format("bench-%08d", 3 * StoreCorpus.GROUP);
                    String passageId = String.format("bench-%08d", row);
                    Memory passage = s.get(passageId).orElseThrow();
                    assertThat(passage.metadata()).containsEntry(Memory.PASSAGE_OF, exchangeId);
                    assertThat(passage.metadata().containsKey(Memory.VECTOR_OF)).isEqualTo(row % 2 == 1);
                    assertThat(passage.text()).endsWith(corpus.text(row));
                    List<SearchHit> hits = s.search(SearchRequest.builder(corpus.text(row)).limit(20).build());
                    assertThat(hits).anySatisfy(h -> {
                        assertThat(h.memory().id()).isEqualTo(exchangeId);
                        assertThat(h.passages()).extracting(Memory::id).contains(passageId);
                    });
                    assertThat(hits).allSatisfy(h -> assertThat(h.memory().kind().label()).isNotEqualTo("passage"));
                }
            }
        }
    }

    @Test
    void aShapeIsNamedByItsParameter() {
        assertThat(StoreCorpus.Shape.of("passages")).isEqualTo(StoreCorpus.Shape.PASSAGES);
        assertThat(StoreCorpus.Shape.of("MEMORIES")).isEqualTo(StoreCorpus.Shape.MEMORIES);
        assertThat(StoreSearchBenchmark.storeDir("full", 1000, 42, StoreCorpus.Shape.PASSAGES).getFileName())
                .hasToString("store-full-n1000-s42-passages");
        assertThat(StoreSearchBenchmark.storeDir("full", 1000, 42).getFileName()).hasToString("store-full-n1000-s42");
        assertThatThrownBy(() -> StoreCorpus.Shape.of("rows")).hasMessageContaining("'rows'");
    }
}
