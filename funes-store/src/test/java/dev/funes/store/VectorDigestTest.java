package dev.funes.store;

import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The digest of vector ids: the same in Java and in SQLite, and kept by the triggers of migration 6. */
class VectorDigestTest {

    private static final long SEED = 20261202L;

    @Test
    void sqliteMixesEveryIdAsJavaDoes() throws SQLException {
        long[] ids = {0, 1, 2, 65_535, 65_536, 2_147_483_647L, 2_147_483_648L, 4_294_967_295L, 4_294_967_296L,
                4_294_967_301L, 123_456_789_012_345L, Long.MAX_VALUE};
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:"); Statement s = c.createStatement()) {
            for (long id : ids) {
                try (ResultSet rs = s.executeQuery("SELECT m FROM (" + VectorDigest.mixQuery("SELECT " + id + " AS v")
                        + ")")) {
                    rs.next();
                    assertThat(rs.getLong(1)).as("mix of %d", id).isEqualTo(VectorDigest.mix(id));
                }
            }
        }
        assertThat(VectorDigest.mix(1)).isNotEqualTo(VectorDigest.mix(2));
    }

    @Test
    void theTriggersKeepTheDigestOfTheTableThroughInsertsDeletesAndIdChanges() throws SQLException {
        Random random = new Random(SEED);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:"); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE vectors (id INTEGER PRIMARY KEY AUTOINCREMENT, content_hash TEXT NOT NULL UNIQUE,"
                    + " embedding BLOB NOT NULL)");
            for (int i = 0; i < 50; i++) {
                s.execute("INSERT INTO vectors (content_hash, embedding) VALUES ('before " + i + "', x'00')");
            }
            for (String sql : VectorDigest.migration()) {
                s.execute(sql);
            }
            assertThat(VectorDigest.ofDatabase(c)).isEqualTo(VectorDigest.recompute(c));
            assertThat(VectorDigest.ofDatabase(c).count()).isEqualTo(50);
            for (int i = 0; i < 200; i++) {
                s.execute("INSERT INTO vectors (content_hash, embedding) VALUES ('after " + i + "', x'00')");
                if (random.nextInt(3) == 0) {
                    s.execute("DELETE FROM vectors WHERE id = (SELECT id FROM vectors ORDER BY random() LIMIT 1)");
                }
            }
            s.execute("UPDATE vectors SET id = 5_000_000_000 WHERE id = (SELECT max(id) FROM vectors)".replace("_", ""));
            VectorDigest kept = VectorDigest.ofDatabase(c);
            assertThat(kept).isEqualTo(VectorDigest.recompute(c));
            long[] ids;
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM vectors")) {
                rs.next();
                ids = new long[rs.getInt(1)];
            }
            try (ResultSet rs = s.executeQuery("SELECT id FROM vectors")) {
                for (int i = 0; rs.next(); i++) {
                    ids[i] = rs.getLong(1);
                }
            }
            assertThat(kept).isEqualTo(VectorDigest.of(ids));
            assertThat(VectorDigest.of(ids).minus(ids[0])).isNotEqualTo(kept).isEqualTo(kept.minus(ids[0]));
        }
    }
}
