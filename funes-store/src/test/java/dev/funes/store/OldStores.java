package dev.funes.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Turns a closed store back into what schema version 1 wrote, by undoing every later migration,
 * so migration tests start from the real shape of an old store whatever they themselves test.
 * A new migration must be undone here too (the migration tests fail until it is).
 */
final class OldStores {

    private OldStores() {
    }

    static void downgradeToVersion1(Path storeDir) throws SQLException {
        downgradeToVersion8(storeDir);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
            // Migration 7: the counter of full-text rows deleted or rewritten and its triggers.
            s.execute("DROP TRIGGER IF EXISTS fts_rewrites_delete");
            s.execute("DROP TRIGGER IF EXISTS fts_rewrites_update");
            s.execute("DROP TABLE IF EXISTS fts_rewrites");
            // Migration 6: the digest of the vector ids and its triggers.
            for (String trigger : new String[] {"vector_digest_insert", "vector_digest_delete", "vector_digest_update"}) {
                s.execute("DROP TRIGGER IF EXISTS " + trigger);
            }
            s.execute("DROP TABLE IF EXISTS vector_digest");
            // Migration 5: the identifier terms and the two-column full-text index; back to the
            // text-only index of version 1, rebuilt from the memories.
            for (String trigger : new String[] {"memories_fts_insert", "memories_fts_delete", "memories_fts_update"}) {
                s.execute("DROP TRIGGER IF EXISTS " + trigger);
            }
            s.execute("DROP TABLE IF EXISTS memories_fts");
            s.execute("ALTER TABLE memories DROP COLUMN terms");
            s.execute("""
                    CREATE VIRTUAL TABLE memories_fts USING fts5(
                      text, content='memories', content_rowid='seq',
                      tokenize='porter unicode61 remove_diacritics 2'
                    )""");
            s.execute("""
                    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
                      INSERT INTO memories_fts(rowid, text) VALUES (new.seq, new.text);
                    END""");
            s.execute("""
                    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
                      INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.seq, old.text);
                    END""");
            s.execute("""
                    CREATE TRIGGER memories_fts_update AFTER UPDATE OF text ON memories BEGIN
                      INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.seq, old.text);
                      INSERT INTO memories_fts(rowid, text) VALUES (new.seq, new.text);
                    END""");
            s.execute("INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')");
            // Migration 4: redaction counts and tombstones.
            s.execute("DROP TABLE IF EXISTS redactions");
            s.execute("DROP TABLE IF EXISTS tombstones");
            // Migration 3: the resume point of a grown log.
            s.execute("ALTER TABLE sources DROP COLUMN resume");
            // Migration 2: git links.
            for (String table : new String[] {"links", "commit_files", "commits", "repo_heads", "link_state"}) {
                s.execute("DROP TABLE IF EXISTS " + table);
            }
            s.execute("PRAGMA user_version = 1");
        }
    }

    /** Undoes migration 11: the index of {@code source_path} without {@code line_start}. */
    static void downgradeToVersion10(Path storeDir) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
            s.execute("DROP INDEX memories_source");
            s.execute("CREATE INDEX memories_source ON memories(source_path)");
            s.execute("PRAGMA user_version = 10");
        }
    }

    /**
     * Undoes migrations 11 and 10: the full-text index built from the memories' whole text (a passage's
     * header with the request it quotes), and the identifier terms of that text.
     */
    static void downgradeToVersion9(Path storeDir) throws SQLException {
        downgradeToVersion10(storeDir);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
            for (String trigger : new String[] {"memories_fts_insert", "memories_fts_delete", "memories_fts_update"}) {
                s.execute("DROP TRIGGER " + trigger);
            }
            s.execute("DROP TABLE memories_fts");
            s.execute("DROP VIEW memories_lexical");
            try (ResultSet rs = s.executeQuery("SELECT seq, text FROM memories WHERE kind = 'passage'");
                 PreparedStatement update = c.prepareStatement("UPDATE memories SET terms = ? WHERE seq = ?")) {
                while (rs.next()) {
                    update.setString(1, Terms.of(rs.getString(2)));
                    update.setLong(2, rs.getLong(1));
                    update.executeUpdate();
                }
            }
            for (String sql : Schema.FTS_V5) {
                s.execute(sql);
            }
            s.execute("PRAGMA user_version = 9");
        }
    }

    /** Undoes migration 9: the filter columns' indexes without {@code vector_id}, and no index of {@code kind}. */
    static void downgradeToVersion8(Path storeDir) throws SQLException {
        downgradeToVersion9(storeDir);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
            for (String index : new String[] {"memories_agent_session", "memories_session", "memories_project",
                    "memories_time", "memories_kind"}) {
                s.execute("DROP INDEX IF EXISTS " + index);
            }
            s.execute("CREATE INDEX memories_agent_session ON memories(agent, session)");
            s.execute("CREATE INDEX memories_session ON memories(session)");
            s.execute("CREATE INDEX memories_project ON memories(project)");
            s.execute("CREATE INDEX memories_time ON memories(coalesce(ended_at, started_at))");
            s.execute("PRAGMA user_version = 8");
        }
    }
}
