package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The state of the full-text index that the term-count cache and the split ranking compare
 * ({@link TermCounts}): two read transactions on one state of the database agree, a write to the
 * index between them is seen, and a cached count belongs to its generation only. Real SQLite
 * (FTS5) through a real store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TermCountsTest {

    private final Embedder embedder = TestModel.shared();

    private static Connection reader(Path dir) throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
        c.setAutoCommit(false);
        return c;
    }

    @Test
    void readTransactionsAgreeOnTheIndexUntilAWriteChangesIt(@TempDir Path dir) throws SQLException {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(TestCorpus.create().all());
            TermCounts cache = new TermCounts();
            try (Connection a = reader(dir); Connection b = reader(dir)) {
                TermCounts.Generation first = cache.sync(a);
                assertThat(first.sameIndex(b)).as("two snapshots of one state").isTrue();
                first.put("docker", 1, 20_001);
                assertThat(cache.sync(b).get("docker", 20_001)).as("same state, same generation").isEqualTo(1);
                a.rollback();
                b.rollback();

                try (Connection old = reader(dir)) {
                    TermCounts.Generation before = cache.sync(old); // a transaction that began before the write
                    store.addAll(List.of(Memory.builder(MemoryKind.NOTE, "me", "a wombat in the docker image").build()));
                    assertThat(before.sameIndex(a)).as("a snapshot after the write").isFalse();
                    assertThat(before.sameIndex(old)).as("the old snapshot itself").isTrue();

                    TermCounts.Generation after = cache.sync(a);
                    assertThat(after.get("docker", 20_001)).as("the write emptied the cache").isEqualTo(-1);
                    after.put("docker", 2, 20_001);
                    assertThat(before.get("docker", 20_001)).as("a count of the new state, asked in the old")
                            .isEqualTo(-1);
                    assertThat(after.get("docker", 20_001)).isEqualTo(2);
                }
            }
        }
    }

    @Test
    void aCountStoppedAtItsCapAnswersOnlyCapsUpToIt() throws SQLException {
        TermCounts cache = new TermCounts();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite::memory:")) {
            c.createStatement().execute("CREATE VIRTUAL TABLE memories_fts USING fts5(text)");
            TermCounts.Generation g = cache.sync(c);
            g.put("common", 101, 101); // stopped at its cap: at least 101
            g.put("rare", 7, 101);     // exact
            assertThat(g.get("common", 101)).isEqualTo(101);
            assertThat(g.get("common", 50)).isEqualTo(50);
            assertThat(g.get("common", 202)).as("not counted that far").isEqualTo(-1);
            assertThat(g.get("rare", 1_000_000)).isEqualTo(7);
            assertThat(g.get("rare", 5)).isEqualTo(5);
            assertThat(g.get("unseen", 101)).isEqualTo(-1);
            assertThat(cache.hits()).isEqualTo(4);
        }
    }
}
