package dev.funes.store;

import static dev.funes.store.Rows.single;

import dev.funes.Embedder;
import dev.funes.store.CheckReport.Finding;
import dev.funes.store.CheckReport.Status;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * {@link FunesStore#check}: inspects a store directory without opening it as a store (opening
 * would silently rebuild what it finds broken), and optionally rebuilds the derived parts.
 *
 * <p>The checks of the database are here, those of the vectors and the index in {@link VectorChecks};
 * {@link StoreRepair} rebuilds. All SQLite checks but the FTS5 one read through one read transaction, so a concurrent
 * writer cannot make two tables look inconsistent. FTS5's {@code integrity-check} is written as an
 * {@code INSERT}, so it runs on a writable connection, in a transaction that is rolled back.
 */
final class StoreCheck {

    /** The row of {@code memories_fts_data} holding FTS5's structure record. */
    private static final int FTS_STRUCTURE_ROW = 10;
    /** The FTS5 table: FTS5's integrity findings name it in quotes. */
    private static final String FTS_TABLE = "\"memories_fts\"";
    private static final List<String> TABLES = List.of("meta", "vectors", "memories", "memories_fts", "sessions",
            "sources");
    /** Rows named as examples in a finding. */
    static final int EXAMPLES = 5;

    /** The sessions table as the store computes it. */
    static final String EXPECTED_SESSIONS = Rows.SESSION_ROWS
            + " WHERE session IS NOT NULL GROUP BY agent, session";

    private final Path dir;
    private final Path database;
    private final Embedder embedder;
    private final Duration lockTimeout;
    private final VectorChecks vectorChecks;

    private StoreCheck(Path dir, Embedder embedder, Duration lockTimeout) {
        this.dir = dir.toAbsolutePath().normalize();
        this.database = this.dir.resolve(SqliteMemoryStore.DATABASE_FILE);
        this.embedder = embedder;
        this.lockTimeout = lockTimeout;
        this.vectorChecks = new VectorChecks(embedder, this.dir.resolve(StoreIndex.DIR));
    }

    /** See {@link FunesStore#check(Path, Embedder, boolean)}. */
    static CheckReport run(Path dir, Embedder embedder, boolean repair, Duration lockTimeout) {
        return new StoreCheck(dir, embedder, lockTimeout).run(repair);
    }

    /** The findings of one inspection, and what a repair needs to know. */
    static final class Inspection {
        final List<Finding> findings = new ArrayList<>();
        /** Database, schema, integrity and meta passed: derived data may be rebuilt from it. */
        boolean sound;
        UUID storeId;
        String modelId;
        int dimension;
        long memories;
        long unusedVectors;
        int schemaVersion;
        /** The digest of the vector ids that SQLite keeps differs from the ids, or its triggers are missing. */
        boolean staleDigest;
        /** Row numbers of memories whose identifier terms do not match their text. */
        final List<Long> staleTerms = new ArrayList<>();
        /** Ids of vectors the model computed that are unusable (wrong length, all zeros, NaN): repair re-embeds them. */
        final List<Long> brokenVectors = new ArrayList<>();

        void add(String check, Status status, String message) {
            findings.add(new Finding(check, status, message));
        }

        /** A problem {@code --repair} fixes, if the database proves sound (see {@link #inspect}). */
        void addRepairable(String check, String message) {
            findings.add(new Finding(check, Status.PROBLEM, message, true));
        }

        /** Repair rebuilds nothing from a database that is not sound: none of its findings is repairable then. */
        void noneRepairableUnlessSound() {
            if (!sound) {
                findings.replaceAll(f -> f.repairable() ? new Finding(f.check(), f.status(), f.message()) : f);
            }
        }

        boolean has(String check, Status status) {
            return findings.stream().anyMatch(f -> f.check().equals(check) && f.status() == status);
        }

        String message(String check) {
            return findings.stream().filter(f -> f.check().equals(check)).map(Finding::message).findFirst().orElse("");
        }
    }

    private CheckReport run(boolean repair) {
        Inspection first = inspect();
        if (!repair) {
            return new CheckReport(dir, first.findings);
        }
        List<Finding> notes = new ArrayList<>();
        Map<String, String> done = new StoreRepair(dir, embedder, lockTimeout).repair(first, notes);
        if (done.isEmpty()) {
            List<Finding> findings = new ArrayList<>(first.findings);
            findings.addAll(notes);
            return new CheckReport(dir, findings);
        }
        Inspection second = inspect();
        List<Finding> findings = new ArrayList<>();
        for (Finding f : second.findings) {
            String action = done.get(f.check());
            if (action == null) {
                findings.add(f);
            } else if (f.status() == Status.OK) {
                String found = first.message(f.check());
                int end = found.indexOf(". ");
                findings.add(new Finding(f.check(), Status.REPAIRED, action + " (found: "
                        + (end < 0 ? found : found.substring(0, end)) + "); now " + f.message()));
            } else {
                findings.add(new Finding(f.check(), f.status(), f.message() + " (after the repair: " + action + ")"));
            }
        }
        findings.addAll(notes);
        return new CheckReport(dir, findings);
    }

    // ---------------------------------------------------------------- quick signs

    /** Vectors read at each end of the id range by {@link #quick}. */
    private static final int QUICK_VECTORS = 16;

    /** See {@link FunesStore#quickCheck}. */
    static List<String> quick(Path dir) {
        Path database = dir.toAbsolutePath().normalize().resolve(SqliteMemoryStore.DATABASE_FILE);
        List<String> signs = new ArrayList<>();
        try (Connection c = SqliteMemoryStore.connect(database, true)) {
            c.setAutoCommit(false);
            try {
                long memories = single(c, "SELECT count(*) FROM memories");
                long indexed = single(c, "SELECT count(*) FROM memories_fts_docsize");
                if (memories != indexed || (memories > 0
                        && single(c, "SELECT count(*) FROM memories_fts_data WHERE id = " + FTS_STRUCTURE_ROW) == 0)) {
                    signs.add("the full-text index lists " + indexed + " memories of " + memories
                            + (memories == indexed ? " and misses its structure record" : "")
                            + ": searches by words miss memories");
                }
                String dimension = null;
                try (Statement s = c.createStatement();
                     ResultSet rs = s.executeQuery("SELECT value FROM meta WHERE key = 'dimension'")) {
                    dimension = rs.next() ? rs.getString(1) : null;
                }
                int bytes = dimension == null ? -1 : Integer.parseInt(dimension) * Float.BYTES;
                long broken = 0;
                long read = 0;
                try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                        "SELECT embedding FROM vectors WHERE id IN (SELECT id FROM vectors ORDER BY id LIMIT "
                                + QUICK_VECTORS + ") OR id IN (SELECT id FROM vectors ORDER BY id DESC LIMIT "
                                + QUICK_VECTORS + ")")) {
                    while (rs.next()) {
                        read++;
                        byte[] blob = rs.getBytes(1);
                        if (blob == null || blob.length != bytes || VectorChecks.fault(blob) != null) {
                            broken++;
                        }
                    }
                }
                if (broken > 0) {
                    signs.add(broken + " of the " + read + " vectors read are unusable (wrong length, all zeros or"
                            + " NaN): searches by meaning miss memories");
                }
            } finally {
                c.rollback();
            }
        } catch (SQLException | NumberFormatException e) {
            signs.add("the store cannot be read as it should: " + (e instanceof SQLException sql
                    ? SqliteMemoryStore.message(sql) : "damaged meta table (" + e.getMessage() + ")"));
        }
        return signs;
    }

    // ---------------------------------------------------------------- inspection

    private Inspection inspect() {
        Inspection in = new Inspection();
        if (!Files.isRegularFile(database)) {
            in.add("database", Status.PROBLEM, "no Funes store in " + dir + ": there is no " + database.getFileName());
            return in;
        }
        try (Connection c = SqliteMemoryStore.connect(database, true)) {
            c.setAutoCommit(false); // one read transaction: every check below sees one committed state
            try {
                if (!database(c, in)) {
                    return in;
                }
                boolean intact = integrity(c, in);
                foreignKeys(c, in);
                boolean meta = meta(c, in);
                in.sound = intact && meta;
                if (meta) {
                    vectorChecks.vectors(c, in);
                    vectorChecks.model(c, in);
                }
                sessions(c, in);
                sources(c, in);
                terms(c, in);
                fts(in, intact);
                if (meta) {
                    vectorChecks.ann(c, in);
                }
            } finally {
                c.rollback();
            }
        } catch (SQLException e) {
            in.sound = false;
            in.add("database", Status.PROBLEM, "cannot be read: " + SqliteMemoryStore.message(e));
        }
        in.noneRepairableUnlessSound();
        return in;
    }

    /** That the file is a SQLite database with a Funes schema this code reads; false stops the checks. */
    private boolean database(Connection c, Inspection in) {
        int version;
        Set<String> tables = new LinkedHashSet<>();
        try {
            version = Schema.version(c);
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT name FROM sqlite_schema WHERE type = 'table'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            in.add("database", Status.PROBLEM, SqliteMemoryStore.message(e));
            return false;
        }
        in.add("database", Status.OK, database.getFileName() + " is a SQLite database (" + bytes(database) + ")");
        in.schemaVersion = version;
        if (version > Schema.CURRENT_VERSION) {
            in.add("schema", Status.PROBLEM, "written by a newer Funes (schema version " + version + "; this Funes"
                    + " reads up to version " + Schema.CURRENT_VERSION + "): upgrade Funes to check or open it");
            return false;
        }
        if (version == 0) {
            in.add("schema", Status.PROBLEM, tables.isEmpty()
                    ? "the database is empty: no Funes store was ever created in it"
                    : "a SQLite database but not a Funes store (it has tables but no Funes schema version)");
            return false;
        }
        List<String> missing = TABLES.stream().filter(t -> !tables.contains(t)).toList();
        if (!missing.isEmpty()) {
            in.add("schema", Status.PROBLEM, "schema version " + version + " but the tables " + missing
                    + " are missing. " + SqliteMemoryStore.DAMAGE_ADVICE);
            return false;
        }
        if (version < Schema.CURRENT_VERSION) {
            in.add("schema", Status.WARNING, "schema version " + version + ", older than this Funes's "
                    + Schema.CURRENT_VERSION + ": it is migrated when the store is next opened");
        } else {
            in.add("schema", Status.OK, "schema version " + version);
        }
        return true;
    }

    private boolean integrity(Connection c, Inspection in) {
        List<String> messages = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA integrity_check(" + EXAMPLES + ")")) {
            while (rs.next()) {
                for (String line : rs.getString(1).split("\n")) {
                    if (!line.isBlank() && !line.startsWith("*** in database")) {
                        messages.add(line.strip());
                    }
                }
            }
        } catch (SQLException e) {
            in.add("integrity", Status.PROBLEM, SqliteMemoryStore.message(e));
            return false;
        }
        if (messages.equals(List.of("ok"))) {
            in.add("integrity", Status.OK, "SQLite's integrity check passed");
            return true;
        }
        // SQLite's check also asks FTS5 to check its index (SQLite 3.44 and later); what FTS5
        // finds names its table. The index is derived from the memories: the fts check reports
        // it and repair rebuilds it. Damage to the pages themselves names no table and stays here.
        List<String> fullText = messages.stream().filter(m -> m.contains(FTS_TABLE)).toList();
        if (fullText.size() == messages.size()) {
            in.add("integrity", Status.OK, "SQLite's integrity check passed for the tables; it found the full-text"
                    + " index damaged (see fts)");
            return true;
        }
        in.add("integrity", Status.PROBLEM, "SQLite's integrity check failed: " + String.join("; ", messages) + ". "
                + SqliteMemoryStore.DAMAGE_ADVICE);
        return false;
    }

    private void foreignKeys(Connection c, Inspection in) {
        List<String> examples = new ArrayList<>();
        int violations = 0;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("PRAGMA foreign_key_check")) {
            while (rs.next()) {
                if (violations++ < EXAMPLES) {
                    examples.add(rs.getString(1) + " row " + rs.getLong(2) + " -> " + rs.getString(3));
                }
            }
        } catch (SQLException e) {
            in.add("foreign-keys", Status.PROBLEM, SqliteMemoryStore.message(e));
            return;
        }
        if (violations == 0) {
            in.add("foreign-keys", Status.OK, "every memory's vector exists");
        } else {
            in.add("foreign-keys", Status.PROBLEM, violations + " rows refer to missing rows (" + String.join(", ", examples)
                    + "): those memories cannot be found by meaning. " + SqliteMemoryStore.DAMAGE_ADVICE);
        }
    }

    private boolean meta(Connection c, Inspection in) {
        Map<String, String> meta = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT key, value FROM meta")) {
            while (rs.next()) {
                meta.put(rs.getString(1), rs.getString(2));
            }
        } catch (SQLException e) {
            in.add("meta", Status.PROBLEM, SqliteMemoryStore.message(e));
            return false;
        }
        try {
            in.modelId = meta.get("model_id");
            in.dimension = Integer.parseInt(String.valueOf(meta.get("dimension")));
            in.storeId = UUID.fromString(String.valueOf(meta.get("store_id")));
            if (in.modelId == null || in.modelId.isBlank() || in.dimension < 1) {
                throw new IllegalArgumentException("model " + in.modelId + ", dimension " + in.dimension);
            }
        } catch (IllegalArgumentException e) {
            in.add("meta", Status.PROBLEM, "the meta table is damaged or incomplete (" + meta + "). "
                    + SqliteMemoryStore.DAMAGE_ADVICE);
            return false;
        }
        String recorded = in.modelId + " (" + in.dimension + " dimensions)";
        if (embedder != null && (!embedder.modelId().equals(in.modelId) || embedder.dimension() != in.dimension)) {
            in.add("meta", Status.PROBLEM, "the store was built with " + recorded + " but is being checked with "
                    + embedder.modelId() + " (" + embedder.dimension() + " dimensions): check it with " + in.modelId);
        } else {
            in.add("meta", Status.OK, "model " + recorded + ", store id " + in.storeId);
        }
        return true;
    }

    /**
     * The log files the memories cite. A memory whose file changed since it was read (marked
     * {@link dev.funes.SourceState#CHANGED_KEY}: rotated, truncated or rewritten) or no longer
     * exists stays on purpose: the store is a memory, not a mirror. So this is told, never a problem.
     */
    private void sources(Connection c, Inspection in) {
        long cited = 0;
        long files = 0;
        long changed = 0;
        long changedFiles = 0;
        long missing = 0;
        long missingFiles = 0;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                SELECT source_path, count(*),
                       sum(CASE WHEN json_valid(metadata) THEN json_extract(metadata, '$.%s') END IS NOT NULL)
                FROM memories WHERE source_path IS NOT NULL GROUP BY source_path"""
                .formatted(dev.funes.SourceState.CHANGED_KEY))) {
            while (rs.next()) {
                long n = rs.getLong(2);
                long marked = rs.getLong(3);
                files++;
                cited += n;
                changed += marked;
                changedFiles += marked > 0 ? 1 : 0;
                if (!exists(rs.getString(1))) {
                    missing += n;
                    missingFiles++;
                }
            }
        } catch (SQLException e) {
            in.add("sources", Status.PROBLEM, SqliteMemoryStore.message(e));
            return;
        }
        StringBuilder m = new StringBuilder().append(cited).append(cited == 1 ? " memory cites " : " memories cite ")
                .append(files).append(files == 1 ? " log file" : " log files");
        if (changed > 0) {
            m.append("; ").append(changed).append(" of them were read from an earlier version of ").append(changedFiles)
             .append(changedFiles == 1 ? " file" : " files").append(" (rotated, truncated or rewritten since: kept,"
                    + " their lines cite the file as it was)");
        }
        if (missing > 0) {
            m.append("; ").append(missing).append(" cite ").append(missingFiles)
             .append(missingFiles == 1 ? " file that no longer exists" : " files that no longer exist").append(" (kept)");
        }
        in.add("sources", Status.OK, m.toString());
    }

    private static boolean exists(String path) {
        try {
            return Files.exists(Path.of(path));
        } catch (RuntimeException e) { // a path this platform cannot parse: not a file here
            return false;
        }
    }

    private void sessions(Connection c, Inspection in) {
        String sql = "SELECT agent, session FROM (" + EXPECTED_SESSIONS
                + " EXCEPT SELECT agent, session, project, first_at, last_at, memories FROM sessions)"
                + " UNION SELECT agent, session FROM (SELECT agent, session, project, first_at, last_at, memories"
                + " FROM sessions EXCEPT " + EXPECTED_SESSIONS + ")";
        try {
            List<String> wrong = new ArrayList<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                while (rs.next()) {
                    wrong.add(rs.getString(1) + "/" + rs.getString(2));
                }
            }
            if (wrong.isEmpty()) {
                in.add("sessions", Status.OK, single(c, "SELECT count(*) FROM sessions") + " sessions agree with their memories");
            } else {
                in.addRepairable("sessions", wrong.size() + " sessions disagree with their memories (for example "
                        + String.join(", ", wrong.subList(0, Math.min(EXAMPLES, wrong.size())))
                        + "): session lists and counts are wrong. The table is derived from the memories: repair"
                        + " recomputes it.");
            }
        } catch (SQLException e) {
            in.add("sessions", Status.PROBLEM, SqliteMemoryStore.message(e));
        }
    }

    /**
     * That the full-text index covers the identifier terms (schema version 5) and that every
     * memory's {@code terms} column is what {@link Terms} makes of its indexed text ({@link LexicalText}): stale terms make
     * identifier searches miss or find the wrong memories, and FTS5's own check cannot see them
     * (the index matches the column, the column does not match the text).
     */
    private void terms(Connection c, Inspection in) {
        try {
            if (single(c, "SELECT count(*) FROM pragma_table_info('memories_fts') WHERE name = 'terms'") == 0) {
                in.add("fts", Status.PROBLEM, "the full-text index has no terms column (identifier parts): the"
                        + " schema is older than its version says. Re-index into a new store.");
                return;
            }
            long rows = 0;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT seq, kind, text, terms FROM memories")) {
                while (rs.next()) {
                    rows++;
                    if (!Terms.of(LexicalText.of(rs.getString(2), rs.getString(3))).equals(rs.getString(4))) {
                        in.staleTerms.add(rs.getLong(1));
                    }
                }
            }
            if (!in.staleTerms.isEmpty()) {
                in.addRepairable("fts", in.staleTerms.size() + " of " + rows + " memories have identifier terms"
                        + " that do not match their text (rows " + in.staleTerms.subList(0,
                        Math.min(EXAMPLES, in.staleTerms.size())) + "): searches by identifier may miss them. The"
                        + " terms are derived from the text: repair recomputes them and rebuilds the full-text index.");
            }
        } catch (SQLException e) {
            in.add("fts", Status.PROBLEM, SqliteMemoryStore.message(e));
        }
    }

    private void fts(Inspection in, boolean intact) {
        try (Connection w = SqliteMemoryStore.connect(database, false)) {
            w.setAutoCommit(false);
            try (Statement s = w.createStatement()) {
                // rank 1: also compare the index with the memories table it is built from.
                s.execute("INSERT INTO memories_fts(memories_fts, rank) VALUES ('integrity-check', 1)");
                in.add("fts", Status.OK, "the full-text index matches the memories");
            } catch (SQLException e) {
                if (!intact) {
                    in.add("fts", Status.PROBLEM, "cannot be checked in a database that fails SQLite's integrity"
                            + " check (" + e.getMessage() + ")");
                } else if (SqliteMemoryStore.damaged(e)) {
                    in.addRepairable("fts", "the full-text index does not match the memories (" + e.getMessage()
                            + "): searches by words may miss memories or fail. It is derived from the memories:"
                            + " repair rebuilds it.");
                } else {
                    in.add("fts", Status.PROBLEM, SqliteMemoryStore.message(e));
                }
            } finally {
                w.rollback();
            }
        } catch (SQLException e) {
            in.add("fts", Status.WARNING, "not checked: FTS5's check needs to open the database for writing ("
                    + SqliteMemoryStore.message(e) + ")");
        }
    }

    // ---------------------------------------------------------------- helpers

    private static String bytes(Path file) {
        try {
            long n = Files.size(file);
            return n < 1024 * 1024 ? (n / 1024) + " KiB" : String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0);
        } catch (IOException e) {
            return "size unknown";
        }
    }
}
