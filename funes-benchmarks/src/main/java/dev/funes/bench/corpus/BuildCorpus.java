package dev.funes.bench.corpus;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Builds (or checks) the cached corpus ahead of the benchmarks, so that their set-up only reads
 * it: {@code BuildCorpus [SOURCE] [QUERIES] [SEED] SIZE...}, for example
 * {@code BuildCorpus full 500 42 100000 1000000}. Paths: {@code -Dfunes.shared} (default
 * {@code ../shared}) and {@code -Dfunes.corpus} (default {@link VectorCorpus#DEFAULT_CACHE}).
 */
public final class BuildCorpus {

    private BuildCorpus() {
    }

    /** Runs it; see the class comment for the arguments. */
    public static void main(String[] args) throws IOException {
        if (args.length < 4) {
            System.err.println("usage: BuildCorpus SOURCE QUERIES SEED SIZE...  (e.g. full 500 42 100000)");
            System.exit(2);
        }
        String source = args[0];
        int queries = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        for (int i = 3; i < args.length; i++) {
            int size = Integer.parseInt(args[i]);
            long t0 = System.nanoTime();
            VectorCorpus corpus = VectorCorpus.load(source, size, queries, seed, sharedDir(), cacheDir(), System.out);
            System.out.printf(Locale.ROOT, "corpus %s: %d vectors (%d real texts, the rest variations), %d queries,"
                            + " dimension %d, model %s; ready in %.1f s%n", source, corpus.size(), corpus.realCount(),
                    corpus.queryCount(), corpus.dimension(), corpus.modelId(), (System.nanoTime() - t0) / 1e9);
        }
    }

    /** The shared folder: {@code -Dfunes.shared}, else {@code ../shared}. */
    public static Path sharedDir() {
        return Path.of(System.getProperty("funes.shared", "../shared"));
    }

    /** The cache folder: {@code -Dfunes.corpus}, else {@link VectorCorpus#DEFAULT_CACHE}. */
    public static Path cacheDir() {
        return Path.of(System.getProperty("funes.corpus", VectorCorpus.DEFAULT_CACHE.toString()));
    }
}
