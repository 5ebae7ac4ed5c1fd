package dev.funes.bench.ann;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.funes.bench.corpus.VectorCorpus;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Every ANN peer on the real smoke corpus: it finds the exact neighbours (exact peers all of
 * them, graph peers nearly all), under the corpus's ids.
 */
class AnnPeersTest {

    static final Path SHARED = Path.of(System.getProperty("funes.shared.dir", "../../shared"));

    @TempDir
    static Path cache;

    static VectorCorpus corpus;

    @BeforeAll
    static void build() throws IOException {
        assumeTrue(Files.isDirectory(SHARED.resolve("fixtures")) && Files.isRegularFile(SHARED.resolve("eval/locomo10.json")),
                "skipped: no fixtures or LoCoMo data under " + SHARED.toAbsolutePath().normalize());
        corpus = VectorCorpus.load("smoke", 2000, 20, 42, SHARED, cache, new PrintStream(new ByteArrayOutputStream()));
    }

    @ParameterizedTest
    @CsvSource({"exact, 1.0", "langchain4j-inmemory, 0.95", "lucene-hnsw, 0.9", "jvector, 0.9",
        "funes-segmented, 0.9"})
    void peerFindsTheExactNeighbours(String name, double minRecall) throws IOException {
        int[][] found = new int[corpus.queryCount()][];
        try (AnnPeer peer = AnnPeers.create(name, 100, 0)) {
            assertThat(peer.name()).isEqualTo(name);
            peer.build(corpus);
            for (int q = 0; q < found.length; q++) {
                found[q] = peer.search(corpus.query(q), VectorCorpus.K);
                assertThat(found[q]).hasSize(VectorCorpus.K).doesNotHaveDuplicates();
            }
        }
        assertThat(corpus.recall(found)).isGreaterThanOrEqualTo(minRecall);
    }

    @Test
    void segmentedPeerChangesItsBeamOnTheSameSegments() throws IOException {
        try (AnnPeer peer = AnnPeers.create(SegmentedIndexPeer.NAME, 100, 0)) {
            peer.build(corpus);
            for (int beam : new int[] {40, 200}) {
                peer.searchBeam(beam);
                assertThat(peer.describe()).contains("overquery " + Math.max(1.0, beam / 10.0));
                int[][] found = new int[corpus.queryCount()][];
                for (int q = 0; q < found.length; q++) {
                    found[q] = peer.search(corpus.query(q), VectorCorpus.K);
                }
                assertThat(corpus.recall(found)).as("beam " + beam).isGreaterThanOrEqualTo(0.9);
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"lucene-hnsw", "funes-segmented"})
    void aKeptIndexOutlivesItsPeerAndIsReusedWithTheSameAnswers(String name, @TempDir Path tmp) throws IOException {
        Path dir = tmp.resolve("kept");
        int[][] first = new int[corpus.queryCount()][];
        try (AnnPeer peer = AnnPeers.create(name, 100, 0)) {
            assertThat(peer.keepIn(dir, false)).isTrue();
            peer.build(corpus);
            for (int q = 0; q < first.length; q++) {
                first[q] = peer.search(corpus.query(q), VectorCorpus.K);
            }
        }
        assertThat(dir.toFile().list()).isNotEmpty();
        try (AnnPeer peer = AnnPeers.create(name, 100, 0)) {
            peer.keepIn(dir, true);
            peer.build(corpus); // opens what is there
            for (int q = 0; q < first.length; q++) {
                assertThat(peer.search(corpus.query(q), VectorCorpus.K)).as("query %d", q).isEqualTo(first[q]);
            }
        }
        assertThat(dir.toFile().list()).isNotEmpty();
        try (AnnPeer peer = AnnPeers.create(name, 100, 0)) {
            peer.keepIn(dir, false); // not reused: built again from scratch in the same folder
            peer.build(corpus);
            assertThat(peer.search(corpus.query(0), VectorCorpus.K)).hasSize(VectorCorpus.K);
        }
    }

    @Test
    void unknownPeerIsNamedWithTheKnownOnes() {
        assertThatThrownBy(() -> AnnPeers.create("faiss", 100, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("faiss").hasMessageContaining("lucene-hnsw");
    }
}
