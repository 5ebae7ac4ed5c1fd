package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.Embedder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What every {@link Embedder} of this module must do, run against the real models. A subclass
 * says how to open its embedder.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EmbedderContract {

    /** Small enough that the texts below span several batches, so sorting crosses batches. */
    static final int SMALL_BATCH = 3;

    /** Texts of very different lengths, in an order that length-sorting changes. */
    static final List<String> TEXTS = List.of(
            "The build failed because the Gradle wrapper could not download its distribution behind the"
                    + " corporate proxy, so we vendored the wrapper jar and pinned the distribution URL"
                    + " to the internal mirror.",
            "ok",
            "Switched the JSON parser to streaming mode to cut memory use on large session logs.",
            "",
            "Why did CI check out the wrong branch?",
            "Refactor: extract the retry policy into its own class and cover it with tests for"
                    + " exponential backoff, jitter and the maximum number of attempts.",
            "pasta",
            "The SQLite FTS5 index is rebuilt when the schema version changes.");

    private Embedder embedder;

    /** Opens a fresh embedder of the model under test with this batch size. */
    abstract Embedder open(int batchSize);

    /** A regular expression the reported model id must match. */
    abstract String modelIdPattern();

    /** Whether the model puts an instruction before queries. */
    abstract boolean hasQueryPrefix();

    @BeforeAll
    void openShared() {
        embedder = open(SMALL_BATCH);
    }

    @AfterAll
    void closeShared() {
        if (embedder != null) {
            embedder.close();
        }
    }

    Embedder embedder() {
        return embedder;
    }

    @Test
    void reportsItsModelAndDimension() {
        assertThat(embedder.modelId()).matches(modelIdPattern());
        assertThat(embedder.dimension()).isEqualTo(384);
        for (float[] vector : embedder.embedDocuments(TEXTS)) {
            assertThat(vector).hasSize(embedder.dimension());
        }
        assertThat(embedder.embedQuery("anything")).hasSize(embedder.dimension());
    }

    @Test
    void vectorsAreUnitLength() {
        List<float[]> vectors = new ArrayList<>(embedder.embedDocuments(TEXTS));
        vectors.add(embedder.embedQuery("why streaming?"));
        for (float[] vector : vectors) {
            assertThat(norm(vector)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-5));
        }
    }

    @Test
    void aListGivesTheSameVectorsAsEachTextAlone() {
        List<float[]> together = embedder.embedDocuments(TEXTS);
        assertThat(together).hasSize(TEXTS.size());
        for (int i = 0; i < TEXTS.size(); i++) {
            float[] alone = embedder.embedDocuments(List.of(TEXTS.get(i))).get(0);
            assertClose(together.get(i), alone, 1e-4, "text " + i);
        }
    }

    @Test
    void orderFollowsTheInputWhateverItIs() {
        List<String> shuffled = new ArrayList<>(TEXTS);
        long seed = 20240611L;
        Collections.shuffle(shuffled, new Random(seed));
        List<float[]> original = embedder.embedDocuments(TEXTS);
        List<float[]> reordered = embedder.embedDocuments(shuffled);
        for (int i = 0; i < shuffled.size(); i++) {
            assertClose(reordered.get(i), original.get(TEXTS.indexOf(shuffled.get(i))), 1e-4, "seed " + seed + ", text " + i);
        }
    }

    @Test
    void batchSizeDoesNotChangeTheVectors() {
        try (Embedder oneAtATime = open(1); Embedder defaultBatches = open(EmbedderOptions.DEFAULT_BATCH_SIZE)) {
            List<float[]> a = oneAtATime.embedDocuments(TEXTS);
            List<float[]> b = defaultBatches.embedDocuments(TEXTS);
            for (int i = 0; i < TEXTS.size(); i++) {
                assertClose(a.get(i), b.get(i), 1e-4, "text " + i);
            }
        }
    }

    @Test
    void anEmptyListGivesAnEmptyList() {
        assertThat(embedder.embedDocuments(List.of())).isEmpty();
    }

    @Test
    void isDeterministic() {
        List<float[]> first = embedder.embedDocuments(TEXTS);
        List<float[]> second = embedder.embedDocuments(TEXTS);
        for (int i = 0; i < TEXTS.size(); i++) {
            assertClose(first.get(i), second.get(i), 1e-6, "text " + i);
        }
    }

    @Test
    void aParaphraseIsCloserThanAnUnrelatedText() {
        List<float[]> v = embedder.embedDocuments(List.of(
                "The build failed because a dependency was missing.",
                "Compilation broke since a required library could not be found.",
                "We had fresh pasta with tomato sauce for dinner."));
        assertThat(dot(v.get(0), v.get(1))).isGreaterThan(dot(v.get(0), v.get(2)) + 0.1);

        float[] query = embedder.embedQuery("why did the build break?");
        assertThat(dot(query, v.get(0))).isGreaterThan(dot(query, v.get(2)));
    }

    @Test
    void queriesGetThePrefixOnlyWhenTheModelHasOne() {
        String text = "why did the parser run out of memory";
        float[] asQuery = embedder.embedQuery(text);
        float[] asDocument = embedder.embedDocuments(List.of(text)).get(0);
        if (hasQueryPrefix()) {
            assertThat(dot(asQuery, asDocument)).isLessThan(0.999);
        } else {
            assertClose(asQuery, asDocument, 1e-6, "query vs document");
        }
    }

    @Test
    void nullTextsAreRejected() {
        assertThatThrownBy(() -> embedder.embedDocuments(null)).isInstanceOf(NullPointerException.class);
        List<String> withNull = new ArrayList<>(List.of("a"));
        withNull.add(null);
        assertThatThrownBy(() -> embedder.embedDocuments(withNull)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> embedder.embedQuery(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aClosedEmbedderRefusesWorkAndClosesTwiceQuietly() {
        Embedder closing = open(SMALL_BATCH);
        String modelId = closing.modelId();
        closing.embedDocuments(List.of("still open"));
        closing.close();
        closing.close();
        assertThatThrownBy(() -> closing.embedDocuments(List.of("x")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(modelId);
        assertThatThrownBy(() -> closing.embedDocuments(List.of())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> closing.embedQuery("x")).isInstanceOf(IllegalStateException.class);
        assertThat(closing.modelId()).isEqualTo(modelId);
    }

    @Test
    void twoThreadsGetTheSameVectorsAsOne() throws Exception {
        List<float[]> expected = embedder.embedDocuments(TEXTS);
        float[] expectedQuery = embedder.embedQuery(TEXTS.get(4));
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(2,
                task -> new Thread(task, "embedder-contract-" + threadNumber.incrementAndGet()));
        try {
            List<Callable<Void>> tasks = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                tasks.add(() -> {
                    for (int round = 0; round < 5; round++) {
                        List<float[]> got = embedder.embedDocuments(TEXTS);
                        for (int i = 0; i < TEXTS.size(); i++) {
                            assertClose(got.get(i), expected.get(i), 1e-5, "text " + i);
                        }
                        assertClose(embedder.embedQuery(TEXTS.get(4)), expectedQuery, 1e-5, "query");
                    }
                    return null;
                });
            }
            for (Future<Void> result : pool.invokeAll(tasks)) {
                result.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += (double) a[i] * b[i];
        }
        return sum;
    }

    static double norm(float[] v) {
        return Math.sqrt(dot(v, v));
    }

    static void assertClose(float[] actual, float[] expected, double tolerance, String what) {
        assertThat(actual).as(what).hasSameSizeAs(expected);
        for (int i = 0; i < actual.length; i++) {
            if (Math.abs(actual[i] - expected[i]) > tolerance) {
                throw new AssertionError(what + ": component " + i + " is " + actual[i] + ", expected "
                        + expected[i] + " ± " + tolerance);
            }
        }
    }
}
