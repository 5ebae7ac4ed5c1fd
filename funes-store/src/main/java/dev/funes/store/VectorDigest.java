package dev.funes.store;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * An order-independent digest of a set of vector ids: how many, their sum, and the sum of a
 * 32-bit mix of each. SQLite keeps the digest of the {@code vectors} table up to date with
 * triggers (schema version 6, table {@code vector_digest}), so that opening a store can compare
 * it with the digest of the ids its dense index holds in O(1) database work: equal digests mean
 * the two agree (two different sets collide only by a 2<sup>-32</sup> chance of the mixes after
 * equal counts and sums), so the full id comparison is skipped.
 *
 * @param count how many ids
 * @param sum   their sum
 * @param mix   the sum of {@link #mix(long)} of each
 */
record VectorDigest(long count, long sum, long mix) {

    /** The digest of no ids. */
    static final VectorDigest EMPTY = new VectorDigest(0, 0, 0);
    /** The triggers on {@code vectors} that keep the digest (migration 6). */
    static final List<String> TRIGGERS = List.of("vector_digest_insert", "vector_digest_delete", "vector_digest_update");

    private static final long LOW_32 = 0xFFFF_FFFFL;
    /** A 27-bit odd multiplier: products of 32-bit values stay below 2<sup>59</sup> (no SQLite overflow to REAL). */
    private static final long MULTIPLIER = 0x45d9f3bL;

    /**
     * A 32-bit mix of the id's low and high halves: two rounds of xor-shift and multiply, all in
     * 64-bit integers that cannot overflow, so SQLite computes the same value ({@link #mixQuery}).
     */
    static long mix(long id) {
        long x = ((id & LOW_32) ^ (id >>> 32)) & LOW_32;
        x = (((x >>> 16) ^ x) * MULTIPLIER) & LOW_32;
        x = (((x >>> 16) ^ x) * MULTIPLIER) & LOW_32;
        return (x >>> 16) ^ x;
    }

    /**
     * A query of the columns {@code v} and {@code m}, {@link #mix(long)} of {@code v}, for each row
     * of {@code source} (a query of a non-negative integer column {@code v}). One subquery per
     * step, kept apart by {@code LIMIT -1} (SQLite would otherwise flatten them into one
     * expression that repeats {@code v} hundreds of times, 25 times slower); SQLite has no xor:
     * {@code a ^ b} is {@code (a | b) - (a & b)}.
     */
    static String mixQuery(String source) {
        String query = "SELECT v, " + xor("(v & " + LOW_32 + ")", "(v >> 32)") + " & " + LOW_32 + " AS x FROM ("
                + source + ") LIMIT -1";
        for (int round = 0; round < 2; round++) {
            query = "SELECT v, (" + xor("(x >> 16)", "x") + " * " + MULTIPLIER + ") & " + LOW_32 + " AS x FROM ("
                    + query + ") LIMIT -1";
        }
        return "SELECT v, " + xor("(x >> 16)", "x") + " AS m FROM (" + query + ")";
    }

    private static String xor(String a, String b) {
        return "((" + a + " | " + b + ") - (" + a + " & " + b + "))";
    }

    /** This digest with one more id. */
    VectorDigest plus(long id) {
        return new VectorDigest(count + 1, sum + id, mix + mix(id));
    }

    /** This digest without one of its ids. */
    VectorDigest minus(long id) {
        return new VectorDigest(count - 1, sum - id, mix - mix(id));
    }

    /** This digest with the ids of {@code other} (none of them in this one) too. */
    VectorDigest plus(VectorDigest other) {
        return new VectorDigest(count + other.count, sum + other.sum, mix + other.mix);
    }

    /** The digest of the given ids. */
    static VectorDigest of(long[] ids) {
        long sum = 0;
        long mix = 0;
        for (long id : ids) {
            sum += id;
            mix += mix(id);
        }
        return new VectorDigest(ids.length, sum, mix);
    }

    /**
     * The statements of migration 6: the table {@code vector_digest}, filled from the vectors the
     * store holds (one scan, once), and the triggers that keep it.
     */
    static List<String> migration() {
        return List.of(
                """
                CREATE TABLE vector_digest (
                  single INTEGER PRIMARY KEY CHECK (single = 1),
                  count INTEGER NOT NULL,
                  id_sum INTEGER NOT NULL,
                  id_mix INTEGER NOT NULL
                )""",
                "INSERT INTO vector_digest (single, count, id_sum, id_mix) SELECT 1, * FROM (" + RECOMPUTE + ")",
                "CREATE TRIGGER " + TRIGGERS.get(0) + " AFTER INSERT ON vectors BEGIN "
                        + "UPDATE vector_digest SET count = count + 1, id_sum = id_sum + new.id, id_mix = id_mix + "
                        + mixOf("new.id") + "; END",
                "CREATE TRIGGER " + TRIGGERS.get(1) + " AFTER DELETE ON vectors BEGIN "
                        + "UPDATE vector_digest SET count = count - 1, id_sum = id_sum - old.id, id_mix = id_mix - "
                        + mixOf("old.id") + "; END",
                "CREATE TRIGGER " + TRIGGERS.get(2) + " AFTER UPDATE OF id ON vectors BEGIN "
                        + "UPDATE vector_digest SET id_sum = id_sum - old.id + new.id, id_mix = id_mix - "
                        + mixOf("old.id") + " + " + mixOf("new.id") + "; END");
    }

    /** The digest of the {@code vectors} table, from its rows. */
    private static final String RECOMPUTE = "SELECT count(*), coalesce(sum(v), 0), coalesce(sum(m), 0) FROM ("
            + mixQuery("SELECT id AS v FROM vectors") + ")";

    /** A scalar subquery: {@link #mix(long)} of one value. */
    private static String mixOf(String value) {
        return "(SELECT m FROM (" + mixQuery("SELECT " + value + " AS v") + "))";
    }

    /** The digest SQLite keeps of the {@code vectors} table. */
    static VectorDigest ofDatabase(Connection db) throws SQLException {
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery("SELECT count, id_sum, id_mix FROM vector_digest WHERE single = 1")) {
            if (!rs.next()) {
                throw new SQLException("the table vector_digest has no row");
            }
            return new VectorDigest(rs.getLong(1), rs.getLong(2), rs.getLong(3));
        }
    }

    /** The digest of the {@code vectors} table computed from its rows (one scan), what the triggers should hold. */
    static VectorDigest recompute(Connection db) throws SQLException {
        try (Statement s = db.createStatement();
             ResultSet rs = s.executeQuery(RECOMPUTE)) {
            rs.next();
            return new VectorDigest(rs.getLong(1), rs.getLong(2), rs.getLong(3));
        }
    }
}
