package dev.funes.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The full-text side of a search: the query's terms cut to the postings budget
 * ({@link PostingsBudget}), then the best matches by bm25, computed from the postings by
 * {@link Bm25Ranking} (with the token counts of {@link DocLengths} and the term counts of
 * {@link TermCounts}) or by FTS5, whose ranking a large query splits over two read connections.
 * Only row numbers and scores come out; the caller reads the memories.
 */
final class LexicalRetriever {

    private static final Logger LOG = LoggerFactory.getLogger(LexicalRetriever.class);

    /**
     * A full-text ranking over at least this many postings is split over two read connections
     * ({@link #candidates}): about 6 ms of bm25 on the 1M benchmark machine, far more than
     * handing half to another thread costs.
     */
    static final long SPLIT_LEXICAL_POSTINGS = 4_000;

    private final StoreDatabase db;
    private final StoreOptions options;
    private final SearchTuning tuning;
    private final Bm25Ranking bm25;
    private final TermCounts termCounts = new TermCounts();
    private final AtomicLong lexicalSplits = new AtomicLong();
    private final AtomicLong javaRankings = new AtomicLong();

    LexicalRetriever(StoreDatabase db, StoreOptions options, SearchTuning tuning) {
        this.db = db;
        this.options = options;
        this.tuning = tuning;
        this.bm25 = new Bm25Ranking(this::loadTokenCounts, tuning.loadAfterMisses());
    }

    /**
     * The full-text index this read transaction sees, with its term counts; call after the
     * transaction's first read, so that the records are those of its snapshot.
     */
    TermCounts.Generation sync(Connection c) throws SQLException {
        return termCounts.sync(c);
    }

    /** The best full-text matches, best first: their rows ({@code memories.seq}) and bm25 scores. */
    record Lexical(long[] seqs, double[] bm25, int count) {

        /**
         * The best {@code k} of two lists of disjoint rows, each sorted by bm25 then row: the
         * order of one query over both.
         */
        static Lexical merge(Lexical a, Lexical b, int k) {
            int n = Math.min(k, a.count + b.count);
            long[] seqs = new long[n];
            double[] scores = new double[n];
            int i = 0;
            int j = 0;
            for (int o = 0; o < n; o++) {
                boolean fromA = j == b.count || (i < a.count && (a.bm25[i] < b.bm25[j]
                        || (a.bm25[i] == b.bm25[j] && a.seqs[i] < b.seqs[j])));
                if (fromA) {
                    seqs[o] = a.seqs[i];
                    scores[o] = a.bm25[i++];
                } else {
                    seqs[o] = b.seqs[j];
                    scores[o] = b.bm25[j++];
                }
            }
            return new Lexical(seqs, scores, n);
        }
    }

    /**
     * What the lexical step of a search for {@code query} searches for under the store's
     * {@linkplain StoreOptions#lexicalBudget() postings budget}: the terms kept and dropped, with
     * their counts. For tests and probes.
     */
    PostingsBudget.Plan plan(String query) {
        List<String> terms = FtsQuery.terms(query);
        if (terms.isEmpty()) {
            return new PostingsBudget.Plan(List.of(), List.of(), new long[0]);
        }
        return db.read("plan a lexical query", c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT 1 FROM meta LIMIT 1")) {
                rs.next(); // the read transaction's first read: its snapshot, before the data version
            }
            return PostingsBudget.plan(c, terms, options.lexicalBudget(), termCounts.sync(c));
        });
    }

    /** How many term counts the postings budget took from its cache so far ({@link TermCounts}). For tests. */
    long termCountHits() {
        return termCounts.hits();
    }

    /** How many full-text rankings were split in two so far ({@link SearchTuning#splitLexicalAt}). For tests. */
    long splits() {
        return lexicalSplits.get();
    }

    /** How many full-text rankings {@link Bm25Ranking} computed so far. For tests. */
    long javaRankings() {
        return javaRankings.get();
    }

    /** The ranking computed in Java. For tests. */
    Bm25Ranking bm25() {
        return bm25;
    }

    /**
     * The {@code k} best full-text matches by bm25, ties to the lower row, for the query's terms
     * that fit the postings budget ({@link PostingsBudget}). They are ranked on the
     * FTS5 index alone (the row number and the score, a narrow sort); the memories table is
     * joined only to apply filters, and no memory is read here: the caller reads the winners.
     * Reading and sorting every match's whole row made this step the bulk of a search once a
     * query matched tens of thousands of memories (docs/BENCHMARKS.md).
     *
     * <p>Unless a term is several tokens, or the terms hold more than
     * {@link Bm25Ranking#MAX_POSTINGS} postings, or a filter passes too few of the best matches,
     * the ranking is computed by {@link Bm25Ranking} from the postings: the same rows and scores,
     * at about a quarter of the cost on the 1M benchmark store. Otherwise FTS5 ranks, as follows.
     *
     * <p>FTS5 computes bm25 for every match, about 1.5 µs each, and that is the bulk of a large
     * store's search. When a query matches at least {@link SearchTuning#splitLexicalAt} postings and another
     * read connection is idle, the rows are split at the middle match: this connection ranks the
     * lower rows while a {@link SearchThreads} thread ranks the upper ones through the other
     * connection, and the two sorted lists are merged. FTS5's bm25 takes its statistics (the row
     * count, the average length, each term's document frequency) from the whole table whatever
     * the rowid range, so every score, and the merged list, is the one a single query gives. The
     * other connection's read transaction must see the same full-text index as this one (FTS5's
     * structure and averages records compared, {@link TermCounts}); after a write committed
     * between the two, the ranking is not split.
     */
    Lexical candidates(Connection c, List<String> terms, SqlFilter filter, int k,
                                      TermCounts.Generation counts) throws SQLException {
        return candidates(c, terms, filter, null, k, counts);
    }

    /**
     * As {@link #candidates(Connection, List, SqlFilter, int, TermCounts.Generation)}, with the
     * rows {@code filter} passes when they are known ({@link DenseRetriever#allowed}; null
     * otherwise): the ranking in Java then keeps the matches among them, with no filter check
     * in SQL and no turn to FTS5's ranking for a filter few matches pass.
     */
    Lexical candidates(Connection c, List<String> terms, SqlFilter filter, VectorIdSet passing, int k,
                                      TermCounts.Generation counts) throws SQLException {
        PostingsBudget.Plan plan = PostingsBudget.plan(c, terms, options.lexicalBudget(), counts);
        if (tuning.rankInJava()) {
            long postings = plan.keptPostings() >= 0 ? plan.keptPostings()
                    : countPostings(c, plan.kept(), Bm25Ranking.MAX_POSTINGS + 1, counts);
            if (postings <= Bm25Ranking.MAX_POSTINGS) {
                Lexical ranked = bm25.rank(c, plan.kept(), counts, k, filter, passing);
                if (ranked != null) {
                    javaRankings.incrementAndGet();
                    return ranked;
                }
            }
        }
        String match = FtsQuery.match(plan.kept());
        Connection other = db.idleReader(); // no idle connection: no split, and nothing to count for one
        if (other != null) {
            try {
                long postings = plan.keptPostings() >= 0 ? plan.keptPostings()
                        : PostingsBudget.count(c, match, tuning.splitLexicalAt());
                if (postings >= tuning.splitLexicalAt()) {
                    Lexical split = splitLexical(c, other, match, postings, filter, k, counts);
                    if (split != null) {
                        return split;
                    }
                }
            } finally {
                db.release(other);
            }
        }
        return rankLexical(c, match, filter, k, Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /**
     * Loads every full-text row's token count into {@code cache} on a search thread, through an
     * idle read connection in a read transaction of its own; nothing when none is idle (a
     * later search asks again) or the store is closing. {@link StoreDatabase#close} waits for it (search
     * threads end before the connections close), and it stops within a few thousand rows.
     */
    private void loadTokenCounts(DocLengths.View cache) {
        if (db.closing()) {
            return;
        }
        db.searchThreads().submit(() -> {
            Connection c = db.closing() ? null : db.idleReader();
            if (c == null) {
                cache.releaseLoad();
                return null;
            }
            try {
                c.setAutoCommit(false);
                try {
                    long started = System.nanoTime();
                    if (cache.loadAll(c, db::closing)) {
                        LOG.debug("Read the token counts of {} in {} ms", db.dir(), (System.nanoTime() - started) / 1_000_000);
                    }
                } finally {
                    StoreDatabase.endRead(c);
                }
            } catch (SQLException | RuntimeException e) {
                LOG.debug("Cannot read the token counts of {}: {}", db.dir(), e.toString());
            } finally {
                db.release(c);
            }
            return null;
        });
    }

    /** The postings of {@code terms} summed, each counted up to {@code cap} (from the generation's counts when it has them). */
    private static long countPostings(Connection c, List<String> terms, long cap, TermCounts.Generation counts)
            throws SQLException {
        long sum = 0;
        for (String term : terms) {
            long count = counts.get(term, cap);
            if (count < 0) {
                count = PostingsBudget.count(c, FtsQuery.match(List.of(term)), cap);
                counts.put(term, count, cap);
            }
            sum += count;
        }
        return sum;
    }

    /**
     * {@link #candidates} ranked in two row ranges at once, or null when the matches do
     * not reach the middle one (the postings counted terms that share rows).
     */
    private Lexical splitLexical(Connection c, Connection other, String match, long postings, SqlFilter filter, int k,
                                 TermCounts.Generation index) throws SQLException {
        long middle;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid LIMIT 1 OFFSET ?")) {
            ps.setString(1, match);
            ps.setLong(2, postings / 2);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                middle = rs.getLong(1);
            }
        }
        other.setAutoCommit(false);
        Future<Lexical> upper;
        try {
            if (!index.sameIndex(other)) { // the transaction's first read: its snapshot
                StoreDatabase.endRead(other);
                return null;
            }
            upper = db.searchThreads().submit(() -> {
                try {
                    // The same full-text index: the same rows up to the last.
                    return rankLexical(other, match, filter, k, middle, Long.MAX_VALUE);
                } finally {
                    StoreDatabase.endRead(other);
                }
            });
        } catch (SQLException | RuntimeException | Error e) {
            StoreDatabase.endRead(other);
            throw e;
        }
        Lexical lower;
        try {
            lower = rankLexical(c, match, filter, k, Long.MIN_VALUE, middle - 1);
        } catch (SQLException | RuntimeException | Error e) {
            try {
                SearchThreads.await(upper); // the other connection goes back to the pool after the task
            } catch (ExecutionException suppressed) {
                e.addSuppressed(suppressed.getCause());
            }
            throw e;
        }
        lexicalSplits.incrementAndGet();
        return Lexical.merge(lower, await(upper), k);
    }

    /**
     * The full-text ranking's SQL: the MATCH, then {@code rowid BETWEEN ? AND ?} when
     * {@code range}, then the filter's parameters, then the limit. With filters the memories are
     * joined with {@code CROSS JOIN ... NOT INDEXED}: FTS5 stays the outer loop and each match
     * finds its memory by primary key. Given a rowid range (or statistics from {@code ANALYZE}),
     * SQLite would otherwise start from an index of the memories (the session's, say) and run the
     * MATCH once per memory, or scan that index once per match (the LoCoMo evaluation's searches,
     * filtered by session, took about 20 times longer the first way).
     */
    static String lexicalSql(SqlFilter filter, boolean range) {
        if (filter.isEmpty()) {
            return "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
                    + (range ? " AND rowid BETWEEN ? AND ?" : "") + " ORDER BY bm25(memories_fts), rowid LIMIT ?";
        }
        return "SELECT memories_fts.rowid, bm25(memories_fts) FROM memories_fts"
                + " CROSS JOIN memories m NOT INDEXED ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ?"
                + (range ? " AND memories_fts.rowid BETWEEN ? AND ?" : "") + filter.sql()
                + " ORDER BY bm25(memories_fts), memories_fts.rowid LIMIT ?";
    }

    /** The {@code k} best full-text matches among the rows {@code from} to {@code to}, both included. */
    private static Lexical rankLexical(Connection c, String match, SqlFilter filter, int k, long from, long to)
            throws SQLException {
        boolean range = from != Long.MIN_VALUE || to != Long.MAX_VALUE;
        String sql = lexicalSql(filter, range);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            int i = 1;
            ps.setString(i++, match);
            if (range) {
                ps.setLong(i++, from);
                ps.setLong(i++, to);
            }
            i = filter.bind(ps, i);
            ps.setInt(i, k);
            long[] seqs = new long[Math.min(k, 1024)];
            double[] scores = new double[seqs.length];
            int n = 0;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (n == seqs.length) {
                        seqs = Arrays.copyOf(seqs, n * 2);
                        scores = Arrays.copyOf(scores, n * 2);
                    }
                    seqs[n] = rs.getLong(1);
                    scores[n++] = rs.getDouble(2);
                }
            }
            return new Lexical(seqs, scores, n);
        }
    }

    /** The ranking a search thread computed, its failure thrown as it was. */
    static Lexical await(Future<Lexical> pending) throws SQLException {
        try {
            return SearchThreads.await(pending);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException se) {
                throw se;
            }
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }
}
