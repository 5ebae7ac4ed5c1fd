package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SessionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** Caller-supplied vectors and exact vector search ({@link StoreVectors}) on a real store and model. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreVectorsTest {

    private static final List<String> TEXTS = List.of(
            "CI checked out the merge commit instead of the branch head",
            "the parser reads the ledger in two passes so forward references resolve",
            "prefer tabs over spaces in the Makefile",
            "the container was killed for using too much memory",
            "rename the module to funes-store");

    private final Embedder embedder = TestModel.shared();

    private static Memory note(String id, String agent, String text) {
        return Memory.builder(MemoryKind.NOTE, agent, text).id(id).build();
    }

    /** Stores the texts under ids t0..t4 with the model's vectors; agents alternate a/b. */
    private List<float[]> putTexts(StoreVectors vectors) {
        List<float[]> embeddings = embedder.embedDocuments(TEXTS);
        List<Memory> memories = new ArrayList<>();
        for (int i = 0; i < TEXTS.size(); i++) {
            memories.add(note("t" + i, i % 2 == 0 ? "a" : "b", TEXTS.get(i)));
        }
        assertThat(vectors.put(memories, embeddings).added()).isEqualTo(TEXTS.size());
        return embeddings;
    }

    private static double cosine(float[] a, float[] b) {
        double dot = 0, na = 0, nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += (double) a[i] * b[i];
            na += (double) a[i] * a[i];
            nb += (double) b[i] * b[i];
        }
        return dot / Math.sqrt(na * nb);
    }

    @Test
    void vectorSearchIsExactCosineBestFirstAndReturnsTheStoredVectorBitForBit(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            assertThat(vectors.dimension()).isEqualTo(embedder.dimension());
            List<float[]> embeddings = putTexts(vectors);

            float[] query = embedder.embedQuery("which commit did CI test?");
            List<VectorHit> hits = vectors.search(VectorQuery.of(query, 10));

            assertThat(hits).hasSize(TEXTS.size());
            assertThat(hits.get(0).memory().id()).isEqualTo("t0");
            for (VectorHit hit : hits) {
                int i = Integer.parseInt(hit.memory().id().substring(1));
                assertThat(hit.similarity()).isCloseTo(cosine(query, embeddings.get(i)), within(1e-9));
                assertThat(hit.vector()).containsExactly(embeddings.get(i));
            }
            for (int i = 1; i < hits.size(); i++) {
                assertThat(hits.get(i).similarity()).isLessThanOrEqualTo(hits.get(i - 1).similarity());
            }
            // Its own vector is the best match, at similarity 1.
            VectorHit self = vectors.search(VectorQuery.of(embeddings.get(3), 1)).get(0);
            assertThat(self.memory().id()).isEqualTo("t3");
            assertThat(self.similarity()).isCloseTo(1.0, within(1e-6));
        }
    }

    @Test
    void limitMinSimilarityFiltersAndPredicateAllApply(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            putTexts(vectors);
            float[] query = embedder.embedQuery("memory limit of the container");
            List<VectorHit> all = vectors.search(VectorQuery.of(query, 10));

            assertThat(vectors.search(VectorQuery.of(query, 2))).extracting(h -> h.memory().id())
                    .containsExactly(all.get(0).memory().id(), all.get(1).memory().id());

            double cut = all.get(2).similarity();
            assertThat(vectors.search(new VectorQuery(query, 10, cut, null, null))).hasSize(3);
            assertThat(vectors.search(new VectorQuery(query, 10, Math.nextUp(cut), null, null))).hasSize(2);

            SearchRequest onlyB = SearchRequest.builder("ignored").agent("b").build();
            assertThat(vectors.search(new VectorQuery(query, 10, -1, onlyB, null)))
                    .extracting(h -> h.memory().id()).containsExactlyInAnyOrder("t1", "t3");
            assertThat(vectors.search(new VectorQuery(query, 10, -1, null, m -> m.text().contains("module"))))
                    .extracting(h -> h.memory().id()).containsExactly("t4");
            assertThat(vectors.scan(onlyB, m -> m.id().equals("t3"))).extracting(Memory::id).containsExactly("t3");
            assertThat(vectors.scan(null, null)).extracting(Memory::id).containsExactly("t0", "t1", "t2", "t3", "t4");
        }
    }

    @Test
    void equalSimilaritiesComeInStorageOrderAndEqualVectorsAreStoredOnce(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            float[] v = embedder.embedDocuments(List.of("same vector")).get(0);
            vectors.put(List.of(note("z", "a", "first"), note("y", "a", "second"), note("x", "a", "third")),
                    List.of(v, v, v));
            assertThat(store.stats().vectors()).isEqualTo(1);
            assertThat(vectors.search(VectorQuery.of(v, 2))).extracting(h -> h.memory().id()).containsExactly("z", "y");

            assertThat(vectors.delete(List.of("z", "y", "not-there"))).isEqualTo(2);
            assertThat(store.stats().vectors()).isEqualTo(1); // x still uses it
            assertThat(vectors.delete(List.of("x"))).isEqualTo(1);
            assertThat(store.stats().vectors()).isZero();
            assertThat(store.stats().memories()).isZero();
        }
    }

    @Test
    void puttingAnIdAgainReplacesTheMemoryAndDropsItsOldVector(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            List<float[]> e = embedder.embedDocuments(List.of("old text", "new text"));
            Memory old = Memory.builder(MemoryKind.NOTE, "a", "old text").id("m").session("s1").build();
            vectors.put(List.of(old), List.of(e.get(0)));
            Memory replacement = Memory.builder(MemoryKind.DECISION, "a", "new text").id("m").session("s2").build();
            vectors.put(List.of(replacement), List.of(e.get(1)));

            assertThat(store.get("m")).contains(replacement);
            assertThat(store.stats().memories()).isEqualTo(1);
            assertThat(store.stats().vectors()).isEqualTo(1);
            assertThat(store.recentSessions(10)).extracting(SessionInfo::session).containsExactly("s2");
            assertThat(vectors.search(VectorQuery.of(e.get(1), 1)).get(0).similarity()).isCloseTo(1.0, within(1e-6));
        }
    }

    @Test
    void callerVectorsTakePartInHybridSearchBeforeAndAfterReopening(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            putTexts(FunesStore.vectors(store));
            assertHybridFindsTheCiNote(store);
        }
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(FunesStore.openReport(store).graphVectors()).isEqualTo(TEXTS.size());
            assertHybridFindsTheCiNote(store);
        }
    }

    private static void assertHybridFindsTheCiNote(MemoryStore store) {
        List<SearchHit> hits = store.search(SearchRequest.builder("which commit did continuous integration test").limit(3).build());
        assertThat(hits.get(0).memory().id()).isEqualTo("t0");
        assertThat(hits.get(0).parts().denseRank()).isEqualTo(1);
    }

    @Test
    void badVectorsAreRefusedAndNothingOfTheBatchIsStored(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            float[] good = embedder.embedDocuments(List.of("fine")).get(0);
            float[] nan = good.clone();
            nan[7] = Float.NaN;
            List<Memory> two = List.of(note("ok", "a", "fine"), note("bad", "a", "broken"));

            assertThatThrownBy(() -> vectors.put(two, List.of(good, new float[3])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("memory bad").hasMessageContaining("3 dimensions").hasMessageContaining("384");
            assertThatThrownBy(() -> vectors.put(two, List.of(good, nan)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
            assertThatThrownBy(() -> vectors.put(two, List.of(good, new float[good.length])))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("all zeros");
            assertThatThrownBy(() -> vectors.put(two, List.of(good)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 memories but 1 vectors");
            assertThatThrownBy(() -> vectors.search(VectorQuery.of(new float[5], 1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("query vector");
            assertThat(store.stats().memories()).isZero();
            assertThat(store.stats().vectors()).isZero();
        }
    }

    @Test
    void vectorsOfOtherLengthsAreScaledToUnitLengthKeepingTheirCosines(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            float[] unit = embedder.embedDocuments(List.of("scaled")).get(0);
            float[] long3 = new float[unit.length];
            for (int i = 0; i < unit.length; i++) {
                long3[i] = unit[i] * 3;
            }
            vectors.put(List.of(note("s", "a", "scaled")), List.of(long3));
            VectorHit hit = vectors.search(VectorQuery.of(long3, 1)).get(0);
            assertThat(hit.similarity()).isCloseTo(1.0, within(1e-6));
            double norm = Math.sqrt(cosineNorm(hit.vector()));
            assertThat(norm).isCloseTo(1.0, within(1e-5));
            assertThat(Arrays.equals(hit.vector(), long3)).isFalse();
        }
    }

    private static double cosineNorm(float[] v) {
        double s = 0;
        for (float f : v) {
            s += (double) f * f;
        }
        return s;
    }

    @Test
    void checkFindsAStoreOfCallerVectorsHealthyThoughTheModelWouldNotComputeThem(@TempDir Path dir) {
        Random random = new Random(42);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            List<Memory> memories = new ArrayList<>();
            List<float[]> randomVectors = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                memories.add(note("r" + i, "a", "random vector " + i));
                float[] v = new float[embedder.dimension()];
                for (int j = 0; j < v.length; j++) {
                    v[j] = (float) random.nextGaussian();
                }
                randomVectors.add(v);
            }
            FunesStore.vectors(store).put(memories, randomVectors);
            store.add(Memory.builder(MemoryKind.NOTE, "a", "an ordinary embedded note").build());
        }
        CheckReport report = FunesStore.check(dir, embedder, false);
        assertThat(report.healthy()).as(report.summary()).isTrue();
        assertThat(report.findings()).anySatisfy(f -> assertThat(f.message()).contains("1 stored vectors match"));
    }

    @Test
    void replacingKeepsNoTombstoneAndCountsRedactionsOnceWhileRemovingLeavesATombstone(@TempDir Path dir) throws SQLException {
        String text = "the staging password: [REDACTED:password] lives in the vault";
        float[] vector = embedder.embedDocuments(List.of(text)).get(0);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            vectors.put(List.of(note("v1", "a", text)), List.of(vector));
            assertThat(store.stats().redactions()).isEqualTo(Map.of("password", 1L));
            // The same id again replaces the memory: no deletion for an export to carry, counts unchanged.
            vectors.put(List.of(note("v1", "a", text + ", rotated monthly")), List.of(vector));
            assertThat(store.stats().redactions()).isEqualTo(Map.of("password", 1L));
            assertThat(tombstones(dir)).isEmpty();
            assertThat(vectors.delete(List.of("v1"))).isEqualTo(1);
            assertThat(store.stats().redactions().getOrDefault("password", 0L)).isZero();
            assertThat(tombstones(dir)).containsExactly("v1");
        }
    }

    private static List<String> tombstones(Path dir) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id FROM tombstones ORDER BY id")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }
}
