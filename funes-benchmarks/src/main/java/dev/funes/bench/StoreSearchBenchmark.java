package dev.funes.bench;

import dev.funes.Embedder;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.bench.corpus.BuildCorpus;
import dev.funes.bench.corpus.VectorCorpus;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * End-to-end search latency over a store of {@code size} memories made of the real-text
 * {@link VectorCorpus} ({@link StoreCorpus}): each search embeds a held-out LoCoMo question with
 * the store's model, runs the hybrid search (dense + full-text candidates, fusion) and fetches
 * the memories. Sample-time mode, so JMH reports p50/p95. The heap in use after a full GC, with
 * the store open and searched, is printed at the end of the trial ({@code store-heap}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class StoreSearchBenchmark {

    /** Memories in the store (100000; 1000000 works, see docs/BENCHMARKS.md for its cost). */
    @Param("100000")
    public int size;

    /** {@code full} (the cached real corpus) or {@code smoke} (a few fixture files, for CI). */
    @Param("full")
    public String source;

    /**
     * How the store's rows are laid out ({@link StoreCorpus.Shape}): {@code memories} (every row an
     * exchange) or {@code passages} (exchanges with their passages, which searches roll up).
     */
    @Param("memories")
    public String shape;

    /** Held-out queries, searched in turn. */
    @Param("500")
    public int queries;

    /** Seed of the corpus. */
    @Param("42")
    public long seed;

    /** Hits per search. */
    @Param("10")
    public int limit;

    /**
     * The store's postings budget for the full-text step ({@code StoreOptions.lexicalBudget}):
     * -1 for the default, 0 for none.
     */
    @Param("-1")
    public long lexicalBudget;

    /**
     * Which retrievers run ({@code SearchRequest.retrieval}): {@code HYBRID} (the default search),
     * or {@code DENSE} / {@code LEXICAL} alone, to see what each side of a search costs.
     */
    @Param("HYBRID")
    public Retrieval retrieval;

    /**
     * Only memories of this agent ({@code SearchRequest.agent}); empty for no filter. In the
     * corpus, {@code locomo} holds about half of the memories, {@code claude-code} about 4%.
     */
    @Param("")
    public String agent;

    /**
     * Filters of the request, {@code +}-separated, each {@code NAME:VALUE}: {@code agent:NAME},
     * {@code project:NAME}, {@code kind:LABEL} (several: {@code ;}-separated; JMH splits values at commas), {@code after:WHEN},
     * {@code before:WHEN} ({@code WHEN}: an ISO instant or date, UTC), {@code session:ID}; empty for
     * none. For example {@code kind:exchange} or {@code after:2027-10-01+before:2027-11-01}.
     */
    @Param("")
    public String filter;

    /** Corpus vectors loaded for their questions alone once the store is built. */
    private static final int QUESTIONS_ONLY = 1000;

    private Embedder embedder;
    private MemoryStore store;
    private VectorCorpus corpus;
    private int next;
    private Consumer<SearchRequest.Builder> filters;

    /** Builds the store if it is not cached yet, then opens it. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        filters = filters(filter);
        StoreCorpus.Shape layout = StoreCorpus.Shape.of(shape);
        Path dir = storeDir(source, size, seed, layout);
        // Once the store is built only the held-out questions are needed, and they do not depend
        // on the size: a small sample brings them without a million vectors on the heap, so the
        // heap printed (and an -Xmx given to the fork) is the store's own.
        boolean built = Files.exists(dir.resolve(StoreCorpus.BUILT));
        corpus = VectorCorpus.load(source, built ? Math.min(size, QUESTIONS_ONLY) : size, queries, seed,
                BuildCorpus.sharedDir(), BuildCorpus.cacheDir(), System.out);
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        if (!built) {
            StoreCorpus.ensure(corpus, dir, embedder, batch(size), layout, System.out);
        }
        StoreOptions.Builder options = StoreOptions.builder();
        if (lexicalBudget >= 0) {
            options.lexicalBudget(lexicalBudget);
        }
        store = FunesStore.open(dir, embedder, options.build());
        System.out.println();
        System.out.println("store-open " + FunesStore.openReport(store).summary());
    }

    /** The request filters that {@link #filter} names; an unknown name fails the trial with it. */
    static Consumer<SearchRequest.Builder> filters(String spec) {
        Consumer<SearchRequest.Builder> all = r -> { };
        for (String part : spec.split("\\+")) {
            if (part.isBlank()) {
                continue;
            }
            int colon = part.indexOf(':');
            if (colon < 1) {
                throw new IllegalArgumentException("filter '" + part + "' is not NAME:VALUE");
            }
            String value = part.substring(colon + 1).strip();
            Consumer<SearchRequest.Builder> one = switch (part.substring(0, colon).strip()) {
                case "agent" -> r -> r.agent(value);
                case "project" -> r -> r.project(value);
                case "session" -> r -> r.session(value);
                case "kind" -> {
                    MemoryKind[] kinds = Arrays.stream(value.split(";")).map(MemoryKind::fromLabel)
                            .toArray(MemoryKind[]::new);
                    yield r -> r.kinds(kinds);
                }
                case "after" -> {
                    Instant at = when(value);
                    yield r -> r.after(at);
                }
                case "before" -> {
                    Instant at = when(value);
                    yield r -> r.before(at);
                }
                default -> throw new IllegalArgumentException("unknown filter '" + part
                        + "' (agent, project, session, kind, after, before)");
            };
            all = all.andThen(one);
        }
        return all;
    }

    private static Instant when(String value) {
        return value.contains("T") ? Instant.parse(value) : LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant();
    }

    /** Where the store of a corpus lives: in the corpus cache. */
    static Path storeDir(String source, int size, long seed) {
        return storeDir(source, size, seed, StoreCorpus.Shape.MEMORIES);
    }

    /** Where the store of a corpus in the given shape lives: in the corpus cache. */
    static Path storeDir(String source, int size, long seed, StoreCorpus.Shape shape) {
        return BuildCorpus.cacheDir().resolve(String.format(Locale.ROOT, "store-%s-n%d-s%d%s", source, size, seed,
                shape.suffix()));
    }

    /**
     * Memories per write: the whole corpus in one write, so the store builds its dense index as
     * one segment with JVector's parallel builder (what a bulk load or a fully merged index holds).
     */
    static int batch(int size) {
        return size;
    }

    /** One search, cycling through the held-out questions. */
    @Benchmark
    public List<SearchHit> search() {
        String q = corpus.queryText(next++ % corpus.queryCount());
        SearchRequest.Builder request = SearchRequest.builder(q).limit(limit).retrieval(retrieval);
        if (!agent.isEmpty()) {
            request.agent(agent);
        }
        filters.accept(request);
        return store.search(request.build());
    }

    /** Prints the heap in use with the store open, then closes it. */
    @TearDown(Level.Trial)
    public void tearDown() {
        System.out.printf(Locale.ROOT, "%nstore-heap size=%d heap-after-gc=%.0f MiB (store open and searched,"
                + " corpus of %d vectors also on the heap: %.0f MiB)%n", size, StoreCorpus.heapAfterGc(),
                corpus.size(), corpus.size() * (double) corpus.dimension() * 4 / (1024 * 1024));
        store.close();
        embedder.close();
    }
}
