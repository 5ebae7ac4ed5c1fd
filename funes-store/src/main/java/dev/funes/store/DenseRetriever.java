package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.funes.Memory;
import dev.funes.SearchRequest;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The dense side of a search: the query embedded, the nearest vectors found in the dense index
 * ({@link StoreIndex}) and the memories of those vectors read. A filter few memories pass is
 * applied before the search, through the vectors it passes; one that many pass, after a wider
 * unfiltered search ({@link #wideCandidates}), since reading the vectors it passes first would
 * read much of the store.
 */
final class DenseRetriever {

    /**
     * A store of fewer rows than this reads the vectors passing a filter outright (milliseconds);
     * a larger one first estimates how many pass ({@link #wideCandidates}).
     */
    static final long WIDE_FILTER_MIN_ROWS = 8_192;

    /** Rows sampled to estimate the share of memories passing a filter. */
    static final int FILTER_SAMPLE = 256;

    /** A wide dense search asks for this many times {@code k} over the estimated share passing. */
    static final double WIDE_MARGIN = 1.5;

    /** A wide dense search asks for at most this many times {@code k} (a share of 15% or more). */
    static final int WIDE_MAX_FACTOR = 10;

    /**
     * A second wide search, sized by the share passing among the first one's vectors (the
     * query's neighbourhood may hold far fewer than the store), asks for at most this many times
     * {@code k}.
     */
    static final int WIDE_RETRY_MAX_FACTOR = 40;

    private final StoreIndex ann;
    private final Embedder embedder;
    private final String modelId;
    private final int dimension;
    private final SearchTuning tuning;
    private final AtomicLong wideSearches = new AtomicLong();
    private final AtomicLong wideRetries = new AtomicLong();
    private final AtomicLong wideFallbacks = new AtomicLong();
    private final AtomicLong allowedReads = new AtomicLong();
    private final AtomicLong sampleReads = new AtomicLong();

    /** Allowed sets kept per read connection (a few filters each). */
    static final int ALLOWED_SETS_KEPT = 8;

    /**
     * The allowed sets and share samples ({@link #wideCandidates}) a read connection has read,
     * with its {@code PRAGMA data_version} then. A
     * read connection never writes, so the version changes exactly when another connection (this
     * process's writer or another process) has committed since: a memory added, forgotten or
     * moved may change which vectors a filter passes, and the sets are read again.
     */
    private record AllowedSets(long dataVersion, Map<SqlFilter, Allowed> sets, Map<SqlFilter, double[]> samples) {
    }

    /** What a filter passes: the vectors of the memories (for the dense side) and their rows (for the lexical side). */
    record Allowed(VectorIdSet vectors, VectorIdSet rows) {
    }

    private final Map<Connection, AllowedSets> allowedSets = new java.util.concurrent.ConcurrentHashMap<>();

    DenseRetriever(StoreIndex ann, Embedder embedder, SearchTuning tuning) {
        this.ann = ann;
        this.embedder = embedder;
        this.modelId = embedder.modelId();
        this.dimension = embedder.dimension();
        this.tuning = tuning;
    }

    /** The dense index. For tests. */
    StoreIndex index() {
        return ann;
    }

    /** Whether the dense index is open: one opened on first use may not be yet. */
    boolean indexOpen() {
        return ann.isOpen();
    }

    /** Brings the dense index up to what this read transaction sees (vectors committed since, a new manifest). */
    void catchUp(Connection c) throws SQLException {
        ann.catchUp(c);
    }

    /** The {@code wide} nearest vectors, unfiltered, of which the caller keeps what passes ({@link #filterWide}). */
    List<SegmentedIndex.Hit> searchWide(float[] query, int wide, int k) {
        return ann.searchWide(query, wide, k);
    }

    /**
     * Dense searches done wide so far, how many of them searched wider a second time, and how many
     * fell back to the filtered search. For tests.
     */
    long[] wideSearches() {
        return new long[] {wideSearches.get(), wideRetries.get(), wideFallbacks.get()};
    }

    float[] embedQuery(SearchRequest request) {
        float[] query = embedder.embedQuery(request.query());
        if (query == null || query.length != dimension) {
            throw new EmbeddingException("the embedder " + modelId + " returned a query vector of length "
                    + (query == null ? 0 : query.length) + ", expected " + dimension);
        }
        return query;
    }

    /** The dense candidates among the allowed vectors (all: null); none when the filters leave none. */
    List<SegmentedIndex.Hit> candidates(float[] query, VectorIdSet allowed, int k) {
        if (allowed != null && allowed.size() == 0) {
            return List.of();
        }
        return ann.search(query, k, allowed);
    }

    /**
     * The first {@code k} of a wide search's vectors that have a memory passing the filter (as
     * {@link #readAllowed} decides), best first. When fewer pass and the index holds more
     * vectors, one more wide search is sized by the share that passed among these (the query's
     * neighbourhood, not the store); when that would ask for more than
     * {@value #WIDE_RETRY_MAX_FACTOR} times {@code k}, or still finds too few, the filtered search.
     */
    List<SegmentedIndex.Hit> filterWide(Connection c, float[] query, List<SegmentedIndex.Hit> hits, int wide,
                                                SqlFilter filter, int k) throws SQLException {
        wideSearches.incrementAndGet();
        List<SegmentedIndex.Hit> kept = passingHits(c, hits, filter, k);
        if (kept.size() < k && hits.size() == wide) {
            double share = Math.max(kept.size(), 1) / (double) wide;
            double retry = Math.ceil(k * WIDE_MARGIN / share);
            if (retry <= (double) WIDE_RETRY_MAX_FACTOR * k) {
                wideRetries.incrementAndGet();
                int more = (int) retry;
                hits = ann.searchWide(query, more, k);
                kept = passingHits(c, hits, filter, k);
                wide = more;
            }
        }
        if (kept.size() < k && hits.size() == wide) {
            wideFallbacks.incrementAndGet();
            return candidates(query, allowed(c, filter).vectors(), k);
        }
        return kept;
    }

    /** The first {@code k} of {@code hits} with a memory passing the filter, checked in SQL by vector id. */
    private static List<SegmentedIndex.Hit> passingHits(Connection c, List<SegmentedIndex.Hit> hits, SqlFilter filter,
                                                        int k) throws SQLException {
        Set<Long> passing = new HashSet<>();
        // No DISTINCT: the set drops repeats.
        try (PreparedStatement ps = c.prepareStatement("SELECT m.vector_id FROM json_each(?) j"
                + " CROSS JOIN memories m INDEXED BY " + Schema.VECTOR_INDEX + " WHERE m.vector_id = j.value"
                + filter.sql())) {
            filter.bind(ps, 2);
            ps.setString(1, SqlArrays.jsonArray(i -> hits.get(i).id(), 0, hits.size()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    passing.add(rs.getLong(1));
                }
            }
        }
        List<SegmentedIndex.Hit> kept = new ArrayList<>(k);
        for (SegmentedIndex.Hit hit : hits) {
            if (kept.size() == k) {
                break;
            }
            if (passing.contains(hit.id())) {
                kept.add(hit);
            }
        }
        return kept;
    }

    /**
     * How many unfiltered dense candidates to search for a filter many memories pass, or 0 to read
     * the vectors it passes first. The share passing is estimated on {@value #FILTER_SAMPLE} rows
     * spread evenly over the row numbers (primary-key lookups); a share of {@code p} asks for
     * {@code k * }{@value #WIDE_MARGIN}{@code  / p} candidates, and 0 when that is more than
     * {@value #WIDE_MAX_FACTOR} times {@code k}. When fewer than {@code k} of them pass,
     * {@link #filterWide} searches wider once or falls back to the filtered search. The sample is
     * kept with the allowed sets, per read connection until the database changes.
     */
    int wideCandidates(Connection c, SqlFilter filter, int k) throws SQLException {
        AllowedSets known = kept(c);
        double[] sample = known.samples().get(filter);
        if (sample == null) {
            sampleReads.incrementAndGet();
            sample = sample(c, filter);
            known.samples().put(filter, sample);
        }
        double found = sample[0];
        double passing = sample[1];
        if (found < FILTER_SAMPLE / 4 || passing == 0) {
            return 0; // a small store, mostly deleted rows, or a rare filter
        }
        double wanted = Math.ceil(k * WIDE_MARGIN * found / passing);
        return wanted <= (double) WIDE_MAX_FACTOR * k ? (int) wanted : 0;
    }

    /**
     * Of {@value #FILTER_SAMPLE} rows spread over the row numbers, how many exist and how many
     * pass the filter; none of either when the store has fewer rows than a wide search needs.
     * Kept with the allowed sets: the same until the database changes.
     */
    private double[] sample(Connection c, SqlFilter filter) throws SQLException {
        long maxSeq;
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT max(seq) FROM memories")) {
            maxSeq = rs.next() ? rs.getLong(1) : 0;
        }
        if (maxSeq < tuning.wideFilterMinRows()) {
            return new double[] {0, 0};
        }
        long last = maxSeq;
        String seqs = SqlArrays.jsonArray(i -> 1 + i * last / FILTER_SAMPLE, 0, FILTER_SAMPLE);
        // total() of the filter's condition: 1 where it holds, 0 or NULL (not counted) where not.
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*), total(1 = 1" + filter.sql()
                + ") FROM json_each(?) j CROSS JOIN memories m NOT INDEXED WHERE m.seq = j.value")) {
            ps.setString(filter.bind(ps, 1), seqs);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new double[] {rs.getLong(1), rs.getDouble(2)} : new double[] {0, 0};
            }
        }
    }

    /** How many share samples were read from SQLite, not taken from those kept. For tests. */
    long sampleReads() {
        return sampleReads.get();
    }

    /**
     * {@link #readAllowed} (the vectors and the rows the filter passes), kept for the next
     * searches through the same read connection with the same filter until the database changes:
     * an agent repeating {@code --agent X} reads them once, not at every search (the read was
     * most of a narrow filter's search at 1M).
     */
    Allowed allowed(Connection c, SqlFilter filter) throws SQLException {
        AllowedSets known = kept(c);
        Allowed set = known.sets().get(filter);
        if (set == null) {
            allowedReads.incrementAndGet();
            set = readAllowed(c, filter);
            known.sets().put(filter, set);
        }
        return set;
    }

    /** What {@code c} has kept while the database is as it was, or a new, empty keeping. */
    private AllowedSets kept(Connection c) throws SQLException {
        long version = Rows.single(c, "PRAGMA data_version");
        AllowedSets known = allowedSets.get(c);
        if (known == null || known.dataVersion() != version) {
            known = new AllowedSets(version, lru(), lru());
            allowedSets.put(c, known);
        }
        return known;
    }

    /** A map of the {@value #ALLOWED_SETS_KEPT} filters used last. */
    private static <V> Map<SqlFilter, V> lru() {
        return java.util.Collections.synchronizedMap(new java.util.LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<SqlFilter, V> eldest) {
                return size() > ALLOWED_SETS_KEPT;
            }
        });
    }

    /** How many allowed sets were read from SQLite, not taken from those kept. For tests. */
    long allowedReads() {
        return allowedReads.get();
    }

    /**
     * The vectors and the rows of the memories passing the filter, read before a filtered dense
     * search: from the filter column's index, which holds {@code vector_id} (migration 9) and the
     * row number (every index does), as two lists.
     */
    static Allowed readAllowed(Connection c, SqlFilter filter) throws SQLException {
        // No DISTINCT: VectorIdSet drops repeats, cheaper than SQLite's temporary B-tree.
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT group_concat(m.vector_id), group_concat(m.seq) FROM memories m WHERE 1 = 1" + filter.sql())) {
            filter.bind(ps, 1);
            try (ResultSet rs = ps.executeQuery()) {
                boolean row = rs.next();
                return new Allowed(VectorIdSet.parse(row ? rs.getString(1) : null),
                        VectorIdSet.parse(row ? rs.getString(2) : null));
            }
        }
    }

    /**
     * The memories using each vector, in storage order; vectors without memories are absent.
     * Every memory read is also put in {@code rows} by its {@code seq}.
     */
    static Map<Long, List<Rows.StoredMemory>> memoriesOfVectors(Connection c, List<SegmentedIndex.Hit> vectors,
                                                                        Map<Long, Memory> rows) throws SQLException {
        Map<Long, List<Rows.StoredMemory>> byVector = new HashMap<>();
        for (int from = 0; from < vectors.size(); from += Rows.IN_LIST_CHUNK) {
            List<SegmentedIndex.Hit> chunk = vectors.subList(from, Math.min(from + Rows.IN_LIST_CHUNK, vectors.size()));
            // No ORDER BY: SQLite would copy every whole row into a sorter first, which doubled
            // the cost of this read on a large store; the few memories of each vector are sorted below.
            String sql = "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE m.vector_id IN ("
                    + "?,".repeat(chunk.size() - 1) + "?)";
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                for (int i = 0; i < chunk.size(); i++) {
                    ps.setLong(i + 1, chunk.get(i).id());
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Rows.StoredMemory m = Rows.memory(rs);
                        byVector.computeIfAbsent(m.vectorId(), id -> new ArrayList<>(1)).add(m);
                        rows.put(m.seq(), m.memory());
                    }
                }
            }
        }
        for (List<Rows.StoredMemory> memories : byVector.values()) {
            if (memories.size() > 1) {
                memories.sort(Comparator.comparingLong(Rows.StoredMemory::seq));
            }
        }
        return byVector;
    }
}
