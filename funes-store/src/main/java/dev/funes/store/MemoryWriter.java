package dev.funes.store;

import dev.funes.AddResult;
import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.funes.Memory;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;
import dev.funes.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The write path of a store: memories redacted, their texts embedded once, then memories, vectors,
 * sessions and the source's checkpoint written in one transaction, and the dense index told of
 * the vectors that came and went. Deletes, the settling of a re-read source's memories and an
 * import's merge go the same way.
 */
final class MemoryWriter {

    private static final Logger LOG = LoggerFactory.getLogger(MemoryWriter.class);

    private static final int MAX_ATTEMPTS = 3;

    private final StoreDatabase db;
    private final Path dir;
    /** {@link StoreDatabase#writer()}, used only inside its write lock. */
    private final Connection writer;
    private final Embedder embedder;
    private final StoreOptions options;
    private final String modelId;
    private final int dimension;
    private final StoreIndex ann;

    MemoryWriter(StoreDatabase db, Embedder embedder, StoreOptions options, StoreIndex ann) {
        this.db = db;
        this.dir = db.dir();
        this.writer = db.writer();
        this.embedder = embedder;
        this.options = options;
        this.modelId = embedder.modelId();
        this.dimension = embedder.dimension();
        this.ann = ann;
    }

    /** {@link dev.funes.MemoryStore#addAll(Collection, SourceState)}. */
    public AddResult addAll(Collection<Memory> memories, SourceState source) {
        return add(memories, source, null);
    }

    /** {@link dev.funes.MemoryStore#replaceSource}. */
    public SourceUpdate replaceSource(Collection<Memory> memories, SourceState source, Set<String> keep) {
        Objects.requireNonNull(source, "source");
        Settle settle = new Settle(Set.copyOf(Objects.requireNonNull(keep, "keep")), null, true);
        return settle.result(add(memories, source, settle));
    }

    /** {@link dev.funes.MemoryStore#updateSource}. */
    public SourceUpdate updateSource(Collection<Memory> memories, SourceState source, Set<String> keep,
                                     Set<String> replace) {
        Objects.requireNonNull(source, "source");
        Settle settle = new Settle(Set.copyOf(Objects.requireNonNull(keep, "keep")),
                replace == null ? null : Set.copyOf(replace), false);
        return settle.result(add(memories, source, settle));
    }

    /**
     * What a write does with the memories its source's file gave before and the read did not
     * give again ({@link #settleSource}), and how many it deleted and marked.
     *
     * @param keep    ids the read gave
     * @param replace ids that may be deleted; every other one is marked. Null: every one not
     *                marked yet may be deleted (and the marked ones stay)
     * @param all     every one is deleted, marked or not ({@code replace} is then null)
     */
    private record Settle(Set<String> keep, Set<String> replace, boolean all, int[] counts) {
        Settle(Set<String> keep, Set<String> replace, boolean all) {
            this(keep, replace, all, new int[2]);
        }

        Settle withKeep(Set<String> kept) {
            return new Settle(kept, replace, all, counts);
        }

        SourceUpdate result(AddResult stored) {
            return new SourceUpdate(stored, counts[0], counts[1]);
        }
    }

    /** What {@link #merge} did. */
    record Merged(AddResult added, int deleted) {
    }

    /**
     * Adds memories and deletes others in one transaction: what a dataset import does.
     *
     * @param vectors   embeddings by content hash, stored instead of embedding those texts; they
     *                  must come from this store's model
     * @param addedAt   when each memory (by id) was first added, kept instead of now, so that
     *                  tombstones from other machines compare with the original time
     * @param deletions ids to delete, each with the time it was deleted elsewhere; a memory added
     *                  here at or after that time stays (it was added again)
     */
    Merged merge(Collection<Memory> memories, Map<String, float[]> vectors, Map<String, Instant> addedAt,
                 Map<String, Instant> deletions) {
        int[] deleted = new int[1];
        AddResult result = add(memories, null, null, new Extra(Objects.requireNonNull(vectors, "vectors"),
                Objects.requireNonNull(addedAt, "addedAt"), Objects.requireNonNull(deletions, "deletions"), deleted));
        return new Merged(result, deleted[0]);
    }

    /** What an import adds to a write: given vectors and times, deletions, and a count of those done. */
    private record Extra(Map<String, float[]> vectors, Map<String, Instant> addedAt, Map<String, Instant> deletions,
                         int[] deleted) {
        static final Extra NONE = new Extra(Map.of(), Map.of(), Map.of(), new int[1]);
    }

    private AddResult add(Collection<Memory> memories, SourceState source, Settle settle) {
        return add(memories, source, settle, Extra.NONE);
    }

    private AddResult add(Collection<Memory> memories, SourceState source, Settle settle, Extra extra) {
        Objects.requireNonNull(memories, "memories");
        return db.writing(() -> addLocked(memories, source, settle, extra));
    }

    private AddResult addLocked(Collection<Memory> memories, SourceState source, Settle settle, Extra extra) {
        // A dense index opened on first use opens before the write: it then reads SQLite without
        // this write's vectors, which it is told about after the commit.
        ann.open(writer);
        // Redacted before anything else sees the memory: not even its embedding may be computed
        // from the raw text. Memories the Indexer already redacted come through unchanged.
        source = redacted(source);
        Map<String, Memory> byId = new LinkedHashMap<>();
        Map<String, String> renamed = new HashMap<>();
        for (Memory m : memories) {
            Memory redacted = options.redactor().redact(Objects.requireNonNull(m, "memory")).memory();
            if (!redacted.id().equals(m.id())) {
                renamed.put(m.id(), redacted.id());
            }
            byId.putIfAbsent(redacted.id(), redacted);
        }
        if (settle != null && !renamed.isEmpty()) {
            Set<String> kept = new LinkedHashSet<>(settle.keep());
            for (String id : settle.keep()) {
                if (renamed.containsKey(id)) {
                    kept.add(renamed.get(id));
                }
            }
            settle = settle.withKeep(kept);
        }
        Map<String, float[]> embeddings = new HashMap<>(); // content hash -> vector, kept across attempts
        for (Map.Entry<String, float[]> e : extra.vectors().entrySet()) {
            embeddings.put(e.getKey(), checkVector(e.getValue()));
        }
        int embedded = 0;
        for (int attempt = 1; ; attempt++) {
            List<Memory> candidates;
            Map<String, String> missing = new LinkedHashMap<>(); // content hash -> text
            try {
                candidates = new ArrayList<>();
                try (PreparedStatement memoryExists = writer.prepareStatement("SELECT 1 FROM memories WHERE id = ?");
                     PreparedStatement vectorExists = writer.prepareStatement(
                             "SELECT 1 FROM vectors WHERE content_hash = ?")) {
                    for (Memory m : byId.values()) {
                        if (exists(memoryExists, m.id())) {
                            continue;
                        }
                        candidates.add(m);
                        String shared = m.metadata().get(Memory.VECTOR_OF);
                        if (shared != null && (embeddings.containsKey(shared) || missing.containsKey(shared)
                                || exists(vectorExists, shared))) {
                            continue; // uses the vector of another text, stored or embedded in this call
                        }
                        String hash = m.contentHash();
                        if (!embeddings.containsKey(hash) && !missing.containsKey(hash) && !exists(vectorExists, hash)) {
                            missing.put(hash, m.text());
                        }
                    }
                }
            } catch (SQLException e) {
                throw new StoreException("cannot read the store " + dir + ": " + StoreDatabase.message(e), e);
            }
            embedded += embed(missing, embeddings);
            Optional<Committed> committed = commit(candidates, embeddings, source, settle, extra);
            if (committed.isPresent()) {
                Committed c = committed.get();
                c.deletedVectors().forEach(ann::removed);
                afterCommit(c.newVectors());
                return new AddResult(c.added(), memories.size() - c.added(), embedded);
            }
            if (attempt == MAX_ATTEMPTS) {
                throw new StoreException("cannot add to the store " + dir + ": vectors kept disappearing while"
                        + " adding (another process is deleting from this store?); nothing was stored");
            }
            LOG.debug("A vector was deleted concurrently; retrying addAll (attempt {})", attempt);
        }
    }

    private static boolean exists(PreparedStatement ps, String key) throws SQLException {
        ps.setString(1, key);
        try (ResultSet rs = ps.executeQuery()) {
            return rs.next();
        }
    }

    /** Embeds the texts, checks the vectors and adds them to {@code embeddings}; returns how many. */
    private int embed(Map<String, String> missing, Map<String, float[]> embeddings) {
        if (missing.isEmpty()) {
            return 0;
        }
        List<String> hashes = new ArrayList<>(missing.keySet());
        List<float[]> vectors = embedder.embedDocuments(new ArrayList<>(missing.values()));
        if (vectors == null || vectors.size() != hashes.size()) {
            throw new EmbeddingException("the embedder " + modelId + " returned " + (vectors == null ? 0 : vectors.size())
                    + " vectors for " + hashes.size() + " texts");
        }
        for (int i = 0; i < hashes.size(); i++) {
            embeddings.put(hashes.get(i), checkVector(vectors.get(i)));
        }
        return hashes.size();
    }

    private float[] checkVector(float[] vector) {
        if (vector == null || vector.length != dimension) {
            throw new EmbeddingException("the embedder " + modelId + " returned a vector of length "
                    + (vector == null ? 0 : vector.length) + ", expected " + dimension);
        }
        for (float f : vector) {
            if (!Float.isFinite(f)) {
                throw new EmbeddingException("the embedder " + modelId + " returned a vector with " + f);
            }
        }
        return vector;
    }

    private record Committed(int added, List<SegmentedIndex.Entry> newVectors, List<Long> deletedVectors) {
    }

    /**
     * Writes the memories, their missing vectors, their sessions and the checkpoint in one
     * transaction. Empty when a vector the memories need vanished (deleted by another process)
     * after it was looked up; nothing is written then and the caller retries.
     */
    private Optional<Committed> commit(List<Memory> memories, Map<String, float[]> embeddings, SourceState source,
                                       Settle settle, Extra extra) {
        // Only the transaction holds the file lock, not the embedding before it: a waiting writer
        // then waits milliseconds, not seconds, and long-lived writers (a watcher, an MCP server)
        // can share the store.
        db.ensureWritable("add " + memories.size() + " memories");
        try {
            return db.inTransaction("adding " + memories.size() + " memories", writer -> {
                Optional<Committed> result = write(memories, embeddings, source, extra.addedAt());
                if (result.isPresent() && (settle != null || !extra.deletions().isEmpty())) {
                    List<Long> deleted = settle == null ? new ArrayList<>() : settleSource(source, settle);
                    extra.deleted()[0] = deleteAddedBefore(extra.deletions(), deleted);
                    result = Optional.of(new Committed(result.get().added(), result.get().newVectors(), deleted));
                }
                return result;
            }, Optional::isPresent);
        } catch (SQLException e) {
            throw new StoreException("cannot write to the store " + dir + " (nothing of this batch was stored): "
                    + StoreDatabase.message(e), e);
        }
    }

    private Optional<Committed> write(List<Memory> memories, Map<String, float[]> embeddings, SourceState source,
                                      Map<String, Instant> addedAt) throws SQLException {
        Map<String, Long> vectorIds = new HashMap<>();
        List<SegmentedIndex.Entry> newVectors = new ArrayList<>();
        Set<List<String>> sessions = new LinkedHashSet<>();
        Map<String, Long> redactions = new HashMap<>();
        int added = 0;
        Instant now = Instant.now();
        try (PreparedStatement findVector = writer.prepareStatement("SELECT id FROM vectors WHERE content_hash = ?");
             PreparedStatement insertVector = writer.prepareStatement(
                     "INSERT INTO vectors (content_hash, embedding) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
             PreparedStatement insertMemory = writer.prepareStatement(Rows.INSERT_MEMORY);
             PreparedStatement clearTombstone = writer.prepareStatement("DELETE FROM tombstones WHERE id = ?")) {
            for (Memory m : memories) {
                String hash = m.contentHash();
                String shared = m.metadata().get(Memory.VECTOR_OF);
                if (shared != null && (vectorIds.containsKey(shared) || embeddings.containsKey(shared)
                        || exists(findVector, shared))) {
                    hash = shared;
                }
                Long vectorId = vectorIds.get(hash);
                if (vectorId == null) {
                    findVector.setString(1, hash);
                    try (ResultSet rs = findVector.executeQuery()) {
                        vectorId = rs.next() ? rs.getLong(1) : null;
                    }
                    if (vectorId == null) {
                        float[] vector = embeddings.get(hash);
                        if (vector == null) {
                            return Optional.empty();
                        }
                        insertVector.setString(1, hash);
                        insertVector.setBytes(2, Rows.vectorBytes(vector));
                        insertVector.executeUpdate();
                        try (ResultSet keys = insertVector.getGeneratedKeys()) {
                            keys.next();
                            vectorId = keys.getLong(1);
                        }
                        newVectors.add(new SegmentedIndex.Entry(vectorId, vector));
                    }
                    vectorIds.put(hash, vectorId);
                }
                Rows.bindMemory(insertMemory, m, hash, vectorId, addedAt.getOrDefault(m.id(), now));
                if (insertMemory.executeUpdate() == 1) {
                    added++;
                    Redactions.count(m, redactions);
                    clearTombstone.setString(1, m.id());
                    clearTombstone.executeUpdate();
                    if (m.session() != null) {
                        sessions.add(List.of(m.agent(), m.session()));
                    }
                }
            }
        }
        for (List<String> session : sessions) {
            refreshSession(session.get(0), session.get(1));
        }
        Redactions.apply(writer, redactions);
        if (source != null) {
            try (PreparedStatement ps = writer.prepareStatement(Rows.UPSERT_SOURCE)) {
                Rows.bindSource(ps, source);
                ps.executeUpdate();
            }
        }
        return Optional.of(new Committed(added, newVectors, List.of()));
    }

    /** The memory as the store keeps it: every string redacted ({@link dev.funes.redact.Redactor#redact(Memory)}). */
    Memory redacted(Memory m) {
        return options.redactor().redact(m).memory();
    }

    /** A text as the store keeps it, with its secrets replaced. */
    String redacted(String text) {
        return text == null ? null : options.redactor().redact(text).text();
    }

    /**
     * A checkpoint as the store keeps it: its path redacted as the provenance paths of the
     * memories read from that file are, so that the two still match ({@link SqliteMemoryStore#source} looks the
     * file up the same way).
     */
    private SourceState redacted(SourceState s) {
        if (s == null) {
            return null;
        }
        Path path = options.redactor().redactPath(s.path());
        return path.equals(s.path()) ? s : new SourceState(path, s.size(), s.lastModified(), s.indexedBytes(),
                s.indexedLines(), s.headFingerprint(), s.format(), s.indexedAt(), s.resume());
    }

    /** Recomputes a session's row from its memories; removes it when none is left. */
    void refreshSession(String agent, String session) throws SQLException {
        try (PreparedStatement delete = writer.prepareStatement("DELETE FROM sessions WHERE agent = ? AND session = ?");
             PreparedStatement insert = writer.prepareStatement("INSERT INTO sessions (agent, session, project,"
                     + " first_at, last_at, memories) " + Rows.SESSION_ROWS
                     + " WHERE agent = ? AND session = ? GROUP BY agent, session")) {
            delete.setString(1, agent);
            delete.setString(2, session);
            delete.executeUpdate();
            insert.setString(1, agent);
            insert.setString(2, session);
            insert.executeUpdate();
        }
    }

    /** Tells the dense index about committed vectors; it seals and merges segments as they pile up. */
    private void afterCommit(List<SegmentedIndex.Entry> newVectors) {
        if (newVectors.isEmpty()) {
            return;
        }
        // The batch is committed: a failure here must not fail the call. The next search catches
        // up with the database, and the next open reconciles the index with it.
        try {
            ann.added(newVectors, writer);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("Cannot add the new vectors to the dense index of {} ({}); the next search catches up", dir,
                    e.toString());
        }
    }

    /** {@link dev.funes.MemoryStore#delete}. */
    public boolean delete(String id) {
        Objects.requireNonNull(id, "id");
        // A memory's passages hold its full content: they go with it, in the same transaction.
        List<Long> deletedVectors = db.transaction("delete " + id, writer -> {
            Instant now = Instant.now();
            long vector = deleteRow(id, now);
            if (vector == NO_ROW) {
                return null;
            }
            List<Long> vectors = new ArrayList<>();
            if (vector >= 0) {
                vectors.add(vector);
            }
            for (String passage : passagesOf(id)) {
                long v = deleteRow(passage, now);
                if (v >= 0) {
                    vectors.add(v);
                }
            }
            return vectors;
        }, vectors -> {
            if (vectors != null) {
                vectors.forEach(ann::removed);
            }
        });
        return deletedVectors != null;
    }

    /** The ids of the passages of a memory (through the {@code memories_passage_of} index). */
    private List<String> passagesOf(String id) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (PreparedStatement ps = writer.prepareStatement("SELECT id FROM memories WHERE kind = 'passage'"
                + " AND json_extract(metadata, '$." + Memory.PASSAGE_OF + "') = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getString(1));
                }
            }
        }
        return ids;
    }

    /**
     * Inside the open transaction, settles the memories cited from the source's file that are not
     * in {@code settle.keep()}: deletes those {@code settle} may replace, marks the others
     * {@link SourceState#CHANGED_KEY} (unless they already are); returns the ids of the vectors
     * that went with the deleted ones. A row whose metadata cannot be read is left as it is.
     */
    private List<Long> settleSource(SourceState source, Settle settle) throws SQLException {
        List<String> stale = new ArrayList<>();
        Map<String, Map<String, String>> unmarked = new LinkedHashMap<>();
        try (PreparedStatement ps = writer.prepareStatement("SELECT id, metadata FROM memories WHERE source_path = ?")) {
            ps.setString(1, source.path().toString());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String id = rs.getString(1);
                    if (settle.keep().contains(id)) {
                        continue;
                    }
                    if (settle.all() || settle.replace() != null && settle.replace().contains(id)) {
                        stale.add(id);
                        continue;
                    }
                    Map<String, String> metadata = Rows.metadata(rs.getString(2));
                    if (metadata == null || metadata.containsKey(SourceState.CHANGED_KEY)) {
                        continue; // of an earlier generation of the file: it stays as it is
                    }
                    if (settle.replace() == null) {
                        stale.add(id);
                    } else {
                        unmarked.put(id, metadata);
                    }
                }
            }
        }
        List<Long> deletedVectors = new ArrayList<>();
        Instant now = Instant.now();
        for (String id : stale) {
            long v = deleteRow(id, now);
            if (v >= 0) {
                deletedVectors.add(v);
            }
        }
        // Neither the full-text nor the dense index covers metadata: the row is updated in place,
        // keeping its row number, its time of addition and its vector.
        String changedAt = source.indexedAt().toString();
        try (PreparedStatement mark = writer.prepareStatement("UPDATE memories SET metadata = ? WHERE id = ?")) {
            for (Map.Entry<String, Map<String, String>> e : unmarked.entrySet()) {
                Map<String, String> metadata = new java.util.TreeMap<>(e.getValue());
                metadata.put(SourceState.CHANGED_KEY, changedAt);
                mark.setString(1, Rows.metadataJson(metadata));
                mark.setString(2, e.getKey());
                mark.addBatch();
            }
            mark.executeBatch();
        }
        settle.counts()[0] += stale.size();
        settle.counts()[1] += unmarked.size();
        if (!stale.isEmpty() || !unmarked.isEmpty()) {
            LOG.debug("{}: {} memories replaced, {} kept from an earlier version of the file", source.path(),
                    stale.size(), unmarked.size());
        }
        return deletedVectors;
    }

    /**
     * Deletes, inside the open transaction, each memory that was added here before the time it
     * was deleted elsewhere; adds the ids of the vectors that went to {@code deletedVectors}.
     *
     * @return how many memories were deleted
     */
    private int deleteAddedBefore(Map<String, Instant> deletions, List<Long> deletedVectors) throws SQLException {
        int deleted = 0;
        try (PreparedStatement ps = writer.prepareStatement("SELECT added_at FROM memories WHERE id = ?")) {
            for (Map.Entry<String, Instant> d : deletions.entrySet()) {
                ps.setString(1, d.getKey());
                Instant added;
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        continue;
                    }
                    added = Rows.instant(rs.getString(1));
                }
                if (!added.isBefore(d.getValue())) {
                    continue;
                }
                long v = deleteRow(d.getKey(), d.getValue());
                deleted++;
                if (v >= 0) {
                    deletedVectors.add(v);
                }
            }
        }
        return deleted;
    }

    /**
     * Book-keeping for a memory another writer ({@link CallerVectors}) just inserted inside the
     * open transaction: its redaction counts and clearing its tombstone, as {@link #addAll} does.
     */
    void inserted(Memory m) throws SQLException {
        Map<String, Long> redactions = new HashMap<>();
        Redactions.count(m, redactions);
        Redactions.apply(writer, redactions);
        try (PreparedStatement ps = writer.prepareStatement("DELETE FROM tombstones WHERE id = ?")) {
            ps.setString(1, m.id());
            ps.executeUpdate();
        }
    }

    /** {@link #deleteRow}'s answer when there is no such memory. */
    static final long NO_ROW = -2;

    /**
     * Deletes one memory inside the open transaction, refreshing its session and deleting its
     * vector once no memory uses it.
     *
     * @param deletedAt when, for the tombstone; {@code null} when the memory is replaced under the
     *                  same id in the same transaction (no tombstone)
     * @return the id of the deleted vector, -1 if the vector stays, {@link #NO_ROW} if no such memory
     */
    long deleteRow(String id, Instant deletedAt) throws SQLException {
        long seq;
        long vectorId;
        String agent;
        String session;
        Map<String, Long> redactions = new HashMap<>();
        try (PreparedStatement ps = writer.prepareStatement(
                "SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE m.id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return NO_ROW;
                }
                Rows.StoredMemory stored = Rows.memory(rs);
                seq = stored.seq();
                vectorId = stored.vectorId();
                agent = stored.memory().agent();
                session = stored.memory().session();
                Redactions.count(stored.memory(), redactions);
            }
        }
        try (PreparedStatement ps = writer.prepareStatement("DELETE FROM memories WHERE seq = ?")) {
            ps.setLong(1, seq);
            ps.executeUpdate();
        }
        redactions.replaceAll((type, n) -> -n);
        Redactions.apply(writer, redactions);
        // Remembered so that an export tells other machines, and an import does not bring it back.
        if (deletedAt != null) {
            try (PreparedStatement ps = writer.prepareStatement(
                    "INSERT OR REPLACE INTO tombstones (id, deleted_at) VALUES (?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, Rows.instant(deletedAt));
                ps.executeUpdate();
            }
        }
        if (session != null) {
            refreshSession(agent, session);
        }
        // An embedding can give its text away; once no memory uses it, it goes too.
        try (PreparedStatement ps = writer.prepareStatement(
                "DELETE FROM vectors WHERE id = ? AND NOT EXISTS (SELECT 1 FROM memories WHERE vector_id = ?)")) {
            ps.setLong(1, vectorId);
            ps.setLong(2, vectorId);
            // > 0, not == 1: the driver counts the row the vector_digest trigger updates as well
            if (ps.executeUpdate() > 0) {
                return vectorId;
            }
        }
        return -1;
    }

    /** Tells the ANN index about vectors a {@link StoreDatabase#transaction} committed and deleted. */
    void vectorsChanged(List<SegmentedIndex.Entry> added, List<Long> deleted) {
        deleted.forEach(ann::removed);
        afterCommit(added);
    }
}
