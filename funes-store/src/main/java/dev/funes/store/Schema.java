package dev.funes.store;

import dev.funes.MemoryKind;
import dev.funes.StoreException;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The SQLite schema, versioned with {@code PRAGMA user_version} and upgraded by ordered
 * migrations. Migration {@code n} turns a version {@code n - 1} database into version {@code n};
 * each runs in its own transaction together with the version bump, so a crash leaves the store at
 * one version or the next, never between. docs/STORE-FORMAT.md describes every table.
 */
final class Schema {

    /** Work a migration does in Java after its statements, in the same transaction. */
    @FunctionalInterface
    interface Step {
        void run(Connection connection) throws SQLException;
    }

    /** A step from {@code version - 1} to {@code version}: SQL statements, then an optional Java step. */
    record Migration(int version, String description, List<String> statements, Step step) {

        Migration(int version, String description, List<String> statements) {
            this(version, description, statements, null);
        }
    }

    /** How {@code memories_fts} splits and folds text into tokens (its {@code tokenize} option). */
    static final String FTS_TOKENIZE = "porter unicode61 remove_diacritics 2";
    /** The index of {@code memories} by vector (schema 1): lookups by vector id name it, so that no filter's index is chosen instead. */
    static final String VECTOR_INDEX = "memories_vector";

    /** The full-text index over the text and its identifier terms, and the triggers that keep it (version 5). */
    static final List<String> FTS_V5 = List.of(
            """
            CREATE VIRTUAL TABLE memories_fts USING fts5(
              text, terms, content='memories', content_rowid='seq',
              tokenize='%s'
            )""".formatted(FTS_TOKENIZE),
            """
            CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
              INSERT INTO memories_fts(rowid, text, terms) VALUES (new.seq, new.text, new.terms);
            END""",
            """
            CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
              INSERT INTO memories_fts(memories_fts, rowid, text, terms) VALUES ('delete', old.seq, old.text, old.terms);
            END""",
            """
            CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, terms ON memories BEGIN
              INSERT INTO memories_fts(memories_fts, rowid, text, terms) VALUES ('delete', old.seq, old.text, old.terms);
              INSERT INTO memories_fts(rowid, text, terms) VALUES (new.seq, new.text, new.terms);
            END""",
            "INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')");

    /** Drops the full-text index and its triggers, then runs {@code more}: a migration that builds them anew. */
    private static List<String> withDropOfFts(String... more) {
        List<String> all = new java.util.ArrayList<>(List.of("DROP TRIGGER memories_fts_insert",
                "DROP TRIGGER memories_fts_delete", "DROP TRIGGER memories_fts_update", "DROP TABLE memories_fts"));
        all.addAll(List.of(more));
        return List.copyOf(all);
    }

    /**
     * The full-text index over what {@link LexicalText} keeps of each text and its identifier terms,
     * built from the view {@code memories_lexical}, and the triggers that keep it (version 10).
     */
    static final List<String> FTS_V10 = List.of(
            "CREATE VIEW memories_lexical AS SELECT seq, " + LexicalText.sql("memories") + " AS text, terms FROM memories",
            """
            CREATE VIRTUAL TABLE memories_fts USING fts5(
              text, terms, content='memories_lexical', content_rowid='seq',
              tokenize='%s'
            )""".formatted(FTS_TOKENIZE),
            """
            CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
              INSERT INTO memories_fts(rowid, text, terms) VALUES (new.seq, %s, new.terms);
            END""".formatted(LexicalText.sql("new")),
            """
            CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
              INSERT INTO memories_fts(memories_fts, rowid, text, terms) VALUES ('delete', old.seq, %s, old.terms);
            END""".formatted(LexicalText.sql("old")),
            """
            CREATE TRIGGER memories_fts_update AFTER UPDATE OF text, terms ON memories BEGIN
              INSERT INTO memories_fts(memories_fts, rowid, text, terms) VALUES ('delete', old.seq, %s, old.terms);
              INSERT INTO memories_fts(rowid, text, terms) VALUES (new.seq, %s, new.terms);
            END""".formatted(LexicalText.sql("old"), LexicalText.sql("new")),
            "INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')");

    /**
     * Sets {@code memories.terms} of the rows of the given kinds (all when none is given) to what
     * {@link Terms} makes of their indexed text ({@link LexicalText}) where it differs; runs while
     * no full-text trigger exists, so the index is rebuilt once afterwards.
     */
    static void fillTerms(Connection connection, MemoryKind... kinds) throws SQLException {
        String where = kinds.length == 0 ? "" : " WHERE kind IN ('" + String.join("', '",
                java.util.Arrays.stream(kinds).map(MemoryKind::label).toList()) + "')";
        try (Statement s = connection.createStatement();
             var rs = s.executeQuery("SELECT seq, kind, text, terms FROM memories" + where);
             var update = connection.prepareStatement("UPDATE memories SET terms = ? WHERE seq = ?")) {
            while (rs.next()) {
                String terms = Terms.of(LexicalText.of(rs.getString(2), rs.getString(3)));
                if (!terms.equals(rs.getString(4))) {
                    update.setString(1, terms);
                    update.setLong(2, rs.getLong(1));
                    update.addBatch();
                }
            }
            update.executeBatch();
        }
    }

    static final List<Migration> MIGRATIONS = List.of(
            new Migration(1, "memories, sessions, sources, vectors, FTS5 and meta", List.of(
                    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID",
                    // AUTOINCREMENT: vector ids are never reused, so the ANN file's "max vector id
                    // covered" stays meaningful after deletions.
                    """
                    CREATE TABLE vectors (
                      id INTEGER PRIMARY KEY AUTOINCREMENT,
                      content_hash TEXT NOT NULL UNIQUE,
                      embedding BLOB NOT NULL
                    )""",
                    """
                    CREATE TABLE memories (
                      seq INTEGER PRIMARY KEY,
                      id TEXT NOT NULL UNIQUE,
                      kind TEXT NOT NULL,
                      text TEXT NOT NULL,
                      started_at TEXT,
                      ended_at TEXT,
                      agent TEXT NOT NULL,
                      project TEXT,
                      session TEXT,
                      source_path TEXT,
                      line_start INTEGER,
                      line_end INTEGER,
                      byte_start INTEGER,
                      byte_end INTEGER,
                      record_ids TEXT,
                      metadata TEXT NOT NULL,
                      content_hash TEXT NOT NULL,
                      vector_id INTEGER NOT NULL REFERENCES vectors(id),
                      added_at TEXT NOT NULL
                    )""",
                    "CREATE INDEX memories_vector ON memories(vector_id)",
                    "CREATE INDEX memories_agent_session ON memories(agent, session)",
                    "CREATE INDEX memories_session ON memories(session)",
                    "CREATE INDEX memories_project ON memories(project)",
                    "CREATE INDEX memories_source ON memories(source_path)",
                    "CREATE INDEX memories_time ON memories(coalesce(ended_at, started_at))",
                    """
                    CREATE VIRTUAL TABLE memories_fts USING fts5(
                      text, content='memories', content_rowid='seq',
                      tokenize='porter unicode61 remove_diacritics 2'
                    )""",
                    """
                    CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
                      INSERT INTO memories_fts(rowid, text) VALUES (new.seq, new.text);
                    END""",
                    """
                    CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
                      INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.seq, old.text);
                    END""",
                    """
                    CREATE TRIGGER memories_fts_update AFTER UPDATE OF text ON memories BEGIN
                      INSERT INTO memories_fts(memories_fts, rowid, text) VALUES ('delete', old.seq, old.text);
                      INSERT INTO memories_fts(rowid, text) VALUES (new.seq, new.text);
                    END""",
                    """
                    CREATE TABLE sessions (
                      agent TEXT NOT NULL,
                      session TEXT NOT NULL,
                      project TEXT,
                      first_at TEXT,
                      last_at TEXT,
                      memories INTEGER NOT NULL,
                      PRIMARY KEY (agent, session)
                    ) WITHOUT ROWID""",
                    """
                    CREATE TABLE sources (
                      path TEXT PRIMARY KEY,
                      size INTEGER NOT NULL,
                      last_modified TEXT NOT NULL,
                      indexed_bytes INTEGER NOT NULL,
                      indexed_lines INTEGER NOT NULL,
                      head_fingerprint TEXT NOT NULL,
                      format TEXT NOT NULL,
                      indexed_at TEXT NOT NULL
                    ) WITHOUT ROWID""")),
            new Migration(2, "git commits, their files, links from memories to commits, repository heads", List.of(
                    """
                    CREATE TABLE repo_heads (
                      repo TEXT PRIMARY KEY,
                      heads TEXT NOT NULL,
                      scanned_at TEXT NOT NULL
                    ) WITHOUT ROWID""",
                    """
                    CREATE TABLE commits (
                      repo TEXT NOT NULL,
                      sha TEXT NOT NULL,
                      time TEXT NOT NULL,
                      author TEXT NOT NULL,
                      message TEXT NOT NULL,
                      PRIMARY KEY (repo, sha)
                    ) WITHOUT ROWID""",
                    "CREATE INDEX commits_sha ON commits(sha)",
                    "CREATE INDEX commits_time ON commits(repo, time)",
                    """
                    CREATE TABLE commit_files (
                      repo TEXT NOT NULL,
                      sha TEXT NOT NULL,
                      path TEXT NOT NULL,
                      change TEXT NOT NULL,
                      old_path TEXT,
                      PRIMARY KEY (repo, sha, path),
                      FOREIGN KEY (repo, sha) REFERENCES commits(repo, sha) ON DELETE CASCADE
                    ) WITHOUT ROWID""",
                    "CREATE INDEX commit_files_path ON commit_files(repo, path)",
                    // sha: as the evidence gave it, abbreviated or full; repo is NULL while no
                    // scanned repository has the commit. Memory ids are not foreign keys: a link
                    // outlives a memory replaced by a re-read until the next linking pass.
                    """
                    CREATE TABLE links (
                      memory_id TEXT NOT NULL,
                      sha TEXT NOT NULL,
                      evidence TEXT NOT NULL,
                      confidence REAL NOT NULL,
                      repo TEXT,
                      detail TEXT,
                      linked_at TEXT NOT NULL,
                      PRIMARY KEY (memory_id, sha, evidence)
                    ) WITHOUT ROWID""",
                    "CREATE INDEX links_sha ON links(sha)",
                    """
                    CREATE TABLE link_state (
                      key TEXT PRIMARY KEY,
                      value TEXT NOT NULL
                    ) WITHOUT ROWID""")),
            // The indexer's resume point in a growing log (docs/STORE-FORMAT.md); '' = read from the start.
            new Migration(3, "sources.resume: where a grown log is read on from", List.of(
                    "ALTER TABLE sources ADD COLUMN resume TEXT NOT NULL DEFAULT ''")),
            new Migration(4, "redaction counts per type and tombstones of deleted memories", List.of(
                    // Placeholders ([REDACTED:type]) in the stored memories, per type: what
                    // `funes stats` shows, kept up to date by every add and delete.
                    "CREATE TABLE redactions (type TEXT PRIMARY KEY, count INTEGER NOT NULL) WITHOUT ROWID",
                    // Counts what an older store already holds: walks every placeholder of every
                    // text, project and metadata value, with the same rule as Redactor.PLACEHOLDER.
                    """
                    INSERT INTO redactions (type, count)
                    WITH RECURSIVE scan(rest, type) AS (
                      SELECT text || char(10) || coalesce(project, '') || char(10) || metadata, NULL
                        FROM memories
                       WHERE instr(text || char(10) || coalesce(project, '') || char(10) || metadata, '[REDACTED:') > 0
                      UNION ALL
                      SELECT substr(rest, instr(rest, '[REDACTED:') + 10),
                             substr(rest, instr(rest, '[REDACTED:') + 10,
                                    instr(substr(rest, instr(rest, '[REDACTED:') + 10), ']') - 1)
                        FROM scan WHERE instr(rest, '[REDACTED:') > 0
                    )
                    SELECT type, count(*) FROM scan
                     WHERE type <> '' AND type NOT GLOB '*[^a-z0-9-]*' AND type NOT GLOB '-*'
                       AND type NOT GLOB '*-' AND type NOT GLOB '*--*'
                     GROUP BY type""",
                    // Memories deleted from this store (by delete, or replaced by a re-read log):
                    // an export turns them into the dataset's tombstones, and an import does not
                    // bring back a memory deleted here after it was exported elsewhere.
                    """
                    CREATE TABLE tombstones (
                      id TEXT PRIMARY KEY,
                      deleted_at TEXT NOT NULL
                    ) WITHOUT ROWID""")),
            // Code-aware lexical matching: identifier parts (Terms) in their own column, indexed
            // with the text. The old index and its triggers go first, so filling the column for
            // existing rows does not touch an index that lacks it; the new index is then built once.
            new Migration(5, "memories.terms (identifier parts) and a full-text index over text and terms", withDropOfFts(
                    "ALTER TABLE memories ADD COLUMN terms TEXT NOT NULL DEFAULT ''"), connection -> {
                        fillTerms(connection);
                        try (Statement s = connection.createStatement()) {
                            for (String sql : FTS_V5) {
                                s.execute(sql);
                            }
                        }
                    }),
            // Opening a store compares this digest with the dense index's ids instead of reading
            // every vector id (VectorDigest, StoreIndex): O(1) database work while they agree.
            new Migration(6, "vector_digest: count, sum and mix of the vector ids, kept by triggers",
                    VectorDigest.migration()),
            // A search keeps the token counts of full-text rows between searches (DocLengths); a row
            // only changes when a memory is deleted (its row number may then be used again) or its
            // text or terms are rewritten, and this counter, kept by triggers in the same
            // transaction, tells every process that it happened.
            new Migration(7, "fts_rewrites: a count of full-text rows deleted or rewritten, kept by triggers", List.of(
                    """
                    CREATE TABLE fts_rewrites (
                      single INTEGER PRIMARY KEY CHECK (single = 1),
                      n INTEGER NOT NULL
                    )""",
                    "INSERT INTO fts_rewrites (single, n) VALUES (1, 0)",
                    "CREATE TRIGGER fts_rewrites_delete AFTER DELETE ON memories BEGIN"
                            + " UPDATE fts_rewrites SET n = n + 1; END",
                    "CREATE TRIGGER fts_rewrites_update AFTER UPDATE OF text, terms ON memories BEGIN"
                            + " UPDATE fts_rewrites SET n = n + 1; END")),
            // Passages (the whole content of every record, MemoryKind.PASSAGE) are written by the
            // indexer beside the exchanges. A store built before them holds renderings only: its
            // checkpoints are reset to "nothing read", so the next index reads every log again from
            // its start; the exchanges read again have the same ids (unchanged), their passages are
            // added. Logs deleted since keep their renderings.
            new Migration(8, "passages: every log is read again by the next index, to add its passages", List.of(
                    "UPDATE sources SET indexed_bytes = 0, indexed_lines = 0, resume = '' WHERE format <> 'funes:ignore'",
                    // Deleting a memory deletes its passages: found by this index, not a scan.
                    "CREATE INDEX IF NOT EXISTS memories_passage_of ON memories(json_extract(metadata, '$.passageOf'))"
                            + " WHERE kind = 'passage'")),
            // A filtered dense search reads the vector ids of every memory passing the filters
            // (DenseRetriever.readAllowed): with vector_id in the index of each filter column,
            // that is a read of the index alone, not of one whole row per memory (at 1M, 120k
            // rows cost about half a second). Same names, so nothing else changes.
            new Migration(9, "filter indexes cover vector_id: a filtered search reads them, not the rows", List.of(
                    "DROP INDEX IF EXISTS memories_agent_session",
                    "CREATE INDEX memories_agent_session ON memories(agent, session, vector_id)",
                    "DROP INDEX IF EXISTS memories_session",
                    "CREATE INDEX memories_session ON memories(session, vector_id)",
                    "DROP INDEX IF EXISTS memories_project",
                    "CREATE INDEX memories_project ON memories(project, vector_id)",
                    "DROP INDEX IF EXISTS memories_time",
                    "CREATE INDEX memories_time ON memories(coalesce(ended_at, started_at), vector_id)",
                    "CREATE INDEX IF NOT EXISTS memories_kind ON memories(kind, vector_id)")),
            // A passage's header quotes the request its exchange answers; the full-text index now
            // leaves that quote out (LexicalText): the index is built again from a view that
            // does, and the identifier terms of passages are recomputed first. The triggers count
            // rewritten terms (fts_rewrites), so cached token counts are dropped.
            new Migration(10, "the full-text index leaves out the request a passage's header quotes", withDropOfFts(
                    "DROP VIEW IF EXISTS memories_lexical"), connection -> {
                        fillTerms(connection, MemoryKind.PASSAGE);
                        try (Statement s = connection.createStatement()) {
                            for (String sql : FTS_V10) {
                                s.execute(sql);
                            }
                            s.execute("UPDATE fts_rewrites SET n = n + 1 WHERE EXISTS (SELECT 1 FROM memories)");
                        }
                    }),
            // The rerank's neighbours (Neighbours) are the exchanges that begin just before and
            // after one in its log file: with line_start in the index of source_path, each is one
            // step of the index, not a sort of every memory of a long log. Same name.
            new Migration(11, "the index of source_path also orders by line_start: a memory's neighbours are one step away",
                    List.of("DROP INDEX IF EXISTS memories_source",
                            "CREATE INDEX memories_source ON memories(source_path, line_start)")));

    /** The schema version this code writes and the newest it can read. */
    static final int CURRENT_VERSION = MIGRATIONS.get(MIGRATIONS.size() - 1).version();

    private Schema() {
    }

    /** The database's {@code user_version}. */
    static int version(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement(); var rs = s.executeQuery("PRAGMA user_version")) {
            return rs.next() ? rs.getInt(1) : 0;
        }
    }

    /**
     * Brings the database up to {@link #CURRENT_VERSION}. The connection must be in auto-commit
     * mode and begin its transactions with {@code BEGIN IMMEDIATE}; every migration commits on its
     * own.
     *
     * @return the version found before migrating
     * @throws StoreException if the database was written by a newer Funes, or is not a Funes
     *                        store at all
     */
    static int migrate(Connection connection, Path file) throws SQLException {
        int found = version(connection);
        if (found > CURRENT_VERSION) {
            throw new StoreException("the store " + file + " was written by a newer Funes (schema version " + found
                    + "; this Funes reads up to version " + CURRENT_VERSION + "): upgrade Funes to open it");
        }
        for (Migration migration : MIGRATIONS) {
            if (migration.version() <= found) {
                continue;
            }
            connection.setAutoCommit(false);
            try (Statement s = connection.createStatement()) {
                // Re-read under the write lock: another process may have just created or migrated it.
                // Both reads happen here, in one transaction: read apart, a creation committed by
                // another process between them looked like a foreign database.
                int current = version(connection);
                if (current == 0 && hasTables(connection)) {
                    throw new StoreException(file + " is a SQLite database but not a Funes store (it has tables but no"
                            + " Funes schema version): open an empty or new directory instead");
                }
                if (current < migration.version()) {
                    for (String sql : migration.statements()) {
                        s.execute(sql);
                    }
                    if (migration.step() != null) {
                        migration.step().run(connection);
                    }
                    s.execute("PRAGMA user_version = " + migration.version());
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        }
        return found;
    }

    private static boolean hasTables(Connection connection) throws SQLException {
        try (Statement s = connection.createStatement();
             var rs = s.executeQuery("SELECT count(*) FROM sqlite_schema WHERE type = 'table'")) {
            return rs.next() && rs.getInt(1) > 0;
        }
    }
}
