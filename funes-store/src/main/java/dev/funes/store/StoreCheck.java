package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.StoreException;
import dev.funes.store.CheckReport.Finding;
import dev.funes.store.CheckReport.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * {@link FunesStore#check}: inspects a store directory without opening it as a store (opening
 * would silently rebuild what it finds broken), and optionally rebuilds the derived parts.
 *
 * <p>All SQLite checks but the FTS5 one read through one read transaction, so a concurrent
 * writer cannot make two tables look inconsistent. FTS5's {@code integrity-check} is written as an
 * {@code INSERT}, so it runs on a writable connection, in a transaction that is rolled back.
 */
final class StoreCheck {

    private static final Logger LOG = LoggerFactory.getLogger(StoreCheck.class);

    /** The row of {@code memories_fts_data} holding FTS5's structure record. */
    private static final int FTS_STRUCTURE_ROW = 10;
    /** The FTS5 table: FTS5's integrity findings name it in quotes. */
    private static final String FTS_TABLE = "\"memories_fts\"";
    private static final List<String> TABLES = List.of("meta", "vectors", "memories", "memories_fts", "sessions",
            "sources");
    /** Stored vectors re-embedded from each end of the id range. */
    private static final int MODEL_SAMPLE = 3;
    /** Least cosine between a stored vector and a fresh embedding of its text; ONNX runs differ by far less. */
    private static final double MODEL_AGREEMENT = 0.98;
    private static final int EXAMPLES = 5;
    /** Texts embedded together when repair computes broken vectors again. */
    private static final int EMBED_BATCH = 32;
    private static final String REBUILT_AT_OPEN = " The index is derived from the vectors in SQLite: the next open"
            + " rebuilds it, or repair now.";

    /** The sessions table as {@code SqliteMemoryStore.refreshSession} computes it. */
    private static final String EXPECTED_SESSIONS = """
            SELECT agent, session, max(project), min(coalesce(started_at, ended_at)),
                   max(coalesce(ended_at, started_at)), max(sum(kind <> 'passage'), 1)
            FROM memories WHERE session IS NOT NULL GROUP BY agent, session""";

    private final Path dir;
    private final Path database;
    private final Path indexDir;
    private final Embedder embedder;
    private final Duration lockTimeout;

    private StoreCheck(Path dir, Embedder embedder, Duration lockTimeout) {
        this.dir = dir.toAbsolutePath().normalize();
        this.database = this.dir.resolve(SqliteMemoryStore.DATABASE_FILE);
        this.indexDir = this.dir.resolve(StoreIndex.DIR);
        this.embedder = embedder;
        this.lockTimeout = lockTimeout;
    }

    /** See {@link FunesStore#check(Path, Embedder, boolean)}. */
    static CheckReport run(Path dir, Embedder embedder, boolean repair, Duration lockTimeout) {
        return new StoreCheck(dir, embedder, lockTimeout).run(repair);
    }

    /** The findings of one inspection, and what a repair needs to know. */
    private static final class Inspection {
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
        Map<String, String> done = repair(first, notes);
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
                        if (blob == null || blob.length != bytes || fault(blob) != null) {
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
                    vectors(c, in);
                    model(c, in);
                }
                sessions(c, in);
                sources(c, in);
                terms(c, in);
                fts(in, intact);
                if (meta) {
                    ann(c, in);
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
     * Reads every vector, as a stream of BLOBs: each must hold {@code dimension} float32 values,
     * finite and not all zero (a zeroed vector matches nothing, and cosine with it is undefined).
     * About a second per million vectors of 384 dimensions beyond reading them from disk.
     */
    private void vectors(Connection c, Inspection in) {
        try {
            in.memories = single(c, "SELECT count(*) FROM memories");
            int bytes = in.dimension * Float.BYTES;
            long vectors = 0;
            long badLength = 0;
            long zero = 0;
            long nonFinite = 0;
            long fromCallers = 0;
            List<Long> examples = new ArrayList<>();
            try (Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT id, content_hash LIKE '" + CallerVectors.KEY_PREFIX
                         + "%', embedding FROM vectors ORDER BY id")) {
                while (rs.next()) {
                    vectors++;
                    byte[] blob = rs.getBytes(3);
                    String fault = blob == null || blob.length != bytes ? "length" : fault(blob);
                    if (fault == null) {
                        continue;
                    }
                    switch (fault) {
                        case "length" -> badLength++;
                        case "zero" -> zero++;
                        default -> nonFinite++;
                    }
                    long id = rs.getLong(1);
                    if (examples.size() < EXAMPLES) {
                        examples.add(id);
                    }
                    if (rs.getBoolean(2)) {
                        fromCallers++;
                    } else {
                        in.brokenVectors.add(id);
                    }
                }
            }
            long wrongText = single(c, "SELECT count(*) FROM memories m JOIN vectors v ON v.id = m.vector_id"
                    + " WHERE v.content_hash != m.content_hash");
            in.unusedVectors = single(c, "SELECT count(*) FROM vectors v WHERE NOT EXISTS"
                    + " (SELECT 1 FROM memories m WHERE m.vector_id = v.id)");
            long broken = badLength + zero + nonFinite;
            if (broken > 0 || wrongText > 0) {
                List<String> what = new ArrayList<>();
                if (badLength > 0) {
                    what.add(badLength + " do not have " + in.dimension + " float32 values");
                }
                if (zero > 0) {
                    what.add(zero + " are all zeros");
                }
                if (nonFinite > 0) {
                    what.add(nonFinite + " hold NaN or infinity");
                }
                String message = (broken > 0 ? "of " + vectors + " vectors, " + String.join(", ", what) + " (ids "
                        + examples + (broken > examples.size() ? ", ..." : "") + "); " : "")
                        + (wrongText > 0 ? wrongText + " memories use the vector of another text; " : "")
                        + "searches by meaning cannot find those memories or rank them wrong.";
                if (wrongText == 0 && fromCallers == 0 && sameModel(in)) {
                    in.addRepairable("vectors", message + " The vectors are the model's, computed from the texts:"
                            + " repair embeds those texts again.");
                } else {
                    in.add("vectors", Status.PROBLEM, message + (fromCallers > 0 ? " " + fromCallers + " of them were"
                            + " given by the program that stored them (not computed by the model): delete those"
                            + " memories and add them again through it. " : " ") + SqliteMemoryStore.DAMAGE_ADVICE);
                }
            } else if (in.unusedVectors > 0) {
                in.add("vectors", Status.WARNING, in.unusedVectors + " of " + vectors + " vectors are used by no memory"
                        + " (harmless, they match nothing; repair removes them)");
            } else {
                in.add("vectors", Status.OK, "all " + vectors + " vectors for " + in.memories + " memories hold "
                        + in.dimension + " finite values, not all zero");
            }
        } catch (SQLException e) {
            in.add("vectors", Status.PROBLEM, SqliteMemoryStore.message(e));
        }
    }

    /** Whether the embedder given is the store's model, so it can compute the store's vectors again. */
    private boolean sameModel(Inspection in) {
        return embedder != null && embedder.modelId().equals(in.modelId) && embedder.dimension() == in.dimension;
    }

    /** What is wrong with a vector of the right length: {@code "zero"}, {@code "nan"}, or null. */
    private static String fault(byte[] blob) {
        boolean allZero = true;
        for (int i = 0; i < blob.length; i += Float.BYTES) {
            int bits = (blob[i] & 0xff) | (blob[i + 1] & 0xff) << 8 | (blob[i + 2] & 0xff) << 16 | (blob[i + 3] & 0xff) << 24;
            if ((bits & 0x7f800000) == 0x7f800000) {
                return "nan"; // exponent all ones: NaN or infinity
            }
            allZero &= (bits & 0x7fffffff) == 0;
        }
        return allZero ? "zero" : null;
    }

    /**
     * Re-embeds a few stored texts: a changed model under the same id would make every dense answer
     * wrong. Vectors a caller supplied ({@link CallerVectors}) are not the model's to recompute.
     */
    private void model(Connection c, Inspection in) {
        if (embedder == null) {
            in.add("model", Status.WARNING, "stored vectors not compared with the model (no embedder given)");
            return;
        }
        if (!embedder.modelId().equals(in.modelId) || embedder.dimension() != in.dimension) {
            return; // reported under meta
        }
        List<Long> ids = new ArrayList<>();
        List<float[]> stored = new ArrayList<>();
        List<String> texts = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT v.id, v.embedding, (SELECT m.text FROM memories m WHERE m.vector_id = v.id ORDER BY m.seq LIMIT 1)
                FROM vectors v
                WHERE v.id IN (SELECT id FROM vectors WHERE content_hash NOT LIKE 'vector:%' ORDER BY id LIMIT ?)
                   OR v.id IN (SELECT id FROM vectors WHERE content_hash NOT LIKE 'vector:%' ORDER BY id DESC LIMIT ?)
                ORDER BY v.id""")) {
            ps.setInt(1, MODEL_SAMPLE);
            ps.setInt(2, MODEL_SAMPLE);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    byte[] blob = rs.getBytes(2);
                    String text = rs.getString(3);
                    // A broken vector (zeros, NaN) is the vectors check's finding, not a changed model.
                    if (text != null && blob != null && blob.length == in.dimension * Float.BYTES && fault(blob) == null) {
                        ids.add(rs.getLong(1));
                        stored.add(Rows.vector(blob, in.dimension, rs.getLong(1)));
                        texts.add(text);
                    }
                }
            }
        } catch (SQLException | StoreException e) {
            in.add("model", Status.PROBLEM, e instanceof SQLException sql ? SqliteMemoryStore.message(sql) : e.getMessage());
            return;
        }
        if (ids.isEmpty()) {
            in.add("model", Status.OK, "no stored vectors to compare with the model");
            return;
        }
        List<float[]> fresh;
        try {
            fresh = embedder.embedDocuments(texts);
        } catch (RuntimeException e) { // EmbeddingException, or a bug of the embedder
            in.add("model", Status.PROBLEM, "the model " + in.modelId + " cannot embed stored texts: " + e.getMessage());
            return;
        }
        double worst = 1;
        long worstId = -1;
        for (int i = 0; i < ids.size(); i++) {
            double cosine = cosine(stored.get(i), fresh.get(i));
            if (cosine < worst) {
                worst = cosine;
                worstId = ids.get(i);
            }
        }
        String agreement = String.format(Locale.ROOT, "%.4f", worst);
        if (worst < MODEL_AGREEMENT) {
            in.add("model", Status.PROBLEM, "stored vectors do not match what " + in.modelId + " computes now (cosine "
                    + agreement + " for vector " + worstId + "): the model changed since they were stored, so searches"
                    + " by meaning are wrong; index the logs again into a new store");
        } else {
            in.add("model", Status.OK, ids.size() + " stored vectors match what " + in.modelId + " computes now (cosine >= "
                    + agreement + ")");
        }
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
     * memory's {@code terms} column is what {@link Terms} makes of its text: stale terms make
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
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT seq, text, terms FROM memories")) {
                while (rs.next()) {
                    rows++;
                    if (!Terms.of(rs.getString(2)).equals(rs.getString(3))) {
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

    /** Sets the terms of the given rows from their text; the index is rebuilt afterwards. */
    private static void recomputeTerms(Connection w, List<Long> seqs) throws SQLException {
        if (seqs.isEmpty()) {
            return;
        }
        try (PreparedStatement read = w.prepareStatement("SELECT text FROM memories WHERE seq = ?");
             PreparedStatement update = w.prepareStatement("UPDATE memories SET terms = ? WHERE seq = ?")) {
            for (long seq : seqs) {
                read.setLong(1, seq);
                try (ResultSet rs = read.executeQuery()) {
                    if (rs.next()) {
                        update.setString(1, Terms.of(rs.getString(1)));
                        update.setLong(2, seq);
                        update.executeUpdate();
                    }
                }
            }
        }
    }

    /**
     * Whether the digest of the vector ids SQLite keeps ({@link VectorDigest}, schema 6) is wrong:
     * an open would then compare the index with the wrong ids, so the {@code ann} check reports it.
     */
    private static String digestProblem(Connection c, Inspection in) throws SQLException {
        if (in.schemaVersion < 6) {
            return null; // migrated (and the digest computed) at the next open
        }
        long triggers = single(c, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name IN ("
                + VectorDigest.TRIGGERS.stream().map(t -> "'" + t + "'").collect(Collectors.joining(", ")) + ")");
        VectorDigest actual = VectorDigest.recompute(c);
        VectorDigest kept;
        try {
            kept = VectorDigest.ofDatabase(c);
        } catch (SQLException e) {
            kept = null;
        }
        if (triggers == VectorDigest.TRIGGERS.size() && actual.equals(kept)) {
            return null;
        }
        in.staleDigest = true;
        return "the digest of the vector ids that opening compares with the index (table vector_digest"
                + (triggers < VectorDigest.TRIGGERS.size() ? ", " + (VectorDigest.TRIGGERS.size() - triggers) + " of its triggers"
                + " missing" : "") + ") says " + (kept == null ? "nothing" : kept.count() + " vectors") + ", the table"
                + " holds " + actual.count() + ": an open could trust an index out of step. Repair recomputes it.";
    }

    private void ann(Connection c, Inspection in) {
        Path manifestFile = indexDir.resolve(IndexManifest.FILE);
        String index = StoreIndex.DIR + "/";
        try {
            String digest = digestProblem(c, in);
            long vectors = single(c, "SELECT count(*) FROM vectors");
            IndexSegment.Identity identity = new IndexSegment.Identity(in.storeId, in.modelId, in.dimension);
            if (!Files.exists(manifestFile)) {
                // Normal until a writing store first seals a segment (after freshLimit vectors, or
                // at close): the vectors are searched from memory meanwhile. The next open builds it.
                annFinding(in, digest != null ? Status.PROBLEM : Status.OK, digest != null ? digest
                        : vectors == 0 ? "no vectors, no index"
                        : "no " + index + IndexManifest.FILE + " yet: the " + vectors + " vectors are searched"
                        + " from memory until a segment is written (when a writing store closes, or at the next open)");
                return;
            }
            IndexManifest manifest;
            try {
                manifest = IndexManifest.read(manifestFile, identity);
            } catch (IndexSegment.InvalidIndexException e) {
                annFinding(in, Status.PROBLEM, index + IndexManifest.FILE + ": " + e.getMessage() + "."
                        + REBUILT_AT_OPEN);
                return;
            }
            long[] inSegments = new long[0];
            for (IndexManifest.Segment entry : manifest.segments()) {
                IndexSegment segment;
                try {
                    segment = IndexSegment.load(indexDir.resolve(entry.name()), identity);
                } catch (IndexSegment.InvalidIndexException e) {
                    annFinding(in, Status.PROBLEM, index + entry.name() + ": " + e.getMessage() + "." + REBUILT_AT_OPEN);
                    return;
                }
                try {
                    if (segment.size() != entry.count() || segment.fileLength() != entry.fileLength()
                            || segment.bodyCrc() != entry.bodyCrc()) {
                        annFinding(in, Status.PROBLEM, index + entry.name() + " does not match the manifest."
                                + REBUILT_AT_OPEN);
                        return;
                    }
                    long[] ids = segment.sortedIds();
                    long[] both = Arrays.copyOf(inSegments, inSegments.length + ids.length);
                    System.arraycopy(ids, 0, both, inSegments.length, ids.length);
                    inSegments = both;
                } finally {
                    segment.release();
                }
            }
            Arrays.sort(inSegments);
            if (vectors == 0) {
                if (digest != null && inSegments.length == 0) {
                    annFinding(in, Status.PROBLEM, digest);
                    return;
                }
                annFinding(in, inSegments.length == 0 ? Status.OK : Status.PROBLEM, inSegments.length == 0
                        ? "no vectors, an empty index"
                        : index + " holds " + inSegments.length + " vectors but the store has none." + REBUILT_AT_OPEN);
                return;
            }
            long max = inSegments.length == 0 ? 0 : inSegments[inSegments.length - 1];
            long[] inDatabase = ids(c, max);
            long[] diff = difference(inSegments, inDatabase);
            if (diff[1] > 0) {
                annFinding(in, Status.PROBLEM, index + " is stale: its " + manifest.segments().size() + " segments hold "
                        + inSegments.length + " vectors up to id " + max + ", the database " + inDatabase.length + " ("
                        + diff[1] + " missing from the segments, " + diff[0] + " deleted since)." + REBUILT_AT_OPEN);
                return;
            }
            long newer = vectors - inDatabase.length;
            if (digest != null) {
                annFinding(in, Status.PROBLEM, digest);
                return;
            }
            in.add("ann", Status.OK, index + " holds " + inSegments.length + " vectors in " + manifest.segments().size()
                    + " segments, the ids of the database" + (diff[0] > 0 ? " and " + diff[0] + " deleted since (dropped"
                    + " at the next merge)" : "") + (newer > 0 ? "; " + newer + " newer vectors are searched from memory"
                    + " until a segment is written (when a writing store closes)" : ""));
        } catch (SQLException e) {
            in.add("ann", Status.PROBLEM, SqliteMemoryStore.message(e));
        }
    }

    /** The index is derived from the vectors in SQLite: every problem with it is repaired by a rebuild. */
    private static void annFinding(Inspection in, Status status, String message) {
        if (status == Status.PROBLEM) {
            in.addRepairable("ann", message);
        } else {
            in.add("ann", status, message);
        }
    }

    private static long[] ids(Connection c, long maxId) throws SQLException {
        long[] ids = new long[1024];
        int n = 0;
        try (PreparedStatement ps = c.prepareStatement("SELECT id FROM vectors WHERE id <= ? ORDER BY id")) {
            ps.setLong(1, maxId);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    if (n == ids.length) {
                        ids = Arrays.copyOf(ids, n * 2);
                    }
                    ids[n++] = rs.getLong(1);
                }
            }
        }
        return Arrays.copyOf(ids, n);
    }

    /** How many of {@code a} are not in {@code b}, and of {@code b} not in {@code a}; both sorted. */
    private static long[] difference(long[] a, long[] b) {
        long onlyA = 0;
        long onlyB = 0;
        int i = 0;
        int j = 0;
        while (i < a.length || j < b.length) {
            if (j == b.length || (i < a.length && a[i] < b[j])) {
                onlyA++;
                i++;
            } else if (i == a.length || b[j] < a[i]) {
                onlyB++;
                j++;
            } else {
                i++;
                j++;
            }
        }
        return new long[] {onlyA, onlyB};
    }

    // ---------------------------------------------------------------- repair

    /**
     * Rebuilds the derived parts the inspection found wrong. Returns what was done, by check;
     * adds to {@code notes} why something could not be done.
     */
    private Map<String, String> repair(Inspection in, List<Finding> notes) {
        Map<String, String> done = new LinkedHashMap<>();
        boolean fts = in.has("fts", Status.PROBLEM);
        boolean sessions = in.has("sessions", Status.PROBLEM);
        boolean digest = in.staleDigest;
        boolean ann = in.has("ann", Status.PROBLEM);
        boolean reembed = in.findings.stream().anyMatch(f -> f.check().equals("vectors") && f.repairable());
        // Broken vectors no memory uses have no text to embed: they go with the other unused ones.
        boolean unused = (in.has("vectors", Status.WARNING) || reembed) && in.unusedVectors > 0;
        if (!in.sound) {
            notes.add(new Finding("repair", Status.PROBLEM, "nothing was rebuilt: derived data is rebuilt only from a"
                    + " database that passes the database, schema, integrity and meta checks"));
            return done;
        }
        if (!fts && !sessions && !unused && !ann && !reembed) {
            return done;
        }
        Map<Long, float[]> embedded = new LinkedHashMap<>();
        if (reembed) {
            try {
                embedAgain(in.brokenVectors, embedded);
            } catch (SQLException | RuntimeException e) {
                notes.add(new Finding("repair", Status.PROBLEM, "could not embed the texts of the broken vectors again: "
                        + (e instanceof SQLException sql ? SqliteMemoryStore.message(sql) : e.getMessage())));
                reembed = false;
            }
        }
        if (fts || sessions || unused || digest || reembed) {
            try (WriteLock.Held held = new WriteLock(dir, lockTimeout).acquire("repairing the store");
                 Connection w = SqliteMemoryStore.connect(database, false)) {
                w.setAutoCommit(false);
                try (Statement s = w.createStatement()) {
                    if (fts) {
                        recomputeTerms(w, in.staleTerms);
                        s.execute("INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')");
                        if (single(w, "SELECT count(*) FROM sqlite_schema WHERE name = 'fts_rewrites'") > 0) {
                            // Token counts a running store keeps (DocLengths) may be those of the broken index.
                            s.execute("UPDATE fts_rewrites SET n = n + 1");
                        }
                        done.put("fts", "rebuilt the full-text index from the " + single(w, "SELECT count(*) FROM memories")
                                + " memories");
                    }
                    if (sessions) {
                        s.executeUpdate("DELETE FROM sessions");
                        int n = s.executeUpdate("INSERT INTO sessions (agent, session, project, first_at, last_at,"
                                + " memories) " + EXPECTED_SESSIONS);
                        done.put("sessions", "recomputed the sessions table from the memories (" + n + " sessions)");
                    }
                    if (unused) {
                        // counted first: the driver's update count includes the vector_digest trigger's rows
                        long n = single(w, "SELECT count(*) FROM vectors WHERE NOT EXISTS"
                                + " (SELECT 1 FROM memories m WHERE m.vector_id = vectors.id)");
                        s.executeUpdate("DELETE FROM vectors WHERE NOT EXISTS"
                                + " (SELECT 1 FROM memories m WHERE m.vector_id = vectors.id)");
                        done.put("vectors", "removed " + n + " vectors no memory used");
                    }
                    if (digest) {
                        for (String trigger : VectorDigest.TRIGGERS) {
                            s.execute("DROP TRIGGER IF EXISTS " + trigger);
                        }
                        s.execute("DROP TABLE IF EXISTS vector_digest");
                        for (String sql : VectorDigest.migration()) {
                            s.execute(sql);
                        }
                        done.put("ann", "recomputed the digest of the vector ids (table vector_digest) and its triggers");
                    }
                    if (reembed) {
                        try (PreparedStatement ps = w.prepareStatement("UPDATE vectors SET embedding = ? WHERE id = ?")) {
                            for (Map.Entry<Long, float[]> e : embedded.entrySet()) {
                                ps.setBytes(1, Rows.vectorBytes(e.getValue()));
                                ps.setLong(2, e.getKey());
                                ps.executeUpdate();
                            }
                        }
                        done.merge("vectors", "embedded " + embedded.size() + " texts again for their broken vectors",
                                (a, b) -> a + ", and " + b);
                    }
                    w.commit();
                } catch (SQLException | RuntimeException e) {
                    w.rollback();
                    done.clear();
                    throw e;
                }
            } catch (SQLException | IOException | StoreException e) {
                notes.add(new Finding("repair", Status.PROBLEM, "could not rebuild in the database: "
                        + (e instanceof SQLException sql ? SqliteMemoryStore.message(sql) : e.getMessage())));
                return done;
            }
        }
        // The index holds copies of the vectors: removed or re-embedded ones need a rebuild.
        if ((ann && !indexSound(in)) || unused || reembed) {
            String what = rebuildIndex(in, notes);
            if (what != null) {
                if (ann) {
                    done.merge("ann", what, (a, b) -> a + ", and " + b);
                } else {
                    done.merge("vectors", what, (a, b) -> a + ", and " + b);
                }
            }
        }
        LOG.info("Repaired the store {}: {}", dir, done);
        return done;
    }

    /**
     * Embeds again the text behind each of the given vectors (a vector no memory uses is left
     * out: repair removes those), in batches, before the write transaction begins.
     */
    private void embedAgain(List<Long> vectorIds, Map<Long, float[]> embedded) throws SQLException {
        Map<Long, String> texts = new LinkedHashMap<>();
        try (Connection c = SqliteMemoryStore.connect(database, true);
             PreparedStatement ps = c.prepareStatement(
                     "SELECT text FROM memories WHERE vector_id = ? ORDER BY seq LIMIT 1")) {
            for (long id : vectorIds) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        texts.put(id, rs.getString(1));
                    }
                }
            }
        }
        List<Long> ids = new ArrayList<>(texts.keySet());
        for (int from = 0; from < ids.size(); from += EMBED_BATCH) {
            List<Long> batch = ids.subList(from, Math.min(from + EMBED_BATCH, ids.size()));
            List<float[]> vectors = embedder.embedDocuments(batch.stream().map(texts::get).toList());
            for (int i = 0; i < batch.size(); i++) {
                float[] v = vectors.get(i);
                if (v == null || v.length != embedder.dimension() || fault(Rows.vectorBytes(v)) != null) {
                    throw new StoreException("the model gave no usable vector for the text of vector " + batch.get(i));
                }
                embedded.put(batch.get(i), v);
            }
        }
    }

    /** Whether the {@code ann} problem was the digest alone (the index files themselves agree with SQLite). */
    private static boolean indexSound(Inspection in) {
        return in.staleDigest && in.message("ann").startsWith("the digest of the vector ids");
    }

    private String rebuildIndex(Inspection in, List<Finding> notes) {
        IndexSegment.Identity identity = new IndexSegment.Identity(in.storeId, in.modelId, in.dimension);
        try (Connection c = SqliteMemoryStore.connect(database, true)) {
            c.setAutoCommit(false); // the vectors of one committed state
            try {
                int n = StoreIndex.rebuild(dir, identity, c);
                return n > 0 ? "rebuilt the index (" + StoreIndex.DIR + "/) from the " + n + " vectors in SQLite"
                        : "emptied the index (" + StoreIndex.DIR + "/): the store has no vectors";
            } finally {
                c.rollback();
            }
        } catch (SQLException | IOException | RuntimeException e) {
            notes.add(new Finding("repair", Status.PROBLEM, "could not rebuild the index (" + StoreIndex.DIR + "/): "
                    + (e instanceof SQLException sql ? SqliteMemoryStore.message(sql) : e.getMessage())));
            return null;
        }
    }

    // ---------------------------------------------------------------- helpers

    private static long single(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static double cosine(float[] a, float[] b) {
        if (b == null || a.length != b.length) {
            return -1;
        }
        double dot = 0;
        double na = 0;
        double nb = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
            na += a[i] * a[i];
            nb += b[i] * b[i];
        }
        return na == 0 || nb == 0 ? -1 : dot / Math.sqrt(na * nb);
    }

    private static String bytes(Path file) {
        try {
            long n = Files.size(file);
            return n < 1024 * 1024 ? (n / 1024) + " KiB" : String.format(Locale.ROOT, "%.1f MiB", n / 1048576.0);
        } catch (IOException e) {
            return "size unknown";
        }
    }
}
