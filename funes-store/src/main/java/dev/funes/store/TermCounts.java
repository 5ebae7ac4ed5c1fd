package dev.funes.store;

import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The document frequencies {@link PostingsBudget} counted, kept between searches until the
 * full-text index changes. FTS5 stores no document frequency, so the budget counts each term in
 * the index (up to a cap), and at a million memories that is about a quarter of a search's
 * full-text step; a store's searches keep asking for the same words.
 *
 * <p>The cache belongs to one state of the full-text index, named by FTS5's own records: the
 * structure record (row 10 of {@code memories_fts_data}: its segments and a counter of the
 * segments ever written, rewritten by every transaction that changes the index) and the averages
 * record (row 1: the row count and token totals). Each search reads both inside its read
 * transaction ({@link #sync}); other bytes than the cache's, after a write by this store or by
 * another process, empty the cache and start a new generation. A count is used only by searches
 * of the generation it was counted in, so a search that began before a write never hands its
 * counts to one that began after it. Thread-safe.
 */
final class TermCounts {

    /** Past this many terms the cache is emptied rather than grown. */
    static final int MAX_TERMS = 100_000;

    private static final String STATE = "SELECT block FROM memories_fts_data WHERE id IN (1, 10) ORDER BY id";

    private record Entry(long count, long cap, long generation) {
    }

    /** A state of the full-text index and the generation of counts made in it. */
    private record State(byte[] records, long generation) {
    }

    private final Map<String, Entry> counts = new ConcurrentHashMap<>();
    private final AtomicLong hits = new AtomicLong();
    private long generations; // guarded by this
    private volatile State state = new State(new byte[0], 0);

    /**
     * The counts a search in the current read transaction of {@code c} may use and add to. Call it
     * after the transaction's first read, so that the records read are those of its snapshot.
     */
    Generation sync(Connection c) throws SQLException {
        byte[] now = records(c);
        State current = state;
        if (!Arrays.equals(current.records, now)) {
            synchronized (this) {
                current = state;
                if (!Arrays.equals(current.records, now)) {
                    counts.clear();
                    current = new State(now, ++generations);
                    state = current;
                }
            }
        }
        return new Generation(current.generation, now);
    }

    /**
     * FTS5's structure and averages records as the read transaction of {@code c} sees them: equal
     * bytes, the same full-text index.
     */
    static byte[] records(Connection c) throws SQLException {
        ByteArrayOutputStream records = new ByteArrayOutputStream(128);
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(STATE)) {
            while (rs.next()) {
                byte[] block = rs.getBytes(1);
                int length = block == null ? -1 : block.length;
                // Each block after its length, so that two pairs of blocks never read alike.
                records.write(length >>> 24);
                records.write(length >>> 16);
                records.write(length >>> 8);
                records.write(length);
                if (block != null) {
                    records.writeBytes(block);
                }
            }
        }
        return records.toByteArray();
    }

    /** How many counts were answered from the cache so far. For tests. */
    long hits() {
        return hits.get();
    }

    /** The counts of one generation: those one read transaction may use. */
    final class Generation {

        private final long id;
        private final byte[] records;

        private Generation(long id, byte[] records) {
            this.id = id;
            this.records = records;
        }

        /**
         * FTS5's averages record (row 1 of {@code memories_fts_data}) as {@code {rows, tokens}}:
         * the index's row count and its tokens in all columns; null when the index has none yet.
         */
        long[] averages() {
            // records: each of rows 1 and 10 as a 4-byte length (-1: NULL) and its bytes.
            if (records.length < 8) {
                return null;
            }
            int length = ((records[0] & 0xff) << 24) | ((records[1] & 0xff) << 16) | ((records[2] & 0xff) << 8)
                    | (records[3] & 0xff);
            if (length <= 0 || 4 + length + 4 > records.length) {
                return null; // row 1 missing (a single record is row 10's) or empty
            }
            byte[] block = Arrays.copyOfRange(records, 4, 4 + length);
            int[] at = {0};
            long rows = Bm25Ranking.varint(block, at);
            long tokens = 0;
            while (at[0] < block.length) {
                tokens += Bm25Ranking.varint(block, at);
            }
            return new long[] {rows, tokens};
        }

        /** Whether {@code c}'s read transaction sees the full-text index this generation belongs to. */
        boolean sameIndex(Connection c) throws SQLException {
            return Arrays.equals(records, records(c));
        }

        /**
         * The term's document frequency counted up to {@code cap}, or -1 when this generation has
         * not counted it that far.
         */
        long get(String term, long cap) {
            Entry e = counts.get(term);
            if (e == null || e.generation != id || (e.count >= e.cap && e.cap < cap)) {
                return -1;
            }
            hits.incrementAndGet();
            return Math.min(e.count, cap);
        }

        /** Records a count made up to {@code cap} ({@code count <= cap}). */
        void put(String term, long count, long cap) {
            if (counts.size() >= MAX_TERMS) {
                counts.clear();
            }
            counts.put(term, new Entry(count, cap, id));
        }
    }
}
