package dev.funes.store;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
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
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + storeDir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
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
}
