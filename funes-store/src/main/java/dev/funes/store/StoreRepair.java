package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.StoreException;
import dev.funes.store.CheckReport.Finding;
import dev.funes.store.CheckReport.Status;
import dev.funes.store.StoreCheck.Inspection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code check --repair}: rebuilds the parts of a store derived from its memories and vectors
 * (full-text index, identifier terms, sessions table, vector digest, index directory) that a
 * {@link StoreCheck} inspection found wrong, and embeds again the texts of broken vectors.
 */
final class StoreRepair {

    private static final Logger LOG = LoggerFactory.getLogger(StoreRepair.class);

    /** Texts embedded together when repair computes broken vectors again. */
    private static final int EMBED_BATCH = 32;

    private final Path dir;
    private final Path database;
    private final Embedder embedder;
    private final Duration lockTimeout;

    /**
     * @param dir         the store directory (absolute, normalized)
     * @param embedder    the store's model, or {@code null}
     * @param lockTimeout how long to wait for the store's write lock
     */
    StoreRepair(Path dir, Embedder embedder, Duration lockTimeout) {
        this.dir = dir;
        this.database = dir.resolve(SqliteMemoryStore.DATABASE_FILE);
        this.embedder = embedder;
        this.lockTimeout = lockTimeout;
    }

    /**
     * Rebuilds the derived parts the inspection found wrong. Returns what was done, by check;
     * adds to {@code notes} why something could not be done.
     */
    Map<String, String> repair(Inspection in, List<Finding> notes) {
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
                        if (Rows.single(w, "SELECT count(*) FROM sqlite_schema WHERE name = 'fts_rewrites'") > 0) {
                            // Token counts a running store keeps (DocLengths) may be those of the broken index.
                            s.execute("UPDATE fts_rewrites SET n = n + 1");
                        }
                        done.put("fts", "rebuilt the full-text index from the " + Rows.single(w, "SELECT count(*) FROM memories")
                                + " memories");
                    }
                    if (sessions) {
                        s.executeUpdate("DELETE FROM sessions");
                        int n = s.executeUpdate("INSERT INTO sessions (agent, session, project, first_at, last_at,"
                                + " memories) " + StoreCheck.EXPECTED_SESSIONS);
                        done.put("sessions", "recomputed the sessions table from the memories (" + n + " sessions)");
                    }
                    if (unused) {
                        // counted first: the driver's update count includes the vector_digest trigger's rows
                        long n = Rows.single(w, "SELECT count(*) FROM vectors WHERE NOT EXISTS"
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
                if (v == null || v.length != embedder.dimension() || VectorChecks.fault(Rows.vectorBytes(v)) != null) {
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

    /** Sets the terms of the given rows from their indexed text ({@link LexicalText}); the index is rebuilt afterwards. */
    private static void recomputeTerms(Connection w, List<Long> seqs) throws SQLException {
        if (seqs.isEmpty()) {
            return;
        }
        try (PreparedStatement read = w.prepareStatement("SELECT kind, text FROM memories WHERE seq = ?");
             PreparedStatement update = w.prepareStatement("UPDATE memories SET terms = ? WHERE seq = ?")) {
            for (long seq : seqs) {
                read.setLong(1, seq);
                try (ResultSet rs = read.executeQuery()) {
                    if (rs.next()) {
                        update.setString(1, Terms.of(LexicalText.of(rs.getString(1), rs.getString(2))));
                        update.setLong(2, seq);
                        update.executeUpdate();
                    }
                }
            }
        }
    }
}
