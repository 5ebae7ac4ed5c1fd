package dev.funes.store;

import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.GraphSearcher;
import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.SearchResult;
import io.github.jbellis.jvector.graph.similarity.DefaultSearchScoreProvider;
import io.github.jbellis.jvector.util.Bits;
import io.github.jbellis.jvector.vector.types.VectorFloat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.LongPredicate;

/**
 * The mutable in-memory graph of a {@link SegmentedIndex}: vectors appended under the index's
 * mutex, searched concurrently. {@link #finish()} (before sealing) takes the write lock, searches
 * the read lock.
 */
final class Memtable {
    private static final int CHUNK = 1024;
    private final int dimension;
    private final SegmentedIndex.Options options;
    private volatile VectorFloat<?>[][] vectorChunks = new VectorFloat<?>[16][];
    private volatile long[][] idChunks = new long[16][];
    private volatile int size;
    private final ConcurrentHashMap<Long, Integer> ordinals = new ConcurrentHashMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final Values values = new Values();
    private GraphIndexBuilder builder;
    /** Whether a seal of this memtable is queued; guarded by the index's mutex. */
    boolean queued;
    /** Whether a thread is writing this memtable as a segment now; guarded by the index's mutex. */
    boolean writing;

    Memtable(int dimension, SegmentedIndex.Options options) {
        this.dimension = dimension;
        this.options = options;
    }

    /** The vectors by ordinal, as JVector reads them. */
    private final class Values implements RandomAccessVectorValues {
        @Override
        public int size() {
            return size;
        }

        @Override
        public int dimension() {
            return dimension;
        }

        @Override
        public VectorFloat<?> getVector(int ordinal) {
            return vectorChunks[ordinal / CHUNK][ordinal % CHUNK];
        }

        @Override
        public boolean isValueShared() {
            return false;
        }

        @Override
        public RandomAccessVectorValues copy() {
            return this;
        }
    }

    int size() {
        return size;
    }

    boolean contains(long id) {
        return ordinals.containsKey(id);
    }

    long idAt(int ordinal) {
        return idChunks[ordinal / CHUNK][ordinal % CHUNK];
    }

    /** Appends; the caller serializes calls. */
    void add(long id, float[] vector) {
        int ordinal = size;
        int chunk = ordinal / CHUNK;
        if (chunk == vectorChunks.length) {
            vectorChunks = Arrays.copyOf(vectorChunks, chunk * 2);
            idChunks = Arrays.copyOf(idChunks, chunk * 2);
        }
        if (vectorChunks[chunk] == null) {
            vectorChunks[chunk] = new VectorFloat<?>[CHUNK];
            idChunks[chunk] = new long[CHUNK];
        }
        VectorFloat<?> v = IndexSegment.VECTORS.createFloatVector(vector);
        vectorChunks[chunk][ordinal % CHUNK] = v;
        idChunks[chunk][ordinal % CHUNK] = id;
        if (builder == null) {
            builder = IndexSegment.incrementalBuilder(values, options.maxDegree(), options.beamWidth());
        }
        size = ordinal + 1;
        builder.addGraphNode(ordinal, v);
        ordinals.put(id, ordinal);
    }

    /** The vector of an id (a copy), or {@code null}. */
    /** Each id this memtable holds, in no particular order. */
    void forEachId(LongConsumer action) {
        for (Long id : ordinals.keySet()) {
            action.accept(id);
        }
    }

    float[] vector(long id) {
        Integer ordinal = ordinals.get(id);
        return ordinal == null ? null : copy(values.getVector(ordinal));
    }

    private static float[] copy(VectorFloat<?> v) {
        float[] out = new float[v.length()];
        for (int i = 0; i < out.length; i++) {
            out[i] = v.get(i);
        }
        return out;
    }

    void forEach(SegmentedIndex.VectorSink action) {
        int n = size;
        for (int i = 0; i < n; i++) {
            action.accept(idAt(i), copy(values.getVector(i)));
        }
    }

    void search(VectorFloat<?> query, int k, int beam, LongPredicate accept, SegmentedIndex.HitSink sink) {
        int n = ordinals.size(); // nodes fully added
        if (n == 0) {
            return;
        }
        lock.readLock().lock();
        try {
            Bits bits = ordinal -> accept.test(idAt(ordinal));
            try (GraphSearcher searcher = new GraphSearcher(builder.getGraph())) {
                var scores = DefaultSearchScoreProvider.exact(query, IndexSegment.SIMILARITY, values);
                SearchResult result = searcher.search(scores, Math.min(k, n), Math.min(beam, n), 0f, 0f, bits);
                for (SearchResult.NodeScore node : result.getNodes()) {
                    sink.offer(idAt(node.node), 2.0 * node.score - 1.0);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Completes the graph before it is written; no more adds come. */
    void finish() {
        lock.writeLock().lock();
        try {
            builder.cleanup();
        } finally {
            lock.writeLock().unlock();
        }
    }

    long[] ids() {
        int n = size;
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = idAt(i);
        }
        return ids;
    }

    RandomAccessVectorValues values() {
        return values;
    }

    ImmutableGraphIndex graph() {
        return builder.getGraph();
    }
}
