package dev.funes.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Ranks the full-text matches of an OR query of single-token terms by FTS5's {@code bm25()},
 * computed here from the index's postings rather than by FTS5 row by row. The ranking, the scores
 * and the order of ties are those of {@code ORDER BY bm25(memories_fts), rowid}, bit for bit: the
 * same statistics, the same formula in the same order of operations, the logarithm taken by
 * SQLite's {@code ln()} (the C library's {@code log}, as FTS5's).
 *
 * <p>Why: FTS5 scores a match in about 1.6 µs at a million memories, half of it a B-tree seek
 * for the row's token count ({@code memories_fts_docsize}), and a search scores every match.
 * Here the postings of each term are read in one statement per term through an
 * {@code fts5vocab} table ({@code instance}: one row per occurrence, in row order), the token
 * counts come from {@link DocLengths}, kept between searches (a search that misses many starts
 * a load of all of them on another thread), and the arithmetic is a few floating-point
 * operations per match.
 *
 * <p>For each term ("phrase" in FTS5's words) {@code i} of the query, in order: its document
 * frequency {@code n(i)} (rows holding it), {@code idf(i) = ln((N - n(i) + 0.5) / (n(i) + 0.5))},
 * 10<sup>-6</sup> when not positive, {@code N} the index's row count; for a row of {@code D}
 * tokens holding the term {@code f} times, its part {@code idf(i) × f × 2.2 / (f + 1.2 × (0.25 +
 * 0.75 × D / avgdl))}, {@code avgdl} the index's tokens per row; the row's bm25 is minus the sum
 * of its parts, added in the query's order. Two terms with the same token (say {@code test} and
 * {@code tests} under the porter stemmer) are two phrases, each counted, as in FTS5.
 *
 * <p>A term the tokenizer does not turn into exactly one token (FTS5 would search for a phrase
 * of several) is left to FTS5: {@link #rank} answers null. Each read connection needs the
 * temporary tables of {@link #prepare}. Thread-safe.
 */
final class Bm25Ranking {

    /** Queries whose kept terms hold more postings than this are ranked by FTS5. */
    static final long MAX_POSTINGS = 1_000_000;

    /** Past this many terms the token cache is emptied rather than grown. */
    static final int MAX_CACHED_TERMS = 100_000;

    private static final double K1 = 1.2;
    private static final double B = 0.75;

    private static final String POSTINGS = "SELECT group_concat(doc) FROM temp.funes_fts_instances WHERE term = ?";

    /**
     * A search that finds more token counts missing from the cache than this asks for all of
     * them to be loaded ({@link DocLengths.View#loadAll}): reading a missing count costs about
     * 2 µs, a whole scan about 0.5 µs a row.
     */
    static final int LOAD_AFTER_MISSES = 2048;

    /** Each term's token under the index's tokenizer, or "" when it is not exactly one token. */
    private final Map<String, String> tokens = new ConcurrentHashMap<>();
    private final DocLengths lengths = new DocLengths();
    private final Consumer<DocLengths.View> loader;
    private final int loadAfterMisses;

    /**
     * @param loader          starts {@link DocLengths.View#loadAll} of a cache on another thread, with
     *                        a read connection of its own; called at most once per cache
     * @param loadAfterMisses how many missing token counts make a search start the load
     *                        ({@link #LOAD_AFTER_MISSES} unless tuned, {@link SearchTuning})
     */
    Bm25Ranking(Consumer<DocLengths.View> loader, int loadAfterMisses) {
        this.loader = loader;
        this.loadAfterMisses = loadAfterMisses;
    }

    /**
     * Creates the temporary tables a read connection ranks through: an {@code fts5vocab} view of
     * the occurrences in {@code memories_fts}, and an empty full-text table with its tokenizer, to
     * turn query terms into tokens. Temporary tables live in the connection's own temporary
     * database, so a read-only connection may create and write them.
     */
    static void prepare(Connection reader) throws SQLException {
        try (Statement s = reader.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE temp.funes_fts_instances USING fts5vocab(main, memories_fts, instance)");
            s.execute("CREATE VIRTUAL TABLE temp.funes_tokenizer USING fts5(text, tokenize = '"
                    + Schema.FTS_TOKENIZE + "')");
            s.execute("CREATE VIRTUAL TABLE temp.funes_tokenizer_instances USING fts5vocab(temp, funes_tokenizer, instance)");
        }
    }

    /** The document-length cache. For tests. */
    DocLengths lengths() {
        return lengths;
    }

    /**
     * The {@code k} best rows for the OR query of {@code terms}, best first (bm25 ascending, then
     * row), as FTS5's ranking gives them; null when a term is not one token, or when the index
     * has no averages record (an index that never held a row may have none).
     *
     * @param c     a read connection in its read transaction, {@linkplain #prepare prepared}
     * @param terms the query's terms ({@link FtsQuery#terms}), in the order of its MATCH
     *              expression, not empty
     * @param index the full-text index this transaction sees ({@link TermCounts#sync})
     */
    LexicalRetriever.Lexical rank(Connection c, List<String> terms, TermCounts.Generation index, int k)
            throws SQLException {
        return rank(c, terms, index, k, SqlFilter.NONE);
    }

    /**
     * {@link #rank(Connection, List, TermCounts.Generation, int)} of the matches whose memory
     * passes {@code filter}: the {@code k} best rows FTS5's filtered ranking gives. The matches
     * are checked against the filter best first, in growing chunks (one statement per 1,024
     * rows); null also when a sample of the matches says few pass ({@link #fewPass}), or when, at
     * the rate the rows checked so far passed, finding {@code k} would take checking half of the
     * matches (a filter few memories pass: FTS5's ranking, which reads each match's memory once,
     * is cheaper then).
     */
    LexicalRetriever.Lexical rank(Connection c, List<String> terms, TermCounts.Generation index, int k,
                                   SqlFilter filter) throws SQLException {
        return rank(c, terms, index, k, filter, null);
    }

    /**
     * {@link #rank(Connection, List, TermCounts.Generation, int, SqlFilter)}, given the rows
     * {@code filter} passes ({@code passing}; null when they are not known): the {@code k} best
     * matches among them, never null for the filter's sake.
     */
    LexicalRetriever.Lexical rank(Connection c, List<String> terms, TermCounts.Generation index, int k,
                                   SqlFilter filter, VectorIdSet passing) throws SQLException {
        int m = terms.size();
        long[] averages = index.averages();
        if (averages == null || averages[0] <= 0) {
            return null;
        }
        long rows = averages[0];
        double avgdl = (double) averages[1] / (double) rows;

        // Each distinct token's postings: the rows holding it, in order, and how often.
        int[] tokenOf = new int[m];
        Map<String, Integer> distinct = new HashMap<>();
        for (int i = 0; i < m; i++) {
            String token = token(c, terms.get(i));
            if (token.isEmpty()) {
                return null;
            }
            tokenOf[i] = distinct.computeIfAbsent(token, t -> distinct.size());
        }
        Postings[] postings = new Postings[distinct.size()];
        try (PreparedStatement ps = c.prepareStatement(POSTINGS)) {
            for (Map.Entry<String, Integer> e : distinct.entrySet()) {
                ps.setString(1, e.getKey());
                try (ResultSet rs = ps.executeQuery()) {
                    postings[e.getValue()] = Postings.parse(rs.next() ? rs.getString(1) : null);
                }
            }
        }
        double[] idf = idf(c, rows, postings, tokenOf);

        // The rows matching any term, in order, and their token counts.
        long[] matches = union(postings);
        int n = matches.length;
        if (n == 0) {
            return new LexicalRetriever.Lexical(new long[0], new double[0], 0);
        }
        if (filter.isEmpty()) {
            return best(matches, scores(c, postings, tokenOf, idf, matches, avgdl), n, k);
        }
        if (passing != null) {
            double[] score = scores(c, postings, tokenOf, idf, matches, avgdl);
            long[] kept = new long[n];
            double[] keptScore = new double[n];
            int count = 0;
            for (int i = 0; i < n; i++) {
                if (passing.contains(matches[i])) {
                    kept[count] = matches[i];
                    keptScore[count++] = score[i];
                }
            }
            return best(kept, keptScore, count, k);
        }
        try (PreparedStatement check = c.prepareStatement(filterSql(filter))) {
            if (fewPass(check, matches, n, k, filter)) {
                return null;
            }
            return bestPassing(check, matches, scores(c, postings, tokenOf, idf, matches, avgdl), n, k, filter);
        }
    }

    /** Each match's bm25 score (before FTS5's negation), its token count taken from {@link #lengths}. */
    private double[] scores(Connection c, Postings[] postings, int[] tokenOf, double[] idf, long[] matches,
                            double avgdl) throws SQLException {
        int n = matches.length;
        int[] docLength = new int[n];
        DocLengths.View cached = lengths.view(c);
        if (cached.lengths(c, matches, n, docLength) >= loadAfterMisses && cached.claimLoad()) {
            loader.accept(cached);
        }

        // Term by term in the query's order, so that each row's parts add up as FTS5 adds them.
        double[] score = new double[n];
        for (int i = 0; i < tokenOf.length; i++) {
            Postings p = postings[tokenOf[i]];
            int u = 0;
            for (int j = 0; j < p.count; j++) {
                long row = p.rows[j];
                while (matches[u] != row) {
                    u++;
                }
                double f = p.frequencies[j];
                double d = docLength[u];
                score[u] += idf[i] * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + B * d / avgdl)));
            }
        }
        return score;
    }

    /** The {@code k} best rows whose memory passes {@code filter}, or null (see {@link #rank}). */
    private static LexicalRetriever.Lexical bestPassing(PreparedStatement ps, long[] matches, double[] score, int n,
                                                        int k, SqlFilter filter) throws SQLException {
        long[] seqs = new long[Math.min(k, n)];
        double[] scores = new double[seqs.length];
        int passing = 0;
        int checked = 0;
        int want = Math.max(4 * k, 256);
        while (true) {
            LexicalRetriever.Lexical top = best(matches, score, n, Math.min(n, want));
            for (int from = checked; from < top.count() && passing < seqs.length; from += FILTER_CHUNK) {
                int to = Math.min(top.count(), from + FILTER_CHUNK);
                java.util.Set<Long> pass = passing(ps, filter, top.seqs(), from, to);
                for (int i = from; i < to && passing < seqs.length; i++) {
                    if (pass.contains(top.seqs()[i])) {
                        seqs[passing] = top.seqs()[i];
                        scores[passing++] = top.bm25()[i];
                    }
                }
            }
            checked = top.count();
            if (passing == seqs.length || checked == n) {
                return new LexicalRetriever.Lexical(seqs, scores, passing);
            }
            // At the pass rate so far, finding k would take checking half the matches or more.
            if (passing == 0 || (long) checked * seqs.length / passing >= n / 2) {
                return null;
            }
            want = (int) Math.min(Integer.MAX_VALUE, 4L * want);
        }
    }

    /**
     * The filter check: which of the rows in a JSON array have a memory passing {@code filter}.
     * The array is the outer loop ({@code CROSS JOIN}) and each row is found by its primary key
     * ({@code NOT INDEXED}). As {@code m.seq IN (...)}, SQLite scanned every memory under the
     * filter's value through an index on its column (457,493 of them for one agent of the 1M
     * benchmark store) and, with statistics from {@code ANALYZE}, the whole table.
     */
    static String filterSql(SqlFilter filter) {
        return "SELECT m.seq FROM json_each(?) j CROSS JOIN memories m NOT INDEXED WHERE m.seq = j.value" + filter.sql();
    }

    /** Matches sampled (evenly over their row order) to estimate how many of them a filter passes. */
    static final int FILTER_SAMPLE = 256;

    /**
     * Whether so few of the matches pass {@code filter} that finding {@code k} of them would take
     * checking a quarter of the matches or more, judged on {@link #FILTER_SAMPLE} of them taken
     * evenly over the rows (memories stored together share agents and sessions). Then FTS5's
     * ranking, which reads each match's memory once and scores only those that pass, is cheaper
     * than scoring every match here. False when the matches are few enough to check them all.
     */
    private static boolean fewPass(PreparedStatement check, long[] matches, int n, int k,
                                   SqlFilter filter) throws SQLException {
        if (n <= 4 * FILTER_SAMPLE) {
            return false;
        }
        long[] sample = new long[FILTER_SAMPLE];
        for (int i = 0; i < FILTER_SAMPLE; i++) {
            sample[i] = matches[(int) ((long) i * n / FILTER_SAMPLE)];
        }
        int pass = passing(check, filter, sample, 0, FILTER_SAMPLE).size();
        return pass == 0 || (long) FILTER_SAMPLE * Math.min(k, n) / pass >= n / 4;
    }

    /** Rows the filter check reads per statement. */
    private static final int FILTER_CHUNK = 1024;

    /** Which of {@code rows[from..to)} have a memory that passes {@code filter}. */
    private static java.util.Set<Long> passing(PreparedStatement ps, SqlFilter filter, long[] rows,
                                               int from, int to) throws SQLException {
        ps.setString(1, SqlArrays.jsonArray(i -> rows[i], from, to));
        filter.bind(ps, 2);
        java.util.Set<Long> pass = new java.util.HashSet<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                pass.add(rs.getLong(1));
            }
        }
        return pass;
    }

    /** Each term's IDF as FTS5 computes it, the logarithms taken by SQLite. */
    private static double[] idf(Connection c, long rows, Postings[] postings, int[] tokenOf) throws SQLException {
        int m = tokenOf.length;
        StringBuilder sql = new StringBuilder("SELECT ");
        for (int i = 0; i < m; i++) {
            sql.append(i > 0 ? ", " : "").append("ln(?)");
        }
        double[] idf = new double[m];
        try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            for (int i = 0; i < m; i++) {
                long hits = postings[tokenOf[i]].count;
                ps.setDouble(i + 1, (rows - hits + 0.5) / (hits + 0.5));
            }
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new SQLException("ln() returned no row");
                }
                for (int i = 0; i < m; i++) {
                    double v = rs.getDouble(i + 1);
                    if (rs.wasNull()) {
                        throw new SQLException("ln() of a positive number returned NULL");
                    }
                    idf[i] = v <= 0.0 ? 1e-6 : v;
                }
            }
        }
        return idf;
    }

    /** The rows of all postings, each once, in order. */
    private static long[] union(Postings[] postings) {
        if (postings.length == 1) {
            return Arrays.copyOf(postings[0].rows, postings[0].count);
        }
        int total = 0;
        for (Postings p : postings) {
            total += p.count;
        }
        long[] all = new long[total];
        int n = 0;
        for (Postings p : postings) {
            System.arraycopy(p.rows, 0, all, n, p.count);
            n += p.count;
        }
        Arrays.sort(all);
        int unique = 0;
        for (int i = 0; i < total; i++) {
            if (unique == 0 || all[unique - 1] != all[i]) {
                all[unique++] = all[i];
            }
        }
        return Arrays.copyOf(all, unique);
    }

    /** The {@code k} best of {@code n} rows by bm25 (minus the score) ascending, then row. */
    private static LexicalRetriever.Lexical best(long[] rows, double[] score, int n, int k) {
        double[] bm25 = new double[n];
        for (int u = 0; u < n; u++) {
            bm25[u] = -1.0 * score[u];
        }
        int size = Math.min(k, n);
        // A heap of the best so far, the worst on top.
        int[] heap = new int[size];
        int count = 0;
        for (int u = 0; u < n; u++) {
            if (count < size) {
                heap[count] = u;
                int child = count++;
                while (child > 0) {
                    int parent = (child - 1) / 2;
                    if (!before(bm25, rows, heap[parent], heap[child])) {
                        break;
                    }
                    swap(heap, parent, child);
                    child = parent;
                }
            } else if (before(bm25, rows, u, heap[0])) {
                heap[0] = u;
                int parent = 0;
                while (true) {
                    int worst = parent;
                    for (int child = 2 * parent + 1; child <= 2 * parent + 2 && child < count; child++) {
                        if (before(bm25, rows, heap[worst], heap[child])) {
                            worst = child;
                        }
                    }
                    if (worst == parent) {
                        break;
                    }
                    swap(heap, parent, worst);
                    parent = worst;
                }
            }
        }
        Integer[] order = new Integer[count];
        for (int i = 0; i < count; i++) {
            order[i] = heap[i];
        }
        Arrays.sort(order, (a, b) -> before(bm25, rows, a, b) ? -1 : before(bm25, rows, b, a) ? 1 : 0);
        long[] seqs = new long[count];
        double[] scores = new double[count];
        for (int i = 0; i < count; i++) {
            seqs[i] = rows[order[i]];
            scores[i] = bm25[order[i]];
        }
        return new LexicalRetriever.Lexical(seqs, scores, count);
    }

    /** Whether row {@code a} ranks before row {@code b}: the lower bm25, then the lower row. */
    private static boolean before(double[] bm25, long[] rows, int a, int b) {
        return bm25[a] < bm25[b] || (bm25[a] == bm25[b] && rows[a] < rows[b]);
    }

    private static void swap(int[] heap, int a, int b) {
        int t = heap[a];
        heap[a] = heap[b];
        heap[b] = t;
    }

    /**
     * The token FTS5 makes of {@code term} with the index's tokenizer, or "" when it makes none or
     * several. Written to and deleted from a temporary table in the read transaction, which
     * rolls back at its end anyway; cached for the store's life (the tokenizer never changes).
     */
    String token(Connection c, String term) throws SQLException {
        String token = tokens.get(term);
        if (token != null) {
            return token;
        }
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO temp.funes_tokenizer (text) VALUES (?)");
             Statement s = c.createStatement()) {
            insert.setString(1, term);
            insert.executeUpdate();
            try (ResultSet rs = s.executeQuery("SELECT term FROM temp.funes_tokenizer_instances")) {
                token = rs.next() ? rs.getString(1) : "";
                if (rs.next()) {
                    token = "";
                }
            } finally {
                s.execute("DELETE FROM temp.funes_tokenizer");
            }
        }
        if (tokens.size() >= MAX_CACHED_TERMS) {
            tokens.clear();
        }
        tokens.put(term, token);
        return token;
    }

    /** One token's postings: the rows holding it, ascending, and its occurrences in each. */
    private record Postings(long[] rows, int[] frequencies, int count) {

        /**
         * Parses {@code group_concat(doc)} of the instance table: one row number per
         * occurrence, in row order; null or empty when the token occurs nowhere.
         */
        static Postings parse(String occurrences) {
            if (occurrences == null || occurrences.isEmpty()) {
                return new Postings(new long[0], new int[0], 0);
            }
            long[] rows = new long[64];
            int[] frequencies = new int[64];
            int count = 0;
            long last = Long.MIN_VALUE;
            int from = 0;
            int length = occurrences.length();
            while (from < length) {
                int to = occurrences.indexOf(',', from);
                if (to < 0) {
                    to = length;
                }
                long row = Long.parseLong(occurrences, from, to, 10);
                from = to + 1;
                if (row == last) {
                    frequencies[count - 1]++;
                    continue;
                }
                if (row < last) {
                    throw new IllegalStateException("fts5vocab returned row " + row + " after row " + last);
                }
                if (count == rows.length) {
                    rows = Arrays.copyOf(rows, count * 2);
                    frequencies = Arrays.copyOf(frequencies, count * 2);
                }
                rows[count] = row;
                frequencies[count++] = 1;
                last = row;
            }
            return new Postings(rows, frequencies, count);
        }
    }

    /** An SQLite varint (FTS5's records): big-endian groups of 7 bits, the ninth byte whole. */
    static long varint(byte[] bytes, int[] at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            int x = bytes[at[0]++] & 0xff;
            v = (v << 7) | (x & 0x7f);
            if ((x & 0x80) == 0) {
                return v;
            }
        }
        return (v << 8) | (bytes[at[0]++] & 0xff);
    }
}
