package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.bench.corpus.BuildCorpus;
import dev.funes.bench.corpus.VectorCorpus;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreVectors;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A store holding one row per vector of a {@link VectorCorpus}, written through the public
 * {@link FunesStore#vectors} API with the corpus's vectors (nothing is re-embedded), built once
 * and kept in the corpus cache for the store benchmarks. Two {@linkplain Shape shapes}: every row
 * an exchange, or exchanges with their passages in the proportions the indexer gives the fixtures.
 */
public final class StoreCorpus {

    /** The file written last, once the store is complete: its presence means "built". */
    static final String BUILT = "funes-bench-built";
    /** Memories per session: the corpus's texts of one parent are not one conversation, but sessions need a size. */
    private static final int SESSION = 100;
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    /** Rows of one exchange in {@link Shape#PASSAGES}: the exchange and its passages. */
    static final int GROUP = 12;
    /** Exchanges per session in {@link Shape#PASSAGES}: sessions of about {@link #SESSION} rows. */
    private static final int GROUP_SESSION = SESSION / GROUP;
    /** The longest exchange text in {@link Shape#PASSAGES}, as long as a rendering gets. */
    private static final int EXCHANGE_CHARS = 4_000;

    /** How the corpus's rows are laid out as memories. */
    public enum Shape {
        /** Every row one exchange with its own vector: the store before passages. */
        MEMORIES,
        /**
         * Rows in groups of {@link #GROUP}: an exchange (its group's texts as one rendering, its
         * first row's vector) followed by 11 passages of it with headers as the indexer writes them;
         * 6 of the 11 are tool output, which shares the exchange's vector ({@link Memory#VECTOR_OF}),
         * the others have their own. The indexer gives the fixtures 11.6 passages an exchange, half
         * of them output, and 0.61 vectors a row; this shape 11, 6 and 0.5.
         */
        PASSAGES;

        /** The shape a benchmark parameter names ({@code memories} or {@code passages}). */
        public static Shape of(String name) {
            for (Shape s : values()) {
                if (s.name().equalsIgnoreCase(name)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown shape '" + name + "' (memories or passages)");
        }

        /** What the folder name of a store of this shape ends with. */
        String suffix() {
            return this == MEMORIES ? "" : "-" + name().toLowerCase(Locale.ROOT);
        }
    }

    private StoreCorpus() {
    }

    /** The memory made of corpus vector {@code i}. */
    static Memory memory(VectorCorpus corpus, int i) {
        return row(MemoryKind.EXCHANGE, corpus, i, corpus.text(i), START.plusSeconds(60L * i), i / SESSION).build();
    }

    /** A memory of corpus row {@code i}, with the row's id and agent, in session number {@code session}. */
    private static Memory.Builder row(MemoryKind kind, VectorCorpus corpus, int i, String text, Instant at, int session) {
        return Memory.builder(kind, corpus.agent(i), text)
                .id(String.format(Locale.ROOT, "bench-%08d", i))
                .project("funes-bench")
                .session(String.format(Locale.ROOT, "bench-session-%06d", session))
                .time(at, at);
    }

    /**
     * Rows {@code from} to {@code to} (exclusive) of a {@link Shape#PASSAGES} store, {@code from}
     * the first row of a group, with the vectors to store them with: a tool output's passage is
     * given its exchange's vector, which the store then keeps once.
     */
    static void passages(VectorCorpus corpus, int from, int to, List<Memory> memories, List<float[]> vectors) {
        for (int first = from; first < to; first += GROUP) {
            int end = Math.min(to, first + GROUP);
            int group = first / GROUP;
            Instant at = START.plusSeconds(60L * first);
            Path log = Path.of("/bench/logs", String.format(Locale.ROOT, "session-%06d.jsonl", group / GROUP_SESSION));
            int line = 1 + GROUP * (group % GROUP_SESSION);
            StringBuilder rendering = new StringBuilder("User: ").append(corpus.text(first));
            for (int i = first + 1; i < end && rendering.length() < EXCHANGE_CHARS; i++) {
                rendering.append(i % 2 == 1 ? "\n[Bash] run → ok:\n    " : "\nAssistant: ").append(corpus.text(i));
            }
            String text = rendering.length() > EXCHANGE_CHARS ? rendering.substring(0, EXCHANGE_CHARS) : rendering.toString();
            Memory exchange = row(MemoryKind.EXCHANGE, corpus, first, text, at, group / GROUP_SESSION)
                    .provenance(new Provenance(log, line, line + end - first - 1, 0, 0, List.of()))
                    .build();
            memories.add(exchange);
            vectors.add(corpus.vector(first));
            String request = corpus.text(first).length() > 100 ? corpus.text(first).substring(0, 100) : corpus.text(first);
            String date = at.toString().substring(0, 10);
            for (int i = first + 1; i < end; i++) {
                boolean output = i % 2 == 1;
                String header = output ? "Result of [Bash] run" : "Assistant \u00b7 " + date + " \u00b7 on: " + request;
                Memory.Builder passage = row(MemoryKind.PASSAGE, corpus, i, header + "\n" + corpus.text(i), at, group / GROUP_SESSION)
                        .provenance(new Provenance(log, line + i - first, line + i - first, 0, 0, List.of()))
                        .metadata(Memory.PASSAGE_OF, exchange.id());
                if (output) {
                    passage.metadata(Memory.VECTOR_OF, exchange.contentHash());
                }
                memories.add(passage.build());
                vectors.add(corpus.vector(output ? first : i));
            }
        }
    }

    /** {@link #ensure(VectorCorpus, Path, Embedder, int, Shape, PrintStream)} of a {@link Shape#MEMORIES} store. */
    public static Path ensure(VectorCorpus corpus, Path dir, Embedder embedder, int batch, PrintStream log)
            throws IOException {
        return ensure(corpus, dir, embedder, batch, Shape.MEMORIES, log);
    }

    /**
     * The folder of a store built from {@code corpus}, building it first if it is missing or
     * incomplete (a build that was interrupted is started over).
     *
     * @param batch memories per {@link StoreVectors#put} call (one transaction each); rounded up
     *              to whole groups in {@link Shape#PASSAGES}
     */
    public static Path ensure(VectorCorpus corpus, Path dir, Embedder embedder, int batch, Shape shape,
                              PrintStream log) throws IOException {
        if (Files.exists(dir.resolve(BUILT))) {
            return dir;
        }
        IngestAndSearch.deleteTree(dir);
        Files.createDirectories(dir);
        log.printf(Locale.ROOT, "store: writing %d memories (%s) with their corpus vectors to %s%n", corpus.size(),
                shape.name().toLowerCase(Locale.ROOT), dir);
        if (shape == Shape.PASSAGES) {
            batch = (batch + GROUP - 1) / GROUP * GROUP;
        }
        long t0 = System.nanoTime();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            StoreVectors vectors = FunesStore.vectors(store);
            for (int from = 0; from < corpus.size(); from += batch) {
                int to = Math.min(corpus.size(), from + batch);
                List<Memory> memories = new ArrayList<>(to - from);
                List<float[]> vs = new ArrayList<>(to - from);
                if (shape == Shape.PASSAGES) {
                    passages(corpus, from, to, memories, vs);
                } else {
                    for (int i = from; i < to; i++) {
                        memories.add(memory(corpus, i));
                        vs.add(corpus.vector(i));
                    }
                }
                vectors.put(memories, vs);
                log.printf(Locale.ROOT, "store: %d of %d written, %.1f s%n", to, corpus.size(), (System.nanoTime() - t0) / 1e9);
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        String line = String.format(Locale.ROOT, "store built: %d memories (%s) in %.1f s (batches of %d, java %s)",
                corpus.size(), shape.name().toLowerCase(Locale.ROOT), seconds, batch, System.getProperty("java.version"));
        Files.writeString(dir.resolve(BUILT), line + System.lineSeparator());
        log.println(line);
        return dir;
    }

    /**
     * Builds the store of a corpus ahead of the store benchmarks (a 1M build takes far longer
     * than JMH's set-up should): {@code StoreCorpus SOURCE QUERIES SEED SIZE [SHAPE]}, for example
     * {@code StoreCorpus full 500 42 1000000 passages}; the corpus must be cached or buildable
     * ({@link BuildCorpus}). A store already built is left as it is.
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 4 && args.length != 5) {
            System.err.println("usage: StoreCorpus SOURCE QUERIES SEED SIZE [memories|passages]  (e.g. full 500 42 1000000)");
            System.exit(2);
        }
        String source = args[0];
        int queries = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        int size = Integer.parseInt(args[3]);
        Shape shape = args.length == 5 ? Shape.of(args[4]) : Shape.MEMORIES;
        VectorCorpus corpus = VectorCorpus.load(source, size, queries, seed, BuildCorpus.sharedDir(),
                BuildCorpus.cacheDir(), System.out);
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT)) {
            Path dir = ensure(corpus, StoreSearchBenchmark.storeDir(source, size, seed, shape), embedder,
                    StoreSearchBenchmark.batch(size), shape, System.out);
            System.out.println("store: " + dir + " (" + Files.readString(dir.resolve(BUILT)).strip() + ")");
        }
    }

    /** Heap in use after two full collections, in MiB. */
    static double heapAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return (rt.totalMemory() - rt.freeMemory()) / (1024.0 * 1024.0);
    }
}
