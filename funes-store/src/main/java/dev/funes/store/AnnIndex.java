package dev.funes.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The dense side of the store: the ANN graph derived from the vectors in SQLite, plus the
 * "fresh" vectors added since the graph was built, which are searched exactly.
 *
 * <p>State is an immutable {@link State} in a volatile field, replaced as a whole: a search reads
 * one consistent graph and fresh set. Transitions (adding fresh vectors, catching up with vectors
 * another process wrote, swapping in a rebuilt graph) are serialized by a mutex. A retired graph
 * is closed only after the searches that may still use it have finished ({@link #graphLock}).
 *
 * <p>Invariant: every vector in SQLite with an id up to {@link State#maxKnownId} is in the graph
 * (id up to the graph's max) or in the fresh set, unless it was deleted since.
 */
final class AnnIndex implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AnnIndex.class);

    /** A vector and its id. */
    record Entry(long id, float[] vector) {
    }

    /** What {@link #open} did. */
    record Outcome(boolean rebuilt, String reason, int graphVectors, int freshVectors) {
    }

    private record State(AnnGraph graph, List<Entry> fresh, long maxKnownId, boolean deletedSinceBuild) {
        int graphSize() {
            return graph == null ? 0 : graph.size();
        }
    }

    private final Path file;
    private final UUID storeId;
    private final String modelId;
    private final int dimension;
    private final int freshLimit;
    private final Object mutex = new Object();
    /** Searches hold the read lock while they use a graph; retiring a graph waits for the write lock. */
    private final ReentrantReadWriteLock graphLock = new ReentrantReadWriteLock();
    private volatile State state = new State(null, List.of(), 0, false);

    AnnIndex(Path file, UUID storeId, String modelId, int dimension, int freshLimit) {
        this.file = file;
        this.storeId = storeId;
        this.modelId = modelId;
        this.dimension = dimension;
        this.freshLimit = freshLimit;
    }

    /**
     * Loads the index file, or rebuilds it from the vectors in SQLite when it is missing,
     * unreadable, corrupt, of another model or store, or stale.
     */
    Outcome open(Connection db) throws SQLException, IOException {
        long vectors = count(db, Long.MAX_VALUE);
        if (vectors == 0) {
            if (Files.deleteIfExists(file)) {
                LOG.info("Removed the ANN index {}: the store has no vectors", file);
            }
            return new Outcome(false, null, 0, 0);
        }
        String reason;
        try {
            AnnGraph graph = AnnGraph.load(file, storeId, modelId, dimension);
            long covered = count(db, graph.maxVectorId());
            if (covered == graph.size()) {
                List<Entry> fresh = loadAfter(db, graph.maxVectorId());
                long maxKnown = fresh.isEmpty() ? graph.maxVectorId() : fresh.get(fresh.size() - 1).id();
                state = new State(graph, List.copyOf(fresh), maxKnown, false);
                if (!needsRebuild()) {
                    return new Outcome(false, null, graph.size(), fresh.size());
                }
                reason = fresh.size() + " vectors were added since the index was built";
            } else {
                graph.close();
                reason = "index is stale: it holds " + graph.size() + " vectors up to id " + graph.maxVectorId()
                        + ", the database has " + covered;
            }
        } catch (AnnGraph.InvalidIndexException e) {
            reason = e.getMessage();
        }
        LOG.info("Rebuilding the ANN index {} from SQLite: {}", file, reason);
        try {
            rebuild(db);
        } catch (IOException e) {
            // The index is derived: without a file, every vector is searched exactly until a
            // later rebuild succeeds. Slower, never wrong.
            LOG.warn("Cannot write the ANN index {} ({}); searching all vectors exactly", file, e.toString());
            AnnGraph old;
            synchronized (mutex) {
                old = state.graph();
                List<Entry> all = loadAfter(db, 0);
                state = new State(null, List.copyOf(all), all.isEmpty() ? 0 : all.get(all.size() - 1).id(), false);
            }
            retire(old);
            reason = reason + "; rebuild failed: " + e.getMessage();
        }
        State s = state;
        return new Outcome(true, reason, s.graphSize(), s.fresh().size());
    }

    /** Records vectors just committed by this process. */
    void added(List<Entry> entries) {
        synchronized (mutex) {
            State s = state;
            List<Entry> fresh = new ArrayList<>(s.fresh());
            long maxKnown = s.maxKnownId();
            for (Entry e : entries) {
                if (e.id() > maxKnown) {
                    fresh.add(e);
                    maxKnown = e.id();
                }
            }
            state = new State(s.graph(), List.copyOf(fresh), maxKnown, s.deletedSinceBuild());
        }
    }

    /** Records a vector just deleted by this process. */
    void removed(long vectorId) {
        synchronized (mutex) {
            State s = state;
            List<Entry> fresh = new ArrayList<>(s.fresh());
            fresh.removeIf(e -> e.id() == vectorId);
            boolean inGraph = s.graph() != null && s.graph().contains(vectorId);
            state = new State(s.graph(), List.copyOf(fresh), s.maxKnownId(), s.deletedSinceBuild() || inGraph);
        }
    }

    /** The largest vector id searches already consider. */
    long maxKnownId() {
        return state.maxKnownId();
    }

    /**
     * Loads vectors with ids above {@link #maxKnownId()} (written by another process, or by this
     * one a moment ago) into the fresh set, reading through the given connection's snapshot.
     */
    void catchUp(Connection db) throws SQLException {
        synchronized (mutex) {
            State s = state;
            List<Entry> newer = loadAfter(db, s.maxKnownId());
            if (newer.isEmpty()) {
                return;
            }
            List<Entry> fresh = new ArrayList<>(s.fresh());
            fresh.addAll(newer);
            state = new State(s.graph(), List.copyOf(fresh), newer.get(newer.size() - 1).id(), s.deletedSinceBuild());
        }
    }

    /** Whether enough fresh vectors piled up to make a graph rebuild worth it. */
    boolean needsRebuild() {
        State s = state;
        return s.fresh().size() > Math.max(freshLimit, s.graphSize() / 4);
    }

    /** Whether the file on disk no longer matches the vectors (fresh or deleted ones). */
    boolean dirty() {
        State s = state;
        return !s.fresh().isEmpty() || s.deletedSinceBuild();
    }

    /**
     * Builds a new graph over all vectors in SQLite, writes it atomically, loads it and swaps it
     * in. Searches keep running on the old graph meanwhile.
     */
    void rebuild(Connection db) throws SQLException, IOException {
        List<Entry> all = loadAfter(db, 0);
        long started = System.nanoTime();
        AnnGraph graph = null;
        if (!all.isEmpty()) {
            long[] ids = new long[all.size()];
            List<float[]> vectors = new ArrayList<>(all.size());
            for (int i = 0; i < ids.length; i++) {
                ids[i] = all.get(i).id();
                vectors.add(all.get(i).vector());
            }
            AnnGraph.write(file, storeId, modelId, dimension, ids, vectors);
            try {
                graph = AnnGraph.load(file, storeId, modelId, dimension);
            } catch (AnnGraph.InvalidIndexException e) {
                throw new IOException("the ANN index just written to " + file + " does not load: " + e.getMessage(), e);
            }
        } else {
            Files.deleteIfExists(file);
        }
        long graphMax = all.isEmpty() ? 0 : all.get(all.size() - 1).id();
        AnnGraph retired;
        synchronized (mutex) {
            State s = state;
            retired = s.graph();
            List<Entry> fresh = new ArrayList<>(s.fresh());
            fresh.removeIf(e -> e.id() <= graphMax);
            state = new State(graph, List.copyOf(fresh), Math.max(s.maxKnownId(), graphMax), false);
        }
        LOG.debug("Built the ANN index {} over {} vectors in {} ms", file, all.size(),
                (System.nanoTime() - started) / 1_000_000);
        retire(retired);
    }

    private void retire(AnnGraph graph) throws IOException {
        if (graph == null) {
            return;
        }
        graphLock.writeLock().lock(); // waits until no search can still be using it
        try {
            graph.close();
        } finally {
            graphLock.writeLock().unlock();
        }
    }

    /**
     * The {@code k} vectors most similar to the query, among those {@code allowed} admits (all
     * when {@code null}), best first: graph candidates and an exact scan of the fresh vectors.
     */
    List<AnnGraph.Scored> search(float[] query, int k, VectorIdSet allowed) {
        TopK top = new TopK(k);
        graphLock.readLock().lock();
        try {
            State s = state;
            if (s.graph() != null) {
                top.offerAll(s.graph().search(query, k, allowed));
            }
            for (Entry e : s.fresh()) {
                if (allowed == null || allowed.contains(e.id())) {
                    top.offer(e.id(), dot(query, e.vector()));
                }
            }
        } finally {
            graphLock.readLock().unlock();
        }
        return top.sorted();
    }

    int graphSize() {
        return state.graphSize();
    }

    /** Size of the index file, 0 when there is none. */
    long fileBytes() {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    /** Closes the graph; searches must have ended. */
    @Override
    public void close() throws IOException {
        AnnGraph graph;
        synchronized (mutex) {
            graph = state.graph();
            state = new State(null, List.of(), 0, false);
        }
        retire(graph);
    }

    private static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }

    private static long count(Connection db, long maxId) throws SQLException {
        try (PreparedStatement ps = db.prepareStatement("SELECT count(*) FROM vectors WHERE id <= ?")) {
            ps.setLong(1, maxId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private List<Entry> loadAfter(Connection db, long afterId) throws SQLException {
        List<Entry> entries = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT id, embedding FROM vectors WHERE id > ? ORDER BY id")) {
            ps.setLong(1, afterId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    long id = rs.getLong(1);
                    entries.add(new Entry(id, Rows.vector(rs.getBytes(2), dimension, id)));
                }
            }
        }
        return entries;
    }

    /** The highest vector id in the database as the connection sees it, 0 when there is none. */
    static long maxVectorId(Connection db) throws SQLException {
        try (Statement s = db.createStatement(); ResultSet rs = s.executeQuery("SELECT max(id) FROM vectors")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    @Override
    public String toString() {
        State s = state;
        return "AnnIndex[" + file + ", graph " + s.graphSize() + ", fresh " + s.fresh().size() + ", max id "
                + s.maxKnownId() + (s.deletedSinceBuild() ? ", deletions" : "") + "]";
    }
}
