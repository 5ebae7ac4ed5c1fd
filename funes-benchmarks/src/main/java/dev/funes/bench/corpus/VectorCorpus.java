package dev.funes.bench.corpus;

import dev.funes.Embedder;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.zip.CRC32;

/**
 * A repeatable corpus of real text embeddings for ANN and store benchmarks, with held-out queries
 * and their exact top-k neighbours.
 *
 * <p><b>Real part.</b> Chunks of the memories the project's own log readers make of the agent
 * logs under {@code shared/fixtures}, plus every turn of the LoCoMo conversations and every
 * observation, session summary and event summary written about them, embedded once
 * with the bundled default model and cached under {@link #DEFAULT_CACHE} (see
 * {@link CorpusFiles} for the checksummed format). Source {@code smoke} uses only the first
 * {@value #SMOKE_FILES} Claude Code fixture files, at most {@value #SMOKE_TEXTS} chunks of them and
 * no LoCoMo turns, so that it is built in seconds.
 *
 * <p><b>Larger sizes.</b> A size above the real count keeps every real vector and adds
 * variations: for a seeded random pair of distinct real vectors {@code (a, b)}, the vector
 * {@code normalize(a + 0.5 b)} and the text of {@code a} followed by a phrase of 8 words of
 * {@code b}. A size below it takes a seeded sample of the real vectors. Variations are made again
 * from the seed on every load (bit for bit: Java float arithmetic is strict), so only the real
 * vectors and the ground truth are cached.
 *
 * <p><b>Queries.</b> LoCoMo questions (never corpus texts), a seeded sample, embedded as queries.
 * <b>Ground truth:</b> the exact top {@value #K} by dot product (all vectors are unit length),
 * ties to the lower id, computed by a plain scan once per size, seed and query count and cached.
 */
public final class VectorCorpus {

    /** Where the cache lives, relative to the working directory (the repository root). */
    public static final Path DEFAULT_CACHE = Path.of("funes-benchmarks", "target", "ann-corpus");
    /** Neighbours in the ground truth and in recall. */
    public static final int K = 10;
    /** Claude Code fixture files the {@code smoke} source reads. */
    public static final int SMOKE_FILES = 3;
    /** Real texts the {@code smoke} source embeds at most. */
    public static final int SMOKE_TEXTS = 300;
    /** Weight of the second vector of a variation. */
    public static final float MIX = 0.5f;
    /** Words of the second text appended to a variation's text. */
    public static final int PHRASE_WORDS = 8;
    /** Bumped when the recipe changes, so that old caches are not reused. */
    private static final int RECIPE = 2;

    private final String modelId;
    private final int dimension;
    private final int realCount;
    private final float[] vectors;
    private final List<RealTexts.Text> real;
    private final int[] realOf;
    private final int[] partnerOf;
    private final int[] phraseAt;
    private final List<String> queryTexts;
    private final float[] queries;
    private final int[][] truth;

    private VectorCorpus(String modelId, int dimension, int realCount, float[] vectors, List<RealTexts.Text> real,
                         int[] realOf, int[] partnerOf, int[] phraseAt, List<String> queryTexts, float[] queries,
                         int[][] truth) {
        this.modelId = modelId;
        this.dimension = dimension;
        this.realCount = realCount;
        this.vectors = vectors;
        this.real = real;
        this.realOf = realOf;
        this.partnerOf = partnerOf;
        this.phraseAt = phraseAt;
        this.queryTexts = queryTexts;
        this.queries = queries;
        this.truth = truth;
    }

    /**
     * Loads the corpus from the cache, building what is missing (embedding the real texts takes
     * minutes for source {@code full}; progress goes to {@code log}).
     *
     * @param source     {@code full} (all fixtures and LoCoMo) or {@code smoke} (a few fixture files)
     * @param size       vectors in the corpus, at least 1
     * @param queryCount held-out queries, at least 1
     * @param seed       seed of the sample, the variations and the queries
     * @param shared     the shared folder holding {@code fixtures/} and {@code eval/locomo10.json}
     * @param cache      the cache folder
     * @param log        where progress goes
     * @throws IOException if the inputs cannot be read or a cache file is damaged (its name is given)
     */
    public static VectorCorpus load(String source, int size, int queryCount, long seed, Path shared, Path cache,
                                    PrintStream log) throws IOException {
        if (size < 1 || queryCount < 1) {
            throw new IllegalArgumentException("size and query count must be at least 1: " + size + ", " + queryCount);
        }
        boolean smoke = switch (source) {
            case "full" -> false;
            case "smoke" -> true;
            default -> throw new IllegalArgumentException("unknown corpus source '" + source + "'; valid: full, smoke");
        };
        Path locomo = shared.resolve("eval").resolve("locomo10.json");
        List<Path> logs = smoke ? RealTexts.logFiles(shared.resolve("fixtures").resolve("claude-code"), SMOKE_FILES)
                : RealTexts.logFiles(shared.resolve("fixtures"), 0);
        String model = BundledModel.DEFAULT.id();
        String key = String.format(Locale.ROOT, "%s-%s-%08x", source, model, inputsFingerprint(shared, logs, locomo));
        Path vec = cache.resolve("real-" + key + ".vec");
        Path texts = cache.resolve("real-" + key + ".jsonl");
        Path qvec = cache.resolve("queries-" + key + "-q" + queryCount + "-s" + seed + ".vec");
        Path qtexts = cache.resolve("queries-" + key + "-q" + queryCount + "-s" + seed + ".jsonl");

        CorpusFiles.Vectors base;
        CorpusFiles.Vectors questions;
        if (Files.exists(vec) && Files.exists(texts) && Files.exists(qvec) && Files.exists(qtexts)) {
            base = CorpusFiles.readVectors(vec, texts);
            questions = CorpusFiles.readVectors(qvec, qtexts);
        } else {
            try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT)) {
                if (Files.exists(vec) && Files.exists(texts)) {
                    base = CorpusFiles.readVectors(vec, texts);
                } else {
                    List<RealTexts.Text> items = new ArrayList<>(RealTexts.logChunks(logs));
                    if (smoke) {
                        items = new ArrayList<>(items.subList(0, Math.min(SMOKE_TEXTS, items.size())));
                    } else {
                        Set<String> seen = new HashSet<>();
                        items.forEach(t -> seen.add(t.text()));
                        List<RealTexts.Text> locomoTexts = new ArrayList<>(RealTexts.locomoTurns(locomo));
                        locomoTexts.addAll(RealTexts.locomoNotes(locomo));
                        for (RealTexts.Text t : locomoTexts) {
                            if (seen.add(t.text())) {
                                items.add(t);
                            }
                        }
                    }
                    log.printf(Locale.ROOT, "corpus: embedding %d real texts with %s (cached in %s)%n", items.size(), model, vec);
                    long t0 = System.nanoTime();
                    float[] flat = embedAll(embedder, items.stream().map(RealTexts.Text::text).toList(), log);
                    log.printf(Locale.ROOT, "corpus: embedded %d texts in %.1f s%n", items.size(), (System.nanoTime() - t0) / 1e9);
                    CorpusFiles.writeVectors(vec, texts, model, embedder.dimension(), flat, items);
                    base = CorpusFiles.readVectors(vec, texts);
                }
                Set<String> corpusTexts = new HashSet<>();
                base.texts().forEach(t -> corpusTexts.add(t.text()));
                List<String> held = new ArrayList<>(RealTexts.locomoQuestions(locomo));
                held.removeIf(corpusTexts::contains);
                Collections.shuffle(held, new Random(seed));
                List<String> picked = held.subList(0, Math.min(queryCount, held.size()));
                float[] flat = new float[picked.size() * embedder.dimension()];
                for (int i = 0; i < picked.size(); i++) {
                    float[] q = embedder.embedQuery(picked.get(i));
                    System.arraycopy(normalized(q), 0, flat, i * q.length, q.length);
                }
                CorpusFiles.writeVectors(qvec, qtexts, model, embedder.dimension(),
                        flat, picked.stream().map(q -> new RealTexts.Text("locomo-question", q)).toList());
                questions = CorpusFiles.readVectors(qvec, qtexts);
            }
        }
        if (!base.modelId().equals(model) || !questions.modelId().equals(model)) {
            throw new IOException(vec + " holds vectors of " + base.modelId() + ", expected " + model);
        }
        VectorCorpus corpus = sized(base, questions, size, seed);
        Path truthFile = cache.resolve("truth-" + key + "-n" + size + "-q" + corpus.queryCount() + "-s" + seed + ".truth");
        long fingerprint = corpus.fingerprint();
        int[][] truth = Files.exists(truthFile)
                ? CorpusFiles.readTruth(truthFile, size, fingerprint, corpus.queryCount(), K) : null;
        if (truth == null) {
            long t0 = System.nanoTime();
            truth = new int[corpus.queryCount()][];
            for (int q = 0; q < truth.length; q++) {
                truth[q] = exactTopK(corpus.vectors, corpus.dimension, corpus.query(q), K);
            }
            log.printf(Locale.ROOT, "corpus: exact top-%d of %d queries over %d vectors in %.1f s (cached in %s)%n",
                    K, truth.length, size, (System.nanoTime() - t0) / 1e9, truthFile);
            CorpusFiles.writeTruth(truthFile, size, fingerprint, K, truth);
        }
        return corpus.withTruth(truth);
    }

    private VectorCorpus withTruth(int[][] truth) {
        return new VectorCorpus(modelId, dimension, realCount, vectors, real, realOf, partnerOf, phraseAt, queryTexts,
                queries, truth);
    }

    private static VectorCorpus sized(CorpusFiles.Vectors base, CorpusFiles.Vectors questions, int size, long seed) {
        int dim = base.dimension();
        int n0 = base.count();
        Random random = new Random(seed);
        float[] flat = new float[Math.multiplyExact(size, dim)];
        int[] realOf = new int[size];
        int[] partnerOf = new int[size];
        int[] phraseAt = new int[size];
        if (size <= n0) {
            List<Integer> order = new ArrayList<>(n0);
            for (int i = 0; i < n0; i++) {
                order.add(i);
            }
            Collections.shuffle(order, random);
            for (int i = 0; i < size; i++) {
                realOf[i] = order.get(i);
                partnerOf[i] = -1;
                System.arraycopy(normalized(Arrays.copyOfRange(base.flat(), realOf[i] * dim, realOf[i] * dim + dim)), 0,
                        flat, i * dim, dim);
            }
        } else {
            if (n0 < 2) {
                throw new IllegalArgumentException("need at least 2 real texts to make variations, have " + n0);
            }
            for (int i = 0; i < n0; i++) {
                realOf[i] = i;
                partnerOf[i] = -1;
                System.arraycopy(normalized(Arrays.copyOfRange(base.flat(), i * dim, i * dim + dim)), 0, flat, i * dim, dim);
            }
            float[] v = new float[dim];
            for (int i = n0; i < size; i++) {
                int a = random.nextInt(n0);
                int b = random.nextInt(n0 - 1);
                if (b >= a) {
                    b++;
                }
                for (int d = 0; d < dim; d++) {
                    v[d] = flat[a * dim + d] + MIX * flat[b * dim + d];
                }
                System.arraycopy(normalized(v), 0, flat, i * dim, dim);
                realOf[i] = a;
                partnerOf[i] = b;
                phraseAt[i] = random.nextInt(Integer.MAX_VALUE);
            }
        }
        return new VectorCorpus(base.modelId(), dim, n0, flat, base.texts(), realOf, partnerOf, phraseAt,
                questions.texts().stream().map(RealTexts.Text::text).toList(), questions.flat(), null);
    }

    /** Embeds the texts in batches of similar length (less padding), keeping their order. */
    private static float[] embedAll(Embedder embedder, List<String> texts, PrintStream log) {
        Integer[] order = new Integer[texts.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingInt(i -> texts.get(i).length()));
        int dim = embedder.dimension();
        float[] flat = new float[texts.size() * dim];
        int batch = 64;
        long last = System.nanoTime();
        for (int from = 0; from < order.length; from += batch) {
            int to = Math.min(order.length, from + batch);
            List<String> slice = new ArrayList<>(to - from);
            for (int i = from; i < to; i++) {
                slice.add(texts.get(order[i]));
            }
            List<float[]> out = embedder.embedDocuments(slice);
            for (int i = from; i < to; i++) {
                System.arraycopy(normalized(out.get(i - from)), 0, flat, order[i] * dim, dim);
            }
            if (System.nanoTime() - last > 30e9) {
                last = System.nanoTime();
                log.printf(Locale.ROOT, "corpus: %d of %d embedded%n", to, order.length);
            }
        }
        return flat;
    }

    /** A fingerprint of the inputs: names, sizes and first bytes of every file, and the recipe. */
    private static long inputsFingerprint(Path shared, List<Path> logs, Path locomo) throws IOException {
        CRC32 crc = new CRC32();
        crc.update(("recipe " + RECIPE + " chunk " + RealTexts.CHUNK_CHARS).getBytes(StandardCharsets.UTF_8));
        List<Path> all = new ArrayList<>(logs);
        all.add(locomo);
        for (Path p : all) {
            crc.update(shared.relativize(p).toString().getBytes(StandardCharsets.UTF_8));
            crc.update(Long.toString(Files.size(p)).getBytes(StandardCharsets.UTF_8));
        }
        return crc.getValue();
    }

    private long fingerprint() {
        CRC32 crc = new CRC32();
        byte[] buf = new byte[4 * dimension];
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(buf);
        for (int i = 0; i < size(); i++) {
            bb.clear();
            for (int d = 0; d < dimension; d++) {
                bb.putFloat(vectors[i * dimension + d]);
            }
            crc.update(buf);
        }
        for (int q = 0; q < queryCount(); q++) {
            crc.update(queryTexts.get(q).getBytes(StandardCharsets.UTF_8));
        }
        return crc.getValue();
    }

    /** {@code v} scaled to unit length, in place. */
    static float[] normalized(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += x * x;
        }
        float scale = (float) (1.0 / Math.sqrt(sum));
        for (int i = 0; i < v.length; i++) {
            v[i] *= scale;
        }
        return v;
    }

    /**
     * The exact top {@code k} rows of {@code flat} (row-major, {@code dim} wide) by dot product
     * with {@code q}, best first, ties to the lower row: a plain scan.
     */
    public static int[] exactTopK(float[] flat, int dim, float[] q, int k) {
        int n = flat.length / dim;
        int m = Math.min(k, n);
        int[] ids = new int[m];
        float[] scores = new float[m];
        int filled = 0;
        for (int i = 0; i < n; i++) {
            float s = 0;
            int base = i * dim;
            for (int d = 0; d < dim; d++) {
                s += flat[base + d] * q[d];
            }
            if (filled == m && s <= scores[m - 1]) {
                continue;
            }
            int at = filled < m ? filled++ : m - 1;
            while (at > 0 && scores[at - 1] < s) {
                scores[at] = scores[at - 1];
                ids[at] = ids[at - 1];
                at--;
            }
            scores[at] = s;
            ids[at] = i;
        }
        return ids;
    }

    /** Mean recall@k of {@code found} (one row of ids per query, in query order) against the truth. */
    public double recall(int[][] found) {
        if (found.length != truth.length) {
            throw new IllegalArgumentException(found.length + " result rows for " + truth.length + " queries");
        }
        double sum = 0;
        for (int q = 0; q < found.length; q++) {
            Set<Integer> expected = new HashSet<>();
            for (int id : truth[q]) {
                expected.add(id);
            }
            int hit = 0;
            for (int i = 0; i < Math.min(K, found[q].length); i++) {
                if (expected.contains(found[q][i])) {
                    hit++;
                }
            }
            sum += (double) hit / truth[q].length;
        }
        return sum / found.length;
    }

    /** The model the vectors are of. */
    public String modelId() {
        return modelId;
    }

    /** The vectors' length. */
    public int dimension() {
        return dimension;
    }

    /** Vectors in the corpus. */
    public int size() {
        return realOf.length;
    }

    /** Real (embedded, not generated) texts the corpus draws on. */
    public int realCount() {
        return realCount;
    }

    /** All vectors, row-major, unit length; shared, do not change. */
    public float[] flatVectors() {
        return vectors;
    }

    /** A copy of vector {@code i}. */
    public float[] vector(int i) {
        return Arrays.copyOfRange(vectors, i * dimension, (i + 1) * dimension);
    }

    /** The text of vector {@code i}: a real chunk, or a variation's text. */
    public String text(int i) {
        RealTexts.Text a = real.get(realOf[i]);
        if (partnerOf[i] < 0) {
            return a.text();
        }
        return a.text() + " " + RealTexts.phrase(real.get(partnerOf[i]).text(), phraseAt[i], PHRASE_WORDS);
    }

    /** Who wrote the text of vector {@code i} (an agent format, or {@code locomo}). */
    public String agent(int i) {
        return real.get(realOf[i]).agent();
    }

    /** The real text vector {@code i} is or was made from (its {@code a}). */
    public int realIndex(int i) {
        return realOf[i];
    }

    /** Whether vector {@code i} is a generated variation. */
    public boolean isVariation(int i) {
        return partnerOf[i] >= 0;
    }

    /** Held-out queries. */
    public int queryCount() {
        return queryTexts.size();
    }

    /** A copy of query vector {@code q} (unit length). */
    public float[] query(int q) {
        return Arrays.copyOfRange(queries, q * dimension, (q + 1) * dimension);
    }

    /** The text of query {@code q} (a LoCoMo question). */
    public String queryText(int q) {
        return queryTexts.get(q);
    }

    /** The exact top {@value #K} of query {@code q}, best first (a copy). */
    public int[] truth(int q) {
        return truth[q].clone();
    }
}
