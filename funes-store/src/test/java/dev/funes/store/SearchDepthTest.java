package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many candidates a search fuses ({@link HybridRanking#candidates}) in a real store: up to 20
 * hits, every search fuses the same lists, and a deeper search's longer lists are scaled by their
 * first 100 candidates, so a search's first hits and their scores do not depend on how many were
 * asked for. Built so that a deeper dense list would change the order: the memory {@code deep} is
 * 150th by meaning (among 300, vectors placed at chosen similarities to the real query embedding)
 * and 2nd by words, just behind {@code near}, which no vector brings.
 */
class SearchDepthTest {

    private final Embedder embedder = TestModel.shared();

    @Test
    void theFirstHitsAreTheSameWhateverTheLimit(@TempDir Path dir) {
        String query = "zebra crossing";
        float[] q = embedder.embedQuery(query);
        float[] u = orthogonal(q, new Random(7));
        List<Memory> memories = new ArrayList<>();
        List<float[]> vectors = new ArrayList<>();
        // 300 memories by meaning, similarity 0.95 down to 0.05 in equal steps; rank 150 is "deep".
        for (int rank = 1; rank <= 300; rank++) {
            String text = rank == 150 ? "zebra crossing notes, second draft"
                    : rank <= 280 ? "filler note number " + rank + " about the garden"
                    // the last twenty say "zebra" once in a longer text: the lexical list's tail
                    : "zebra mentioned in passing in a long note about traffic lights, bicycles, buses and the weather "
                            + rank;
            memories.add(memory(rank == 150 ? "deep" : "m" + rank, text));
            vectors.add(at(q, u, 0.95 - 0.003 * (rank - 1)));
        }
        // Second by meaning from the bottom (its vector is opposite the query's), first by words.
        memories.add(memory("near", "zebra crossing notes, first zebra draft"));
        vectors.add(at(q, u, -0.5));

        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            FunesStore.vectors(store).put(memories, vectors);
            List<SearchHit> twenty = store.search(SearchRequest.builder(query).limit(20).build());
            assertThat(twenty).hasSize(20);
            // Words alone order them: "deep" has no dense part at any of these limits.
            assertThat(twenty.get(0).memory().id()).isEqualTo("near");
            assertThat(twenty.get(1).memory().id()).isEqualTo("deep");
            assertThat(twenty.get(1).parts().denseRank()).isZero();
            for (int limit : new int[] {1, 5, 10, 15}) {
                List<SearchHit> fewer = store.search(SearchRequest.builder(query).limit(limit).build());
                assertThat(fewer).hasSize(limit);
                for (int i = 0; i < limit; i++) {
                    assertThat(fewer.get(i).memory().id()).as("hit %d of %d", i + 1, limit)
                            .isEqualTo(twenty.get(i).memory().id());
                    assertThat(fewer.get(i).score()).isEqualTo(twenty.get(i).score());
                }
            }
            // A deeper search (40 hits: 200 candidates a list) does reach "deep" by meaning too,
            // 150th, past the 100 that scale the list: that adds nothing, and the first 20 hits
            // and their scores stay.
            List<SearchHit> forty = store.search(SearchRequest.builder(query).limit(40).build());
            assertThat(forty).hasSize(40);
            assertThat(forty.get(1).memory().id()).isEqualTo("deep");
            assertThat(forty.get(1).parts().denseRank()).isEqualTo(150);
            assertThat(forty.get(1).parts().denseContribution()).isZero();
            for (int i = 0; i < 20; i++) {
                assertThat(forty.get(i).memory().id()).as("hit %d of 40", i + 1).isEqualTo(twenty.get(i).memory().id());
                assertThat(forty.get(i).score()).as("hit %d of 40", i + 1).isEqualTo(twenty.get(i).score());
            }
        }
    }

    private static Memory memory(String id, String text) {
        return Memory.builder(MemoryKind.NOTE, "test", text).id(id).build();
    }

    /** A unit vector orthogonal to the unit vector {@code q}. */
    private static float[] orthogonal(float[] q, Random random) {
        double[] u = new double[q.length];
        double dot = 0;
        for (int i = 0; i < u.length; i++) {
            u[i] = random.nextGaussian();
            dot += u[i] * q[i];
        }
        double norm = 0;
        for (int i = 0; i < u.length; i++) {
            u[i] -= dot * q[i];
            norm += u[i] * u[i];
        }
        float[] out = new float[q.length];
        for (int i = 0; i < u.length; i++) {
            out[i] = (float) (u[i] / Math.sqrt(norm));
        }
        return out;
    }

    /** The unit vector in the plane of {@code q} and {@code u} whose cosine with {@code q} is {@code cos}. */
    private static float[] at(float[] q, float[] u, double cos) {
        double sin = Math.sqrt(1 - cos * cos);
        float[] v = new float[q.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (cos * q[i] + sin * u[i]);
        }
        return v;
    }
}
