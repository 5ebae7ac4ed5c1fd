package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryStore;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Reads what a {@link FunesStore} holds in the order it was stored, a page at a time, and the
 * deletions it recorded: what a publisher needs to send a store's memories elsewhere
 * incrementally. A memory's position ({@code seq}) only grows, except that the last position
 * may be given again after its memory was deleted, so a reader resuming at a position reads it
 * again ({@link #memories}: from {@code seq} inclusive).
 */
public final class StoreChanges {

    /** A page of memories with their vectors, and the position of the last. */
    public record Memories(List<Memory> memories, List<float[]> vectors, long lastSeq) {
    }

    /** A stored memory's deletion: its id and when (ISO-8601 text, ordered as text). */
    public record Deletion(String id, String deletedAt) {
    }

    private StoreChanges() {
    }

    /**
     * The memories at position {@code fromSeq} and after, oldest first, at most {@code limit},
     * with their vectors; only those of {@code projects} when that is not empty.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static Memories memories(MemoryStore store, long fromSeq, Set<String> projects, int limit) {
        return memories(store, fromSeq, projects, limit, "");
    }

    /**
     * {@link #memories}, only those whose metadata changed in place after they were stored: the
     * memories marked {@link dev.funes.SourceState#CHANGED_KEY} (their log changed since). Their
     * position did not move, so a publisher past it compares them with what it sent.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static Memories changed(MemoryStore store, long fromSeq, Set<String> projects, int limit) {
        return memories(store, fromSeq, projects, limit,
                " AND json_extract(m.metadata, '$.\"" + dev.funes.SourceState.CHANGED_KEY + "\"') IS NOT NULL");
    }

    private static Memories memories(MemoryStore store, long fromSeq, Set<String> projects, int limit, String where) {
        SqliteMemoryStore s = sqlite(store);
        Objects.requireNonNull(projects, "projects");
        StringBuilder sql = new StringBuilder("SELECT " + Rows.MEMORY_COLUMNS
                + ", v.embedding FROM memories m JOIN vectors v ON v.id = m.vector_id WHERE m.seq >= ?" + where);
        if (!projects.isEmpty()) {
            sql.append(" AND m.project IN (").append("?,".repeat(projects.size() - 1)).append("?)");
        }
        sql.append(" ORDER BY m.seq LIMIT ?");
        return s.database().read("read memories to publish", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
                int i = 1;
                ps.setLong(i++, fromSeq);
                for (String p : projects) {
                    ps.setString(i++, p);
                }
                ps.setInt(i, limit);
                List<Memory> memories = new ArrayList<>();
                List<float[]> vectors = new ArrayList<>();
                long last = fromSeq;
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Rows.StoredMemory m = Rows.memory(rs);
                        memories.add(m.memory());
                        vectors.add(Rows.vector(rs.getBytes(18), s.dimension(), m.vectorId()));
                        last = m.seq();
                    }
                }
                return new Memories(memories, vectors, last);
            }
        });
    }

    /**
     * The deletions after {@code (deletedAt, id)} in (time, id) order, at most {@code limit}; from
     * the start when {@code deletedAt} is null. A memory stored again after its deletion has none.
     *
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     */
    public static List<Deletion> deletions(MemoryStore store, String deletedAt, String id, int limit) {
        SqliteMemoryStore s = sqlite(store);
        String after = deletedAt == null ? "" : deletedAt;
        String afterId = id == null ? "" : id;
        return s.database().read("read deletions to publish", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, deleted_at FROM tombstones"
                    + " WHERE deleted_at > ? OR (deleted_at = ? AND id > ?) ORDER BY deleted_at, id LIMIT ?")) {
                ps.setString(1, after);
                ps.setString(2, after);
                ps.setString(3, afterId);
                ps.setInt(4, limit);
                List<Deletion> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(new Deletion(rs.getString(1), rs.getString(2)));
                    }
                }
                return out;
            }
        });
    }

    private static SqliteMemoryStore sqlite(MemoryStore store) {
        if (store instanceof SqliteMemoryStore s) {
            return s;
        }
        throw new IllegalArgumentException("not a store opened by FunesStore: " + store);
    }
}
