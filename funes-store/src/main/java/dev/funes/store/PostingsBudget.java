package dev.funes.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Bounds the full-text work of one search ({@link StoreOptions#lexicalBudget()}): FTS5 computes
 * bm25 for every memory that matches any term of the OR query, so a query's cost grows with the
 * sum of its terms' document frequencies (the memories each term occurs in, its postings), and
 * at a million memories one common word is tens of thousands of them. While that sum is over the
 * budget, the most frequent term is left out of the query: the term with the lowest IDF, which
 * adds the least to any memory's bm25. The rarest term always stays.
 *
 * <p>Document frequencies are counted in the full-text index itself, one term at a time, each
 * count stopped at {@code budget + 1} (a term past the budget is dropped whatever its exact
 * count), so counting costs at most {@code terms × (budget + 1)} postings read in rowid order,
 * tens of times cheaper per posting than ranking them. Counting through FTS5 applies its
 * tokenizer (porter stemming), so each count is that of the term the query really searches for.
 * Counts cover the whole store, not the memories a search's filters leave: the FTS5 query reads
 * every posting of its terms in either case. A store keeps its counts until the database changes
 * ({@link TermCounts}).
 */
final class PostingsBudget {

    private static final String COUNT = "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ?"
            + " LIMIT ?)";

    /**
     * What the budget did to one query.
     *
     * @param kept    the terms searched for, in the query's order
     * @param dropped the terms left out, most frequent first as far as the counts tell (terms
     *                counted past the budget share its cap; of those the later in the query first)
     * @param counts  each term's document frequency, in the order of the query's terms, counted up
     *                to a cap (a count past the budget may be the cap); empty when nothing was
     *                counted (no budget, or a single term)
     * @param keptPostings the kept terms' counts summed (a count at its cap as the cap), or -1
     *                when nothing was counted
     */
    record Plan(List<String> kept, List<String> dropped, long[] counts, long keptPostings) {

        /** A plan that counted nothing: {@code keptPostings} is -1. */
        Plan(List<String> kept, List<String> dropped, long[] counts) {
            this(kept, dropped, counts, -1);
        }
    }

    private PostingsBudget() {
    }

    /**
     * The terms of a query to search for under {@code budget} postings; {@code budget} 0 keeps
     * them all without counting.
     *
     * @param terms the query's terms ({@link FtsQuery#terms}), not empty
     */
    static Plan plan(Connection c, List<String> terms, long budget) throws SQLException {
        return plan(c, terms, budget, null);
    }

    /**
     * {@link #plan(Connection, List, long)} taking counts from, and adding them to, the cache of
     * the read transaction's generation; {@code cache} null counts every term.
     */
    static Plan plan(Connection c, List<String> terms, long budget, TermCounts.Generation cache)
            throws SQLException {
        if (budget == 0 || terms.size() < 2) {
            return new Plan(terms, List.of(), new long[0]);
        }
        int n = terms.size();
        long[] counts = new long[n];
        try (PreparedStatement ps = c.prepareStatement(COUNT)) {
            long cap = budget + 1;
            count(ps, terms, counts, cap, cache);
            // Every term past the budget: only the rarest stays, so find it with a higher cap.
            while (allAt(counts, cap) && cap < Long.MAX_VALUE / 2) {
                cap *= 2;
                count(ps, terms, counts, cap, cache);
            }
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        // Rarest first; of equal counts, the earlier term in the query first.
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> counts[i]).thenComparingInt(i -> i));
        boolean[] keep = new boolean[n];
        long sum = 0;
        for (int j = 0; j < n; j++) {
            int i = order[j];
            if (j > 0 && sum + counts[i] > budget) {
                break;
            }
            keep[i] = true;
            sum += counts[i];
        }
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (keep[i]) {
                kept.add(terms.get(i));
            }
        }
        List<String> dropped = new ArrayList<>();
        for (int j = n - 1; j >= 0; j--) {
            if (!keep[order[j]]) {
                dropped.add(terms.get(order[j]));
            }
        }
        return new Plan(kept.size() == n ? terms : kept, dropped, counts, sum);
    }

    /** The memories that {@code match} matches, counted up to {@code cap} (row numbers only, no ranking). */
    static long count(Connection c, String match, long cap) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(COUNT)) {
            return count(ps, match, cap);
        }
    }

    private static long count(PreparedStatement ps, String match, long cap) throws SQLException {
        ps.setString(1, match);
        ps.setLong(2, cap);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static boolean allAt(long[] counts, long cap) {
        for (long count : counts) {
            if (count < cap) {
                return false;
            }
        }
        return true;
    }

    private static void count(PreparedStatement ps, List<String> terms, long[] counts, long cap,
                              TermCounts.Generation cache) throws SQLException {
        for (int i = 0; i < terms.size(); i++) {
            String term = terms.get(i);
            long known = cache == null ? -1 : cache.get(term, cap);
            if (known >= 0) {
                counts[i] = known;
                continue;
            }
            counts[i] = count(ps, FtsQuery.match(List.of(term)), cap);
            if (cache != null) {
                cache.put(term, counts[i], cap);
            }
        }
    }
}
