package dev.funes.bench.corpus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The smoke corpus built for real (fixture logs through the project's readers, the bundled
 * model, LoCoMo questions as queries): sizes, variations, the cache and its checksums, and the
 * ground truth against an independent exact search.
 */
class VectorCorpusTest {

    static final Path SHARED = Path.of(System.getProperty("funes.shared.dir", "../../shared"));

    @TempDir
    static Path cache;

    static VectorCorpus corpus;
    static String firstLog;

    @BeforeAll
    static void build() throws IOException {
        assumeTrue(Files.isDirectory(SHARED.resolve("fixtures")) && Files.isRegularFile(SHARED.resolve("eval/locomo10.json")),
                "skipped: no fixtures or LoCoMo data under " + SHARED.toAbsolutePath().normalize());
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        corpus = VectorCorpus.load("smoke", 2000, 20, 42, SHARED, cache, new PrintStream(log, true, StandardCharsets.UTF_8));
        firstLog = log.toString(StandardCharsets.UTF_8);
    }

    @Test
    void realTextsAndVariationsMakeUpTheSize() {
        assertThat(firstLog).contains("embedding").contains("exact top-10 of 20 queries over 2000 vectors");
        assertThat(corpus.size()).isEqualTo(2000);
        assertThat(corpus.realCount()).isBetween(50, VectorCorpus.SMOKE_TEXTS);
        assertThat(corpus.dimension()).isEqualTo(384);
        for (int i = 0; i < corpus.size(); i++) {
            assertThat(norm(corpus.vector(i))).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-4));
            assertThat(corpus.isVariation(i)).isEqualTo(i >= corpus.realCount());
        }
        // A variation is normalize(a + 0.5 b): close to a, its text is a's plus a phrase of b.
        for (int i = corpus.realCount(); i < corpus.size(); i += 97) {
            int a = corpus.realIndex(i);
            assertThat(corpus.text(i)).startsWith(corpus.text(a)).isNotEqualTo(corpus.text(a));
            assertThat(dot(corpus.vector(i), corpus.vector(a))).isGreaterThan(0.85);
        }
    }

    @Test
    void queriesAreHeldOutLocomoQuestions() throws IOException {
        Set<String> texts = new HashSet<>();
        for (int i = 0; i < corpus.realCount(); i++) {
            texts.add(corpus.text(i));
        }
        List<String> questions = RealTexts.locomoQuestions(SHARED.resolve("eval/locomo10.json"));
        assertThat(corpus.queryCount()).isEqualTo(20);
        for (int q = 0; q < corpus.queryCount(); q++) {
            assertThat(questions).contains(corpus.queryText(q));
            assertThat(texts).doesNotContain(corpus.queryText(q));
        }
    }

    @Test
    void groundTruthIsTheExactTopTen() {
        float[] flat = corpus.flatVectors();
        int dim = corpus.dimension();
        for (int q = 0; q < corpus.queryCount(); q++) {
            float[] query = corpus.query(q);
            float[] scores = new float[corpus.size()];
            for (int i = 0; i < scores.length; i++) {
                float s = 0;
                for (int d = 0; d < dim; d++) {
                    s += flat[i * dim + d] * query[d];
                }
                scores[i] = s;
            }
            int[] expected = IntStream.range(0, scores.length).boxed()
                    .sorted(Comparator.<Integer>comparingDouble(i -> -scores[i]).thenComparingInt(i -> i))
                    .limit(VectorCorpus.K).mapToInt(Integer::intValue).toArray();
            assertThat(corpus.truth(q)).containsExactly(expected);
        }
        int[][] perfect = new int[corpus.queryCount()][];
        int[][] half = new int[corpus.queryCount()][];
        for (int q = 0; q < perfect.length; q++) {
            perfect[q] = corpus.truth(q);
            half[q] = java.util.Arrays.copyOf(corpus.truth(q), 5);
        }
        assertThat(corpus.recall(perfect)).isEqualTo(1.0);
        assertThat(corpus.recall(half)).isEqualTo(0.5);
    }

    @Test
    void aSecondLoadReadsTheCacheAndGivesTheSameCorpus() throws IOException {
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        VectorCorpus again = VectorCorpus.load("smoke", 2000, 20, 42, SHARED, cache,
                new PrintStream(log, true, StandardCharsets.UTF_8));
        assertThat(log.toString(StandardCharsets.UTF_8)).isEmpty(); // nothing embedded, no truth computed
        assertThat(again.flatVectors()).isEqualTo(corpus.flatVectors());
        for (int q = 0; q < again.queryCount(); q++) {
            assertThat(again.truth(q)).isEqualTo(corpus.truth(q));
            assertThat(again.queryText(q)).isEqualTo(corpus.queryText(q));
        }
        assertThat(again.text(1999)).isEqualTo(corpus.text(1999));
    }

    @Test
    void aSmallerSizeIsASampleOfTheRealVectors() throws IOException {
        VectorCorpus small = VectorCorpus.load("smoke", 40, 20, 7, SHARED, cache, new PrintStream(new ByteArrayOutputStream()));
        assertThat(small.size()).isEqualTo(40);
        Set<Integer> parents = new HashSet<>();
        for (int i = 0; i < small.size(); i++) {
            assertThat(small.isVariation(i)).isFalse();
            parents.add(small.realIndex(i));
        }
        assertThat(parents).hasSize(40);
    }

    @Test
    void aDamagedCacheFileIsNamed(@TempDir Path other) throws IOException {
        try (Stream<Path> files = Files.list(cache)) {
            for (Path f : files.toList()) {
                Files.copy(f, other.resolve(f.getFileName()));
            }
        }
        Path vec;
        try (Stream<Path> files = Files.list(other)) {
            vec = files.filter(f -> f.getFileName().toString().startsWith("real-")
                    && f.getFileName().toString().endsWith(".vec")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(vec);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(vec, bytes);
        assertThatThrownBy(() -> VectorCorpus.load("smoke", 2000, 20, 42, SHARED, other,
                new PrintStream(new ByteArrayOutputStream())))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(vec.getFileName().toString())
                .hasMessageContaining("checksum");
    }

    @Test
    void chunksKeepWholeLinesAndCutLongOnes() {
        String longLine = "word ".repeat(400).strip();
        List<String> chunks = RealTexts.chunks("short\n\n" + "a line of text that is long enough ".repeat(3) + "\n" + longLine);
        assertThat(chunks).allSatisfy(c -> assertThat(c.length()).isBetween(RealTexts.MIN_CHARS, 2 * RealTexts.LONG_LINE));
        assertThat(String.join(" ", chunks).replace('\n', ' ').split("\\s+"))
                .hasSize(1 + 8 * 3 + 400); // every word kept, in order
        assertThat(RealTexts.chunks("ok")).isEmpty();
    }

    static double norm(float[] v) {
        return Math.sqrt(dot(v, v));
    }

    static double dot(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            s += (double) a[i] * b[i];
        }
        return s;
    }
}
