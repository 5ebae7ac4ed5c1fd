package dev.funes.embed;

import static dev.funes.embed.EmbedderContract.assertClose;
import static dev.funes.embed.EmbedderContract.dot;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Texts longer than the window: every window up to {@link Embedders#MAX_WINDOWS} counts, the rest
 * is ignored. Runs on MiniLM int8, whose window is 256 tokens (254 text tokens plus [CLS] and [SEP]).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LongTextTest {

    private static final List<String> CI_SENTENCES = List.of(
            "The continuous integration pipeline checks out the repository and runs the unit tests.",
            "A flaky integration test made the nightly build fail twice this week.",
            "We cache the Maven repository between jobs to keep the pipeline under ten minutes.",
            "The release job tags the commit, signs the artifacts and publishes them to the registry.",
            "Branch protection requires a green build and one review before merging.",
            "The linter runs before compilation so style errors fail fast.");

    private static final String PASTA = "Bring a large pot of salted water to a boil and cook the spaghetti"
            + " until al dente. Meanwhile fry garlic in olive oil, add crushed tomatoes, basil and a pinch of"
            + " chili, and simmer the sauce for fifteen minutes. Toss the drained pasta with the tomato sauce"
            + " and serve it with grated parmesan cheese.";

    private OnnxEmbedder embedder;
    /** CI text of exactly one full window: 254 text tokens. */
    private String oneWindow;

    @BeforeAll
    void open() {
        embedder = (OnnxEmbedder) Embedders.bundled(BundledModel.ALL_MINILM_L6_V2_Q);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            String next = text + (text.length() == 0 ? "" : " ") + CI_SENTENCES.get(i % CI_SENTENCES.size());
            int[] windows = embedder.windowLengths(next);
            if (windows.length > 1 || windows[0] >= 256) {
                break;
            }
            text.setLength(0);
            text.append(next);
        }
        // "build" is one token: fill the window exactly.
        while (embedder.windowLengths(text.toString())[0] < 256) {
            text.append(" build");
        }
        oneWindow = text.toString();
        assertThat(embedder.windowLengths(oneWindow)).containsExactly(256);
    }

    @AfterAll
    void close() {
        embedder.close();
    }

    @Test
    void aTopicInTheLastWindowCounts() {
        String longText = oneWindow + " " + PASTA;
        int[] windows = embedder.windowLengths(longText);
        assertThat(windows).hasSize(2);
        assertThat(windows[0]).isEqualTo(256);

        float[] query = embedder.embedQuery("how to cook spaghetti with tomato sauce");
        List<float[]> vectors = embedder.embedDocuments(List.of(longText, oneWindow));
        double whole = dot(query, vectors.get(0));
        double truncated = dot(query, vectors.get(1));
        assertThat(whole).as("long text vs its first window alone").isGreaterThan(truncated + 0.05);
    }

    @Test
    void equalWindowsGiveTheVectorOfOne() {
        List<float[]> vectors = embedder.embedDocuments(List.of(oneWindow + " " + oneWindow, oneWindow));
        assertThat(embedder.windowLengths(oneWindow + " " + oneWindow)).containsExactly(256, 256);
        assertClose(vectors.get(0), vectors.get(1), 1e-5, "two copies vs one");
    }

    @Test
    void textBeyondTheLastWindowIsIgnored() {
        String full = String.join(" ", java.util.Collections.nCopies(Embedders.MAX_WINDOWS, oneWindow));
        String beyond = full + " " + PASTA;
        assertThat(embedder.windowLengths(full)).hasSize(Embedders.MAX_WINDOWS);
        assertThat(embedder.windowLengths(beyond)).hasSize(Embedders.MAX_WINDOWS);

        List<float[]> vectors = embedder.embedDocuments(List.of(beyond, full));
        assertClose(vectors.get(0), vectors.get(1), 1e-5, "capped text vs the same text without its tail");
    }

    @Test
    void aShortTailCountsLessThanAFullWindow() {
        // 254 CI tokens then a few pasta tokens: the pasta window weighs only its own tokens.
        String shortTail = oneWindow + " spaghetti with tomato sauce";
        assertThat(embedder.windowLengths(shortTail)).hasSize(2);
        List<float[]> vectors = embedder.embedDocuments(List.of(shortTail, oneWindow, "spaghetti with tomato sauce"));
        assertThat(dot(vectors.get(0), vectors.get(1))).as("close to the CI window")
                .isGreaterThan(dot(vectors.get(0), vectors.get(2)));
    }
}
