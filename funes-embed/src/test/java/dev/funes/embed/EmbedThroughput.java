package dev.funes.embed;

import dev.funes.Embedder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Measures texts per second of the bundled models; not a test. Run from the project folder:
 *
 * <pre>
 * mvn -o -q -pl funes-embed -am test-compile dependency:build-classpath \
 *     '-Dmdep.outputFile=${project.build.directory}/classpath.txt'
 * java -cp funes-embed/target/test-classes:funes-embed/target/classes:$(cat funes-embed/target/classpath.txt) \
 *     dev.funes.embed.EmbedThroughput all-minilm-l6-v2-q,all-minilm-l6-v2 1,32 [seed]
 * </pre>
 *
 * <p>Arguments: bundled model ids, batch sizes (int8 models run one window at a time whatever
 * the batch size, see {@link Embedders}), and the seed of the synthetic texts.
 *
 * <p>Texts are synthetic but shaped like memories: short ones of 8 to 30 words, and chunks of
 * about 256 tokens. Each measurement runs after a warm-up pass over the same texts. Also prints,
 * per batch size, the smallest cosine between a text's vector and its vector embedded alone.
 */
final class EmbedThroughput {

    private static final String[] WORDS = ("the build failed because parser streaming memory session log test"
            + " branch commit merge review pipeline cache dependency version schema index query vector"
            + " retry timeout config module gradle maven sqlite lexical dense rerank chunk token window"
            + " refactor extract class method interface thread lock batch model embed search fix bug"
            + " error exception stack trace file path line range agent claude tool call result").split(" ");

    private EmbedThroughput() {
    }

    public static void main(String[] args) {
        String[] models = (args.length > 0 ? args[0] : "all-minilm-l6-v2-q,all-minilm-l6-v2").split(",");
        String[] batchSizes = (args.length > 1 ? args[1] : "1,8,16,32,64").split(",");
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 42L;
        System.out.println("seed " + seed + ", " + Runtime.getRuntime().availableProcessors() + " cores");
        for (String modelId : models) {
            BundledModel model = BundledModel.fromId(modelId);
            List<String> shortTexts = texts(new Random(seed), 512, 8, 30);
            List<String> chunks;
            try (OnnxEmbedder probe = (OnnxEmbedder) Embedders.bundled(model)) {
                chunks = chunks(new Random(seed + 1), 64, probe);
            }
            List<float[]> aloneShort = null;
            List<float[]> aloneChunks = null;
            for (String size : batchSizes) {
                int batchSize = Integer.parseInt(size);
                try (Embedder embedder = Embedders.bundled(model, batchSize)) {
                    double shortRate = rate(embedder, shortTexts);
                    double chunkRate = rate(embedder, chunks);
                    List<float[]> s = embedder.embedDocuments(shortTexts);
                    List<float[]> c = embedder.embedDocuments(chunks);
                    if (aloneShort == null && batchSize == 1) {
                        aloneShort = s;
                        aloneChunks = c;
                    }
                    System.out.printf("%-20s batch %3d: short %7.1f texts/s, 256-token chunks %6.1f texts/s%s%n",
                            modelId, batchSize, shortRate, chunkRate,
                            aloneShort == null ? "" : String.format(", min cosine to alone: short %.5f, chunks %.5f",
                                    minCosine(s, aloneShort), minCosine(c, aloneChunks)));
                }
            }
        }
    }

    private static double rate(Embedder embedder, List<String> texts) {
        embedder.embedDocuments(texts);
        long start = System.nanoTime();
        embedder.embedDocuments(texts);
        return texts.size() / ((System.nanoTime() - start) / 1e9);
    }

    private static List<String> texts(Random random, int count, int minWords, int maxWords) {
        List<String> texts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            texts.add(sentence(random, minWords + random.nextInt(maxWords - minWords + 1)));
        }
        return texts;
    }

    /** Texts that fill one 256-token window of the probe's model. */
    private static List<String> chunks(Random random, int count, OnnxEmbedder probe) {
        List<String> chunks = new ArrayList<>(count);
        while (chunks.size() < count) {
            StringBuilder text = new StringBuilder(sentence(random, 20));
            while (true) {
                String next = text + ". " + sentence(random, 8 + random.nextInt(10));
                int[] windows = probe.windowLengths(next);
                if (windows.length > 1 || windows[0] > 256) {
                    break;
                }
                text.setLength(0);
                text.append(next);
            }
            chunks.add(text.toString());
        }
        return chunks;
    }

    private static String sentence(Random random, int words) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < words; i++) {
            text.append(i == 0 ? "" : " ").append(WORDS[random.nextInt(WORDS.length)]);
        }
        return text.toString();
    }

    private static double minCosine(List<float[]> a, List<float[]> b) {
        double min = 1;
        for (int i = 0; i < a.size(); i++) {
            min = Math.min(min, EmbedderContract.dot(a.get(i), b.get(i)));
        }
        return min;
    }
}
