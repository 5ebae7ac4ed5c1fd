package dev.funes.store;

import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.SearchRequest;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.Predicate;

/**
 * {@link StoreVectors} over a {@link SqliteMemoryStore}.
 *
 * <p>A caller's vector is stored in the {@code vectors} table like an embedding, keyed by
 * {@value #KEY_PREFIX} and the SHA-256 of its bytes instead of the SHA-256 of a text (so it never
 * collides with one, and equal vectors are stored once); the memory's {@code content_hash} holds
 * the same key. The ANN index takes these vectors like any other.
 */
final class CallerVectors implements StoreVectors {

    /** Marks the key of a caller-supplied vector; a text's key is 64 hex digits. */
    static final String KEY_PREFIX = "vector:";
    private static final double UNIT_TOLERANCE = 1e-3;

    private final StoreDatabase db;
    private final MemoryWriter writes;
    private final int dimension;

    CallerVectors(SqliteMemoryStore store) {
        this.db = store.database();
        this.writes = store.writes();
        this.dimension = store.dimension();
    }

    @Override
    public int dimension() {
        return dimension;
    }

    @Override
    public AddResult put(List<Memory> memories, List<float[]> vectors) {
        Objects.requireNonNull(memories, "memories");
        Objects.requireNonNull(vectors, "vectors");
        if (memories.size() != vectors.size()) {
            throw new IllegalArgumentException(memories.size() + " memories but " + vectors.size() + " vectors");
        }
        Map<String, Memory> byId = new LinkedHashMap<>();
        Map<String, float[]> vectorOf = new HashMap<>();
        for (int i = 0; i < memories.size(); i++) {
            // Redacted like every memory the store takes; an id given by the caller is kept.
            Memory m = writes.redacted(Objects.requireNonNull(memories.get(i), "memory"));
            byId.remove(m.id()); // the last one wins, in its own position
            byId.put(m.id(), m);
            vectorOf.put(m.id(), unitOrAsIs(vectors.get(i), "the vector of memory " + m.id()));
        }
        if (byId.isEmpty()) {
            return AddResult.NONE;
        }
        record Written(int count, List<SegmentedIndex.Entry> added, List<Long> deleted) {
        }
        Written written = db.transaction("store " + byId.size() + " memories with their vectors", writer -> {
            List<SegmentedIndex.Entry> added = new ArrayList<>();
            List<Long> deleted = new ArrayList<>();
            Set<List<String>> sessions = new LinkedHashSet<>();
            Instant now = Instant.now();
            try (PreparedStatement findVector = writer.prepareStatement("SELECT id FROM vectors WHERE content_hash = ?");
                 PreparedStatement insertVector = writer.prepareStatement(
                         "INSERT INTO vectors (content_hash, embedding) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
                 PreparedStatement insertMemory = writer.prepareStatement(Rows.INSERT_MEMORY)) {
                for (Memory m : byId.values()) {
                    long gone = writes.deleteRow(m.id(), null);
                    if (gone >= 0) {
                        deleted.add(gone);
                    }
                    float[] vector = vectorOf.get(m.id());
                    byte[] bytes = Rows.vectorBytes(vector);
                    String key = key(bytes);
                    long vectorId;
                    findVector.setString(1, key);
                    try (ResultSet rs = findVector.executeQuery()) {
                        vectorId = rs.next() ? rs.getLong(1) : -1;
                    }
                    if (vectorId < 0) {
                        insertVector.setString(1, key);
                        insertVector.setBytes(2, bytes);
                        insertVector.executeUpdate();
                        try (ResultSet keys = insertVector.getGeneratedKeys()) {
                            keys.next();
                            vectorId = keys.getLong(1);
                        }
                        added.add(new SegmentedIndex.Entry(vectorId, vector));
                    }
                    Rows.bindMemory(insertMemory, m, m.contentHash(), vectorId, now);
                    insertMemory.setString(16, key); // content_hash names the vector, not the text
                    insertMemory.executeUpdate();
                    writes.inserted(m);
                    if (m.session() != null) {
                        sessions.add(List.of(m.agent(), m.session()));
                    }
                }
            }
            for (List<String> session : sessions) {
                writes.refreshSession(session.get(0), session.get(1));
            }
            return new Written(byId.size(), added, deleted);
        }, w -> writes.vectorsChanged(w.added(), w.deleted()));
        return new AddResult(written.count(), 0, 0);
    }

    @Override
    public List<VectorHit> search(VectorQuery query) {
        Objects.requireNonNull(query, "query");
        float[] q = query.vector();
        double queryNorm = norm(checked(q, "the query vector"));
        SqlFilter filter = filter(query.filters());
        record Candidate(long seq, double similarity, Memory memory, float[] vector) {
        }
        // Worst first: the head is the one to drop.
        Comparator<Candidate> worstFirst = Comparator.comparingDouble(Candidate::similarity)
                .thenComparing(Comparator.comparingLong(Candidate::seq).reversed());
        List<Candidate> best = db.read("search by vector", c -> {
            PriorityQueue<Candidate> top = new PriorityQueue<>(worstFirst);
            String sql = "SELECT " + Rows.MEMORY_COLUMNS + ", v.embedding FROM memories m"
                    + " JOIN vectors v ON v.id = m.vector_id WHERE 1 = 1" + filter.sql() + " ORDER BY m.seq";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                filter.bind(ps, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        long vectorId = rs.getLong(17);
                        float[] v = Rows.vector(rs.getBytes(18), q.length, vectorId);
                        double similarity = cosine(q, queryNorm, v);
                        if (similarity < query.minSimilarity()) {
                            continue;
                        }
                        // Rows come in storage order, so an equal similarity arriving later loses.
                        if (top.size() == query.limit() && similarity <= top.peek().similarity()) {
                            continue;
                        }
                        // Only now is the row worth reading as a memory (its JSON columns).
                        Memory m = Rows.memory(rs).memory();
                        if (!passes(query.filters(), query.where(), m)) {
                            continue;
                        }
                        top.add(new Candidate(rs.getLong(1), similarity, m, v));
                        if (top.size() > query.limit()) {
                            top.poll();
                        }
                    }
                }
            }
            List<Candidate> ordered = new ArrayList<>(top);
            ordered.sort(worstFirst.reversed());
            return ordered;
        });
        List<VectorHit> hits = new ArrayList<>(best.size());
        for (Candidate candidate : best) {
            hits.add(new VectorHit(candidate.memory(), candidate.similarity(), candidate.vector()));
        }
        return hits;
    }

    @Override
    public List<Memory> scan(SearchRequest filters, Predicate<Memory> where) {
        SqlFilter filter = filter(filters);
        return db.read("list memories", c -> {
            List<Memory> found = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT " + Rows.MEMORY_COLUMNS
                    + " FROM memories m WHERE 1 = 1" + filter.sql() + " ORDER BY m.seq")) {
                filter.bind(ps, 1);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Memory m = Rows.memory(rs).memory();
                        if (passes(filters, where, m)) {
                            found.add(m);
                        }
                    }
                }
            }
            return found;
        });
    }

    @Override
    public int delete(Collection<String> ids) {
        Objects.requireNonNull(ids, "ids");
        Set<String> distinct = new LinkedHashSet<>();
        for (String id : ids) {
            distinct.add(Objects.requireNonNull(id, "id"));
        }
        if (distinct.isEmpty()) {
            return 0;
        }
        record Deleted(int count, List<Long> vectors) {
        }
        Deleted deleted = db.transaction("delete " + distinct.size() + " memories", writer -> {
            int count = 0;
            List<Long> vectors = new ArrayList<>();
            for (String id : distinct) {
                long gone = writes.deleteRow(id, Instant.now());
                if (gone != MemoryWriter.NO_ROW) {
                    count++;
                }
                if (gone >= 0) {
                    vectors.add(gone);
                }
            }
            return new Deleted(count, vectors);
        }, d -> writes.vectorsChanged(List.of(), d.vectors()));
        return deleted.count();
    }

    private static boolean passes(SearchRequest filters, Predicate<Memory> where, Memory m) {
        return (filters == null || filters.matches(m)) && (where == null || where.test(m));
    }

    private static SqlFilter filter(SearchRequest filters) {
        return filters == null ? new SqlFilter("", List.of()) : SqlFilter.of(filters);
    }

    /** The vector as given when it has unit length, else scaled to it. */
    private float[] unitOrAsIs(float[] vector, String what) {
        double norm = norm(checked(vector, what));
        if (Math.abs(norm - 1) <= UNIT_TOLERANCE) {
            return vector.clone();
        }
        float[] unit = new float[vector.length];
        for (int i = 0; i < vector.length; i++) {
            unit[i] = (float) (vector[i] / norm);
        }
        return unit;
    }

    private float[] checked(float[] vector, String what) {
        Objects.requireNonNull(vector, what);
        if (vector.length != dimension) {
            throw new IllegalArgumentException(what + " has " + vector.length + " dimensions; this store holds vectors of "
                    + dimension);
        }
        for (float f : vector) {
            if (!Float.isFinite(f)) {
                throw new IllegalArgumentException(what + " holds " + f);
            }
        }
        if (norm(vector) == 0) {
            throw new IllegalArgumentException(what + " is all zeros: it has no direction to compare");
        }
        return vector;
    }

    private static double norm(float[] v) {
        double sum = 0;
        for (float f : v) {
            sum += (double) f * f;
        }
        return Math.sqrt(sum);
    }

    private static double cosine(float[] q, double queryNorm, float[] v) {
        double dot = 0;
        double sum = 0;
        for (int i = 0; i < q.length; i++) {
            dot += (double) q[i] * v[i];
            sum += (double) v[i] * v[i];
        }
        double similarity = dot / (queryNorm * Math.sqrt(sum));
        return Math.max(-1, Math.min(1, similarity));
    }

    private static String key(byte[] bytes) {
        return KEY_PREFIX + Sha256.hex(bytes);
    }
}
