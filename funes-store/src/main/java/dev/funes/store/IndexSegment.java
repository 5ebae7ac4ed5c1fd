package dev.funes.store;

import io.github.jbellis.jvector.disk.IndexWriter;
import io.github.jbellis.jvector.disk.RandomAccessReader;
import io.github.jbellis.jvector.disk.ReaderSupplier;
import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.GraphSearcher;
import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.SearchResult;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndex;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndexWriter;
import io.github.jbellis.jvector.graph.disk.feature.Feature;
import io.github.jbellis.jvector.graph.disk.feature.FeatureId;
import io.github.jbellis.jvector.graph.disk.feature.InlineVectors;
import io.github.jbellis.jvector.graph.similarity.BuildScoreProvider;
import io.github.jbellis.jvector.graph.similarity.DefaultSearchScoreProvider;
import io.github.jbellis.jvector.graph.similarity.ScoreFunction;
import io.github.jbellis.jvector.graph.similarity.SearchScoreProvider;
import io.github.jbellis.jvector.quantization.PQVectors;
import io.github.jbellis.jvector.quantization.ProductQuantization;
import io.github.jbellis.jvector.util.Bits;
import io.github.jbellis.jvector.vector.VectorSimilarityFunction;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongPredicate;
import java.util.zip.CRC32C;

/**
 * One immutable segment of the {@link SegmentedIndex}: a JVector graph over a fixed set of
 * vectors, in its file ({@code seg-<n>.ann}), with product-quantized codes of the vectors kept in
 * RAM when the segment is large enough. How it is built and written, loaded and validated, and
 * searched.
 *
 * <p>The file starts with a Funes header and the ordinal-to-id map, then holds the PQ codes (if
 * any), then the JVector on-disk graph with the full-precision vectors inline, up to its end;
 * docs/STORE-FORMAT.md has the layout.
 *
 * <p>Thread-safe: each search uses its own {@link GraphSearcher}, taken from the segment's idle
 * ones or new. A segment is reference counted: the index owns one reference, each search takes
 * one ({@link #tryAcquire}), and the file is unmapped (and its idle searchers closed) when the
 * last one is released, so a segment merged away stays usable by the searches that started
 * before.
 */
final class IndexSegment {

    static final byte[] MAGIC = "FUNESSEG".getBytes(StandardCharsets.US_ASCII);
    static final int FORMAT_VERSION = 1;
    /** Header bytes before the model id (magic .. model id length). */
    private static final int FIXED_HEADER = 8 + 4 + 4 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 16 + 2;
    private static final int MAX_MODEL_ID_BYTES = 1024;
    private static final float NEIGHBOR_OVERFLOW = 1.2f;
    private static final float ALPHA = 1.2f;

    static final VectorTypeSupport VECTORS = VectorizationProvider.getInstance().getVectorTypeSupport();
    static final VectorSimilarityFunction SIMILARITY = VectorSimilarityFunction.DOT_PRODUCT;

    /** Who a segment or manifest belongs to: the store, the embedding model and its dimension. */
    record Identity(UUID storeId, String modelId, int dimension) {
        Identity {
            if (modelId.getBytes(StandardCharsets.UTF_8).length > MAX_MODEL_ID_BYTES) {
                throw new IllegalArgumentException("model id longer than " + MAX_MODEL_ID_BYTES + " bytes: " + modelId);
            }
        }
    }

    /** Why a file cannot serve as (part of) the index; the store rebuilds it then. */
    static final class InvalidIndexException extends IOException {
        private static final long serialVersionUID = 1L;

        InvalidIndexException(String reason) {
            super(reason);
        }

        InvalidIndexException(String reason, Throwable cause) {
            super(reason, cause);
        }
    }

    private final Path file;
    private final ReaderSupplier readers;
    private final OnDiskGraphIndex graph;
    private final PQVectors codes;
    /** The walk's and the rerank's scores in plain Java, where JVector has no Vector API; else null. */
    private final ScalarScores scalar;
    /** Vector id of each ordinal. */
    private final long[] ids;
    /** The ids sorted, and the ordinal of each. */
    private final long[] sortedIds;
    /** {@code null} when the ids are ascending (the ordinal of sorted position i is i): the usual case. */
    private final int[] sortedOrdinals;
    /**
     * Whether the ids are one unbroken range (a segment written in one go, before deletes): the
     * position of an id among the sorted ones is then its distance from the first, no bisection.
     */
    private final boolean contiguous;
    private final long fileLength;
    private final int bodyCrc;
    private final AtomicInteger refs = new AtomicInteger(1);
    /**
     * Searchers kept between searches: a {@link GraphSearcher} resets itself at each search but
     * keeps the capacity of its visited set and queues, which a new one grows again (rehashing)
     * on every search. At most {@link #IDLE_SEARCHERS}; closed with the segment.
     */
    private final BlockingQueue<GraphSearcher> idleSearchers = new ArrayBlockingQueue<>(IDLE_SEARCHERS);

    private IndexSegment(Path file, ReaderSupplier readers, OnDiskGraphIndex graph, PQVectors codes, long[] ids,
                         long[] sortedIds, long fileLength, int bodyCrc) {
        this.file = file;
        this.readers = readers;
        this.graph = graph;
        this.codes = codes;
        this.scalar = codes != null && ScalarScores.wanted() ? ScalarScores.of(codes) : null;
        this.ids = ids;
        this.fileLength = fileLength;
        this.bodyCrc = bodyCrc;
        this.sortedIds = sortedIds;
        this.sortedOrdinals = sortedIds == ids ? null : ordinals(ids, sortedIds);
        int n = sortedIds.length;
        this.contiguous = n > 0 && sortedIds[n - 1] - sortedIds[0] == n - 1;
    }

    /** The position of {@code id} among {@link #sortedIds}, or a negative number when it is not there. */
    private int positionOf(long id) {
        if (contiguous) {
            long at = id - sortedIds[0];
            return at >= 0 && at < sortedIds.length ? (int) at : -1;
        }
        return Arrays.binarySearch(sortedIds, id);
    }

    /** The ordinal of each of {@code sortedIds} (the distinct {@code ids}, sorted), without boxing. */
    static int[] ordinals(long[] ids, long[] sortedIds) {
        int[] ordinals = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            ordinals[Arrays.binarySearch(sortedIds, ids[i])] = i;
        }
        return ordinals;
    }

    private int ordinalAt(int sortedPosition) {
        return sortedOrdinals == null ? sortedPosition : sortedOrdinals[sortedPosition];
    }

    Path file() {
        return file;
    }

    String name() {
        return file.getFileName().toString();
    }

    int size() {
        return ids.length;
    }

    long fileLength() {
        return fileLength;
    }

    int bodyCrc() {
        return bodyCrc;
    }

    boolean compressed() {
        return codes != null;
    }

    long maxId() {
        return sortedIds[sortedIds.length - 1];
    }

    /** The digest of the segment's ids (deleted ones included). */
    VectorDigest digest() {
        return VectorDigest.of(sortedIds);
    }

    /** The ids, sorted; a copy. */
    long[] sortedIds() {
        return sortedIds.clone();
    }

    boolean contains(long id) {
        return positionOf(id) >= 0;
    }

    /** Takes a reference for a search; false when the segment is already closed. */
    boolean tryAcquire() {
        while (true) {
            int n = refs.get();
            if (n <= 0) {
                return false;
            }
            if (refs.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    /** Gives a reference back; the last one closes the file. */
    void release() {
        if (refs.decrementAndGet() == 0) {
            try {
                // No search holds a reference any more: every searcher is idle.
                for (GraphSearcher s; (s = idleSearchers.poll()) != null; ) {
                    closeQuietly(s);
                }
                graph.close();
                readers.close();
            } catch (IOException e) {
                SegmentedIndex.LOG.debug("Cannot close {}: {}", file, e.toString());
            }
        }
    }

    /**
     * The {@code k} nearest vectors to the query among those {@code accept} admits, best first,
     * as cosine similarities. Large segments walk the graph on PQ codes and rerank {@code beam}
     * candidates with the full vectors from the file; small ones score exactly throughout.
     */
    void search(VectorFloat<?> query, int k, int beam, LongPredicate accept, SegmentedIndex.HitSink sink) {
        Bits bits = ordinal -> accept.test(ids[ordinal]);
        GraphSearcher idle = idleSearchers.poll();
        GraphSearcher searcher = idle != null ? idle : new GraphSearcher(graph);
        boolean reusable = false;
        try {
            var view = (RandomAccessVectorValues) searcher.getView();
            SearchScoreProvider scores;
            if (codes == null) {
                scores = DefaultSearchScoreProvider.exact(query, SIMILARITY, view);
            } else if (scalar != null && scalarScores) {
                float[] q = (float[]) query.get(); // the array-backed vectors of the provider without Vector API
                scores = new DefaultSearchScoreProvider(scalar.approximate(q), ScalarScores.exact(q, view));
            } else {
                scores = new DefaultSearchScoreProvider(codes.precomputedScoreFunctionFor(query, SIMILARITY),
                        view.rerankerFor(query, SIMILARITY));
            }
            SearchResult result = searcher.search(scores, Math.min(k, ids.length), Math.min(beam, ids.length), 0f, 0f,
                    bits);
            for (SearchResult.NodeScore node : result.getNodes()) {
                // JVector maps a dot product d of unit vectors to (1 + d) / 2.
                sink.offer(ids[node.node], 2.0 * node.score - 1.0);
            }
            reusable = true;
        } finally {
            // A searcher that failed half-way is not trusted again; past the limit, not kept.
            if (!reusable || !idleSearchers.offer(searcher)) {
                closeQuietly(searcher);
            }
        }
    }

    /**
     * Whether PQ segments score with {@link ScalarScores} where JVector has no Vector API (the
     * default; the system property {@code funes.scalarScores=false} turns it off, to compare).
     */
    static volatile boolean scalarScores = !"false".equals(System.getProperty("funes.scalarScores"));

    /** The segment's PQ codes, or null. For tests. */
    PQVectors codes() {
        return codes;
    }

    /** The plain-Java scores of this segment, or null when JVector scores. For tests. */
    ScalarScores scalar() {
        return scalar;
    }

    /** A view of the graph and its full vectors, to close after use. For tests. */
    OnDiskGraphIndex.View view() {
        return graph.getView();
    }

    /** Searchers an idle segment keeps: one per core of a small machine, and some. */
    static final int IDLE_SEARCHERS = 8;

    private void closeQuietly(GraphSearcher searcher) {
        try {
            searcher.close();
        } catch (IOException e) {
            SegmentedIndex.LOG.debug("Cannot close a searcher of {}: {}", file, e.toString());
        }
    }

    /**
     * Offers the {@code beam} best of {@code wanted} (those this segment holds and {@code accept}
     * admits) by their PQ codes, reranked with their full vectors: every one of them is scored,
     * where a graph walk restricted to them would visit much of the graph to meet enough of a
     * small share. A set large against the segment is met by walking the ordinals and asking the
     * set (a bit test), a small one by looking each id up. A segment without codes scores them all
     * exactly.
     */
    void scanAmong(VectorFloat<?> query, float[] queryArray, VectorIdSet wanted, int beam, LongPredicate accept,
                   SegmentedIndex.HitSink sink) {
        if (codes == null) {
            exact(queryArray, wanted, accept, sink);
            return;
        }
        boolean plain = scalar != null && scalarScores;
        ScoreFunction.ApproximateScoreFunction approximate = plain ? scalar.approximate(queryArray)
                : codes.precomputedScoreFunctionFor(query, SIMILARITY);
        // Score (never negative: (1 + d) / 2) in the high half, ordinal in the low: ordered by score.
        TopKeys best = new TopKeys(beam);
        int pool = Math.max(beam * signPoolRatio, signPoolMin);
        ScalarScores.Signs signs = plain && signScan && wanted.size() > pool ? scalar.signs() : null;
        if (signs != null) {
            // Many to score: the sign codes' estimate keeps a pool, whose PQ scores pick the beam.
            long[] q = signs.query(queryArray);
            TopKeys first = new TopKeys(pool);
            forEachWanted(wanted, accept, ordinal -> first.offer((long) signs.estimate(q, ordinal) << 32 | ordinal));
            for (long key : first.keys()) {
                int ordinal = (int) key;
                float score = Math.max(0f, approximate.similarityTo(ordinal));
                best.offer((long) Float.floatToIntBits(score) << 32 | ordinal);
            }
        } else {
            forEachWanted(wanted, accept, ordinal -> {
                float score = Math.max(0f, approximate.similarityTo(ordinal));
                best.offer((long) Float.floatToIntBits(score) << 32 | ordinal);
            });
        }
        try (var view = graph.getView()) {
            ScoreFunction.ExactScoreFunction exact = plain ? ScalarScores.exact(queryArray, view)
                    : view.rerankerFor(query, SIMILARITY);
            for (long key : best.keys()) {
                int ordinal = (int) key;
                sink.offer(ids[ordinal], 2.0 * exact.similarityTo(ordinal) - 1.0);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the index segment " + file + " failed", e);
        }
    }

    /**
     * A scan walks every ordinal (a bit test each) instead of looking each wanted id up (a
     * bisection of the sorted ids, some twenty cache misses) once the set holds at least one id
     * per this many vectors of the segment.
     */
    static final int ORDINAL_WALK_RATIO = 16;

    /**
     * Whether a scan of more vectors than its pool ranks them by their sign codes
     * first ({@link ScalarScores#signs()}; the system property {@code funes.signScan=false} turns
     * it off, to compare).
     */
    static volatile boolean signScan = !"false".equals(System.getProperty("funes.signScan"));

    /** The pool a sign-code scan keeps for PQ scoring: this many times the beam, and at least {@link #signPoolMin}. */
    static volatile int signPoolRatio = 8;

    /** The smallest pool a sign-code scan keeps; a scan of fewer vectors scores them all on their PQ codes. */
    static volatile int signPoolMin = 1000;

    /** Calls {@code action} with the ordinal of each of {@code wanted} this segment holds and {@code accept} admits. */
    private void forEachWanted(VectorIdSet wanted, LongPredicate accept, java.util.function.IntConsumer action) {
        if (contiguous) {
            // Only the set's ids in this segment's range, each at its distance from the first.
            long first = sortedIds[0];
            wanted.forEachBetween(first, sortedIds[sortedIds.length - 1], id -> {
                if (accept.test(id)) {
                    action.accept(ordinalAt((int) (id - first)));
                }
            });
        } else if ((long) wanted.size() * ORDINAL_WALK_RATIO >= ids.length) {
            for (int ordinal = 0; ordinal < ids.length; ordinal++) {
                long id = ids[ordinal];
                if (wanted.contains(id) && accept.test(id)) {
                    action.accept(ordinal);
                }
            }
        } else {
            wanted.forEach(id -> {
                int at = positionOf(id);
                if (at >= 0 && accept.test(id)) {
                    action.accept(ordinalAt(at));
                }
            });
        }
    }

    /** The {@code n} largest of the longs offered, kept in a min-heap: no sort of every score. */
    static final class TopKeys {
        private final long[] heap;
        private int size;

        TopKeys(int n) {
            heap = new long[Math.max(1, n)];
        }

        void offer(long key) {
            if (size < heap.length) {
                int i = size++;
                while (i > 0) {
                    int parent = (i - 1) >>> 1;
                    if (heap[parent] <= key) {
                        break;
                    }
                    heap[i] = heap[parent];
                    i = parent;
                }
                heap[i] = key;
            } else if (key > heap[0]) {
                int i = 0;
                while (true) {
                    int child = 2 * i + 1;
                    if (child >= size) {
                        break;
                    }
                    if (child + 1 < size && heap[child + 1] < heap[child]) {
                        child++;
                    }
                    if (heap[child] >= key) {
                        break;
                    }
                    heap[i] = heap[child];
                    i = child;
                }
                heap[i] = key;
            }
        }

        /** The keys kept, in no particular order. */
        long[] keys() {
            return Arrays.copyOf(heap, size);
        }
    }

    /** Offers the exact similarity of each of {@code wanted} this segment holds. */
    void exact(float[] query, VectorIdSet wanted, LongPredicate accept, SegmentedIndex.HitSink sink) {
        try (var view = graph.getView()) {
            wanted.forEach(id -> {
                int at = positionOf(id);
                if (at >= 0 && accept.test(id)) {
                    sink.offer(id, dot(query, view.getVector(ordinalAt(at))));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("reading the index segment " + file + " failed", e);
        }
    }

    /** Calls {@code action} with each id {@code keep} admits and its full-precision vector (a copy). */
    void forEachVector(LongPredicate keep, SegmentedIndex.VectorSink action) {
        try (var view = graph.getView()) {
            for (int ordinal = 0; ordinal < ids.length; ordinal++) {
                if (keep.test(ids[ordinal])) {
                    VectorFloat<?> v = view.getVector(ordinal);
                    float[] copy = new float[v.length()];
                    for (int i = 0; i < copy.length; i++) {
                        copy[i] = v.get(i);
                    }
                    action.accept(ids[ordinal], copy);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the index segment " + file + " failed", e);
        }
    }

    static double dot(float[] a, VectorFloat<?> b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b.get(i);
        }
        return sum;
    }

    @Override
    public String toString() {
        return name() + "[" + ids.length + (codes != null ? ", pq" : "") + "]";
    }

    // ---------------------------------------------------------------- building and writing

    /** Builds a graph over the vectors with JVector's parallel builder. */
    static ImmutableGraphIndex build(RandomAccessVectorValues values, int maxDegree, int beamWidth) {
        GraphIndexBuilder builder = GraphIndexBuilder
                .builder(BuildScoreProvider.randomAccessScoreProvider(values, SIMILARITY), values.dimension(), maxDegree)
                .withBeamWidth(beamWidth)
                .withNeighborOverflow(NEIGHBOR_OVERFLOW)
                .withAlpha(ALPHA)
                .build();
        return builder.build(values);
    }

    /** A builder for a graph grown one node at a time (the memtable). */
    static GraphIndexBuilder incrementalBuilder(RandomAccessVectorValues values, int maxDegree, int beamWidth) {
        return GraphIndexBuilder
                .builder(BuildScoreProvider.randomAccessScoreProvider(values, SIMILARITY), values.dimension(), maxDegree)
                .withBeamWidth(beamWidth)
                .withNeighborOverflow(NEIGHBOR_OVERFLOW)
                .withAlpha(ALPHA)
                .build();
    }

    /**
     * Writes a segment file atomically: a temporary file in the same directory is written,
     * forced to disk and renamed over {@code file}.
     *
     * @param ids    the vector id of each ordinal of {@code graph} and {@code values}; distinct
     * @param withPq whether to store product-quantized codes for the search to walk the graph on
     */
    static void write(Path file, Identity identity, long[] ids, RandomAccessVectorValues values,
                      ImmutableGraphIndex graph, boolean withPq) throws IOException {
        if (ids.length == 0 || ids.length != values.size()) {
            throw new IllegalArgumentException("need one vector per id, and at least one");
        }
        byte[] model = identity.modelId().getBytes(StandardCharsets.UTF_8);
        int headerLength = FIXED_HEADER + model.length + 4;
        long idsEnd = headerLength + (long) Long.BYTES * ids.length;
        long maxId = Arrays.stream(ids).max().orElseThrow();

        Path dir = file.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(dir, file.getFileName().toString() + ".", ".tmp");
        try {
            long pqOffset = 0;
            long graphOffset;
            try (var out = new CountingOutput(Files.newOutputStream(temp))) {
                out.write(new byte[headerLength]); // rewritten once the length and checksum are known
                for (long id : ids) {
                    out.writeLong(id);
                }
                if (withPq) {
                    pqOffset = out.position();
                    int subspaces = Math.max(1, identity.dimension() / 4);
                    ProductQuantization pq = ProductQuantization.compute(values, subspaces, 256, false);
                    PQVectors codes = (PQVectors) pq.encodeAll(values, ForkJoinPool.commonPool());
                    codes.write(out);
                }
                out.flush();
                graphOffset = out.position();
            }
            try (var writer = new OnDiskGraphIndexWriter.Builder(graph, temp)
                    .withStartOffset(graphOffset)
                    .with(new InlineVectors(identity.dimension()))
                    .build()) {
                writer.write(Feature.singleStateFactory(FeatureId.INLINE_VECTORS,
                        ordinal -> new InlineVectors.State(values.getVector(ordinal))));
            }
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long fileLength = channel.size();
                int bodyCrc = crc(channel, headerLength, fileLength);
                ByteBuffer header = ByteBuffer.allocate(headerLength);
                UUID storeId = identity.storeId();
                header.put(MAGIC).putInt(FORMAT_VERSION).putInt(headerLength).putInt(identity.dimension())
                      .putLong(ids.length).putLong(maxId).putLong(pqOffset).putLong(graphOffset)
                      .putLong(fileLength).putInt(bodyCrc)
                      .putLong(storeId.getMostSignificantBits()).putLong(storeId.getLeastSignificantBits())
                      .putShort((short) model.length).put(model);
                CRC32C headerCrc = new CRC32C();
                headerCrc.update(header.array(), 0, header.position());
                header.putInt((int) headerCrc.getValue()).flip();
                for (long position = 0; header.hasRemaining(); ) {
                    position += channel.write(header, position);
                }
                channel.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** A {@link DataOutputStream} that knows its position, as JVector's writers want. */
    private static final class CountingOutput extends DataOutputStream implements IndexWriter {
        CountingOutput(OutputStream out) {
            super(new java.io.BufferedOutputStream(out, 1 << 16));
        }

        @Override
        public long position() {
            int n = size();
            if (n == Integer.MAX_VALUE) {
                throw new IllegalStateException("segment prefix too large");
            }
            return n;
        }
    }

    static void syncDirectory(Path dir) {
        // Makes the rename durable on Linux; other systems may refuse to open a directory, and the
        // index is derived anyway, so a lost rename only costs a rebuild.
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // best effort
        }
    }

    private static int crc(FileChannel channel, long from, long to) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
        long position = from;
        while (position < to) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), to - position));
            int read = channel.read(buffer, position);
            if (read < 0) {
                throw new IOException("unexpected end of file at " + position);
            }
            buffer.flip();
            crc.update(buffer);
            position += read;
        }
        return (int) crc.getValue();
    }

    // ---------------------------------------------------------------- loading

    /**
     * Loads and validates a segment file: magic, format version, header checksum, store, model,
     * length, body checksum, the id map, the PQ codes and the JVector graph's own header.
     * Everything is read through one mapping of the file.
     *
     * @throws InvalidIndexException with the reason when the file is missing, unreadable,
     *                               corrupt, of another format version, store or model
     */
    static IndexSegment load(Path file, Identity identity) throws InvalidIndexException {
        return load(file, identity, null);
    }

    /**
     * {@link #load(Path, Identity)}, but the body checksum (a read of the whole file) is skipped
     * when {@code verified} records the file unchanged since it was last verified, and recorded
     * there after it is verified.
     */
    static IndexSegment load(Path file, Identity identity, VerifiedSegments verified) throws InvalidIndexException {
        VerifiedSegments.Stamp before = verified == null ? null : VerifiedSegments.stampOf(file, 0);
        long started = System.currentTimeMillis();
        ReaderSupplier readers;
        try {
            readers = new MappedReaders(file);
        } catch (NoSuchFileException e) {
            throw new InvalidIndexException("index file missing");
        } catch (AccessDeniedException e) {
            throw new InvalidIndexException("index file unreadable (access denied)", e);
        } catch (IOException e) {
            throw new InvalidIndexException("index file unreadable (" + e + ")", e);
        }
        try {
            return validate(file, readers, identity, verified, before, started);
        } catch (IOException | RuntimeException e) {
            try {
                readers.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof InvalidIndexException invalid) {
                throw invalid;
            }
            throw new InvalidIndexException("index file unreadable (" + e + ")", e);
        }
    }

    private static IndexSegment validate(Path file, ReaderSupplier readers, Identity identity,
                                         VerifiedSegments verified, VerifiedSegments.Stamp before, long started)
            throws IOException {
        long[] ids;
        long pqOffset;
        long graphOffset;
        long fileLength;
        int bodyCrc;
        PQVectors codes = null;
        try (RandomAccessReader in = readers.get()) {
            fileLength = in.length();
            if (fileLength < FIXED_HEADER + 4) {
                throw new InvalidIndexException("index file truncated (" + fileLength + " bytes)");
            }
            byte[] fixed = new byte[FIXED_HEADER];
            in.seek(0);
            in.readFully(fixed);
            ByteBuffer h = ByteBuffer.wrap(fixed);
            byte[] magic = new byte[MAGIC.length];
            h.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new InvalidIndexException("not a Funes index file (bad magic)");
            }
            int version = h.getInt();
            if (version != FORMAT_VERSION) {
                throw new InvalidIndexException("index format version " + version + ", this Funes writes version "
                        + FORMAT_VERSION);
            }
            int headerLength = h.getInt();
            int fileDimension = h.getInt();
            long count = h.getLong();
            long maxId = h.getLong();
            pqOffset = h.getLong();
            graphOffset = h.getLong();
            long recordedLength = h.getLong();
            bodyCrc = h.getInt();
            UUID fileStoreId = new UUID(h.getLong(), h.getLong());
            int modelLength = Short.toUnsignedInt(h.getShort());
            if (modelLength > MAX_MODEL_ID_BYTES || headerLength != FIXED_HEADER + modelLength + 4
                    || headerLength > fileLength) {
                throw new InvalidIndexException("index header corrupt (bad lengths)");
            }
            byte[] model = new byte[modelLength];
            in.readFully(model);
            int headerCrc = in.readInt();
            CRC32C crc = new CRC32C();
            crc.update(fixed);
            crc.update(model);
            if ((int) crc.getValue() != headerCrc) {
                throw new InvalidIndexException("index header checksum mismatch");
            }
            if (recordedLength != fileLength) {
                throw new InvalidIndexException("index file truncated or extended (" + fileLength + " bytes, header says "
                        + recordedLength + ")");
            }
            if (!fileStoreId.equals(identity.storeId())) {
                throw new InvalidIndexException("index file belongs to another store (" + fileStoreId + ")");
            }
            String fileModel = new String(model, StandardCharsets.UTF_8);
            if (!fileModel.equals(identity.modelId()) || fileDimension != identity.dimension()) {
                throw new InvalidIndexException("index built for model " + fileModel + " (" + fileDimension
                        + " dimensions), the store uses " + identity.modelId() + " (" + identity.dimension() + ")");
            }
            long idsEnd = headerLength + Long.BYTES * count;
            if (count < 1 || count > Integer.MAX_VALUE || graphOffset < idsEnd || graphOffset >= fileLength
                    || (pqOffset != 0 && (pqOffset != idsEnd || pqOffset >= graphOffset))) {
                throw new InvalidIndexException("index header corrupt (bad vector count " + count + ")");
            }
            if (verified == null || !verified.unchanged(file, bodyCrc)) {
                if (bodyChecksum(in, headerLength, fileLength) != bodyCrc) {
                    throw new InvalidIndexException("index file checksum mismatch (corrupt)");
                }
                if (verified != null && before != null) {
                    verified.verified(file, before.withBodyCrc(bodyCrc), started);
                }
            }
            ids = new long[(int) count];
            in.seek(headerLength);
            in.readFully(ids);
            long seenMax = Long.MIN_VALUE;
            for (long id : ids) {
                seenMax = Math.max(seenMax, id);
            }
            if (seenMax != maxId) {
                throw new InvalidIndexException("index id map corrupt (max id " + seenMax + " != " + maxId + ")");
            }
            if (pqOffset != 0) {
                codes = PQVectors.load(in, pqOffset);
                if (codes.count() != count) {
                    throw new InvalidIndexException("index PQ codes corrupt (" + codes.count() + " codes, " + count
                            + " ids)");
                }
            }
        }
        boolean ascending = true;
        for (int i = 1; i < ids.length && ascending; i++) {
            ascending = ids[i - 1] < ids[i];
        }
        long[] sorted = ids;
        if (!ascending) { // a merged segment: sorted runs
            sorted = ids.clone();
            Arrays.sort(sorted);
            for (int i = 1; i < sorted.length; i++) {
                if (sorted[i] == sorted[i - 1]) {
                    throw new InvalidIndexException("index id map corrupt (id " + sorted[i] + " twice)");
                }
            }
        }
        OnDiskGraphIndex graph = OnDiskGraphIndex.load(readers, graphOffset);
        if (graph.size(0) != ids.length || graph.getIdUpperBound() != ids.length
                || graph.getDimension() != identity.dimension()) {
            graph.close();
            throw new InvalidIndexException("index graph does not match its header (" + graph.size(0) + " nodes, "
                    + ids.length + " ids)");
        }
        return new IndexSegment(file, readers, graph, codes, ids, sorted, fileLength, bodyCrc);
    }

    private static int bodyChecksum(RandomAccessReader in, long from, long to) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] chunk = new byte[1 << 20];
        in.seek(from);
        for (long position = from; position < to; ) {
            int n = (int) Math.min(chunk.length, to - position);
            byte[] target = n == chunk.length ? chunk : new byte[n];
            in.readFully(target);
            crc.update(target, 0, n);
            position += n;
        }
        return (int) crc.getValue();
    }
}
