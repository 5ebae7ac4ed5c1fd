package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.StoreException;
import dev.funes.store.CheckReport.Status;
import dev.funes.store.StoreCheck.Inspection;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The checks of {@link StoreCheck} on vectors: that each stored vector is usable, that the model
 * still computes them (a few re-embedded), and that the index directory ({@code ann}) holds the
 * database's vectors.
 */
final class VectorChecks {

    /** Stored vectors re-embedded from each end of the id range. */
    private static final int MODEL_SAMPLE = 3;
    /** Least cosine between a stored vector and a fresh embedding of its text; ONNX runs differ by far less. */
    private static final double MODEL_AGREEMENT = 0.98;
    private static final String REBUILT_AT_OPEN = " The index is derived from the vectors in SQLite: the next open"
            + " rebuilds it, or repair now.";

    private final Embedder embedder;
    private final Path indexDir;

    /**
     * @param embedder the store's model, or {@code null} to compare no vector with it
     * @param indexDir the store's index directory
     */
    VectorChecks(Embedder embedder, Path indexDir) {
        this.embedder = embedder;
        this.indexDir = indexDir;
    }

    /**
     * Reads every vector, as a stream of BLOBs: each must hold {@code dimension} float32 values,
     * finite and not all zero (a zeroed vector matches nothing, and cosine with it is undefined).
     * About a second per million vectors of 384 dimensions beyond reading them from disk.
     */
    void vectors(Connection c, Inspection in) {
        try {
            in.memories = Rows.single(c, "SELECT count(*) FROM memories");
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
                    if (examples.size() < StoreCheck.EXAMPLES) {
                        examples.add(id);
                    }
                    if (rs.getBoolean(2)) {
                        fromCallers++;
                    } else {
                        in.brokenVectors.add(id);
                    }
                }
            }
            long wrongText = Rows.single(c, "SELECT count(*) FROM memories m JOIN vectors v ON v.id = m.vector_id"
                    + " WHERE v.content_hash != m.content_hash");
            in.unusedVectors = Rows.single(c, "SELECT count(*) FROM vectors v WHERE NOT EXISTS"
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
    static String fault(byte[] blob) {
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
    void model(Connection c, Inspection in) {
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
     * Whether the digest of the vector ids SQLite keeps ({@link VectorDigest}, schema 6) is wrong:
     * an open would then compare the index with the wrong ids, so the {@code ann} check reports it.
     */
    private static String digestProblem(Connection c, Inspection in) throws SQLException {
        if (in.schemaVersion < 6) {
            return null; // migrated (and the digest computed) at the next open
        }
        long triggers = Rows.single(c, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name IN ("
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

    void ann(Connection c, Inspection in) {
        Path manifestFile = indexDir.resolve(IndexManifest.FILE);
        String index = StoreIndex.DIR + "/";
        try {
            String digest = digestProblem(c, in);
            long vectors = Rows.single(c, "SELECT count(*) FROM vectors");
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
}
