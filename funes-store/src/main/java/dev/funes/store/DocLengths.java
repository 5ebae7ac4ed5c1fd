package dev.funes.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The token count of each full-text row ({@code memories_fts_docsize}: the row's columns summed),
 * kept between searches by row number. {@link Bm25Ranking} needs it for every match, and reading
 * it from SQLite costs about as much as FTS5's own ranking (a B-tree seek per match).
 *
 * <p>A row's count only changes when its memory is deleted (SQLite may then give its row number
 * to the next memory) or its text or terms are rewritten. Both bump the counter in
 * {@code fts_rewrites} (triggers, schema version 7), in the same transaction, whichever process
 * writes. The cache belongs to one value of that counter: a search reads the counter in its read
 * transaction ({@link #view}) and uses the cache only if it was filled under the same value; a
 * greater value starts an empty cache. Two snapshots with the same counter differ only by
 * memories added, whose rows the earlier snapshot never matches, so the counts one search caches
 * are true for every other search that shares its counter. Thread-safe: a count is an int written
 * once per cache; a reader that sees 0 reads the row from SQLite.
 */
final class DocLengths {

    /**
     * Row numbers from this one on are not cached: the cache takes 4 bytes per row number up to
     * the largest, so at most 64 MiB (4 MiB for a store of a million memories).
     */
    static final long MAX_CACHED_ROW = 1L << 24;

    private static final String REWRITES = "SELECT n FROM fts_rewrites";
    private static final int LOOKUP_CHUNK = 512;

    /** The counts under one value of the counter; {@code lengths[seq]}, 0 when not read yet. */
    private static final class Cache {
        final long rewrites;
        volatile int[] lengths = new int[0];
        final java.util.concurrent.atomic.AtomicBoolean loadClaimed = new java.util.concurrent.atomic.AtomicBoolean();

        Cache(long rewrites) {
            this.rewrites = rewrites;
        }

        synchronized int[] grow(long seq) {
            int[] now = lengths;
            if (seq < now.length) {
                return now;
            }
            long size = Math.max(seq + 1, Math.min(MAX_CACHED_ROW, (long) now.length * 2));
            int[] grown = java.util.Arrays.copyOf(now, (int) size);
            lengths = grown;
            return grown;
        }
    }

    private volatile Cache cache = new Cache(-1);
    private long lookups; // guarded by this; for tests and benchmarks
    private long loads; // guarded by this; for tests

    /**
     * The counts a search in the current read transaction of {@code c} may use and add to: the
     * store's cache when it was filled under the counter this transaction sees, else a fresh one
     * (kept for later searches when the counter is newer).
     */
    View view(Connection c) throws SQLException {
        long rewrites = rewrites(c);
        Cache current = cache;
        if (current.rewrites != rewrites) {
            synchronized (this) {
                current = cache;
                if (current.rewrites < rewrites) {
                    current = new Cache(rewrites);
                    cache = current;
                } else if (current.rewrites != rewrites) {
                    current = new Cache(rewrites); // a snapshot older than the cache's: its own, not kept
                }
            }
        }
        return new View(current);
    }

    private static long rewrites(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(REWRITES)) {
            if (!rs.next()) {
                throw new SQLException("fts_rewrites has no row (was the schema changed by hand?)");
            }
            return rs.getLong(1);
        }
    }

    /** How many rows were read from SQLite rather than the cache so far. For tests. */
    synchronized long lookups() {
        return lookups;
    }

    private synchronized void looked(int n) {
        lookups += n;
    }

    /** How many whole loads ({@link View#loadAll}) ran to their end so far. For tests. */
    synchronized long loads() {
        return loads;
    }

    private synchronized void loaded() {
        loads++;
    }

    /** The cache one read transaction uses. */
    final class View {

        private final Cache cache;

        private View(Cache cache) {
            this.cache = cache;
        }

        /**
         * Whether the caller should {@linkplain #loadAll load every count} into this cache: true
         * once per cache, to the first caller that asks.
         */
        boolean claimLoad() {
            return cache.loadClaimed.compareAndSet(false, true);
        }

        /** Lets a later {@link #claimLoad} claim the load again (this one did not run). */
        void releaseLoad() {
            cache.loadClaimed.set(false);
        }

        /**
         * Reads every row's count into this cache through {@code c}, in its read transaction, in
         * one scan of {@code memories_fts_docsize}; nothing when that transaction sees another
         * counter than the cache's. Checks {@code stop} every few thousand rows.
         *
         * @return whether the scan ran to its end
         */
        boolean loadAll(Connection c, java.util.function.BooleanSupplier stop) throws SQLException {
            if (rewrites(c) != cache.rewrites) {
                return false;
            }
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT max(id) FROM memories_fts_docsize")) {
                long max = rs.next() ? rs.getLong(1) : 0;
                if (max >= MAX_CACHED_ROW) {
                    return false;
                }
                cache.grow(max);
            }
            int rows = 0;
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, sz FROM memories_fts_docsize")) {
                while (rs.next()) {
                    remember(rs.getLong(1), tokens(rs.getBytes(2)));
                    if (++rows % 4096 == 0 && stop.getAsBoolean()) {
                        return false;
                    }
                }
            }
            loaded();
            return true;
        }

        /**
         * Fills {@code lengths[i]} with the token count of row {@code seqs[i]}, for the first
         * {@code n} rows (in ascending order), reading those the cache lacks through {@code c}
         * (one query per chunk).
         *
         * @return how many were not in the cache
         */
        int lengths(Connection c, long[] seqs, int n, int[] lengths) throws SQLException {
            int[] cached = cache.lengths;
            int[] missing = null;
            int misses = 0;
            for (int i = 0; i < n; i++) {
                long seq = seqs[i];
                int length = seq >= 0 && seq < cached.length ? cached[(int) seq] : 0;
                lengths[i] = length;
                if (length == 0) {
                    if (missing == null) {
                        missing = new int[Math.min(n, 1024)];
                    } else if (misses == missing.length) {
                        missing = java.util.Arrays.copyOf(missing, Math.min(n, misses * 2));
                    }
                    missing[misses++] = i;
                }
            }
            if (misses == 0) {
                return 0;
            }
            looked(misses);
            // The array drives (CROSS JOIN): one primary-key lookup per row, whatever the statistics.
            try (PreparedStatement ps = c.prepareStatement("SELECT d.id, d.sz FROM json_each(?) j"
                    + " CROSS JOIN memories_fts_docsize d WHERE d.id = j.value")) {
                for (int from = 0; from < misses; from += LOOKUP_CHUNK) {
                    int to = Math.min(misses, from + LOOKUP_CHUNK);
                    int[] rows = missing;
                    ps.setString(1, SqlArrays.jsonArray(j -> seqs[rows[j]], from, to));
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            long id = rs.getLong(1);
                            // The missing rows are in ascending order (the matches are), whatever order SQLite answers in.
                            int low = from;
                            int high = to - 1;
                            while (low <= high) {
                                int mid = (low + high) >>> 1;
                                long seq = seqs[missing[mid]];
                                if (seq < id) {
                                    low = mid + 1;
                                } else if (seq > id) {
                                    high = mid - 1;
                                } else {
                                    int length = tokens(rs.getBytes(2));
                                    lengths[missing[mid]] = length;
                                    remember(id, length);
                                    break;
                                }
                            }
                        }
                    }
                }
            }
            for (int j = 0; j < misses; j++) {
                if (lengths[missing[j]] == 0) {
                    throw new SQLException("memories_fts_docsize has no row " + seqs[missing[j]]
                            + " for a full-text match: run `funes check` on the store");
                }
            }
            return misses;
        }

        private void remember(long seq, int length) {
            if (seq < 0 || seq >= MAX_CACHED_ROW) {
                return;
            }
            int[] lengths = cache.lengths;
            if (seq >= lengths.length) {
                lengths = cache.grow(seq);
            }
            lengths[(int) seq] = length;
        }
    }

    /** The token count of a docsize record: one varint per column, summed. */
    static int tokens(byte[] record) {
        if (record == null) {
            return 0;
        }
        long sum = 0;
        int[] at = {0};
        while (at[0] < record.length) {
            sum += Bm25Ranking.varint(record, at);
        }
        return (int) Math.min(Integer.MAX_VALUE, sum);
    }
}
