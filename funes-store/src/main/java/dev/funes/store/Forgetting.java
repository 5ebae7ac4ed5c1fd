package dev.funes.store;

import dev.funes.MemoryKind;
import dev.funes.StoreException;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * {@link FunesStore#forget}: deletes memories and their passages in one transaction through the
 * store's one delete path (so each leaves a tombstone that exports and imports carry), then has
 * the dense index rewrite the segments that still hold their vectors.
 */
final class Forgetting {

    private Forgetting() {
    }

    static ForgetReport forget(SqliteMemoryStore store, Collection<String> ids) {
        Objects.requireNonNull(ids, "ids");
        Set<String> distinct = new LinkedHashSet<>();
        for (String id : ids) {
            distinct.add(Objects.requireNonNull(id, "id"));
        }
        if (distinct.isEmpty()) {
            return new ForgetReport(0, 0, 0);
        }
        MemoryWriter writes = store.writes();
        record Deleted(int memories, int passages, List<Long> vectors) {
        }
        Deleted deleted = store.database().transaction("forget " + distinct.size() + " memories", writer -> {
            Instant now = Instant.now();
            // A memory's passages hold its full content: they go with it.
            Set<String> all = new LinkedHashSet<>(distinct);
            try (PreparedStatement ps = writer.prepareStatement("SELECT id FROM memories WHERE kind = '"
                    + MemoryKind.PASSAGE.label() + "' AND json_extract(metadata, '$." + dev.funes.Memory.PASSAGE_OF
                    + "') = ?")) {
                for (String id : distinct) {
                    ps.setString(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            all.add(rs.getString(1));
                        }
                    }
                }
            }
            int memories = 0;
            int passages = 0;
            List<Long> vectors = new ArrayList<>();
            for (String id : all) {
                boolean passage = isPassage(writer, id);
                long gone = writes.deleteRow(id, now);
                if (gone == MemoryWriter.NO_ROW) {
                    continue;
                }
                if (passage) {
                    passages++;
                } else {
                    memories++;
                }
                if (gone >= 0) {
                    vectors.add(gone);
                }
            }
            return new Deleted(memories, passages, vectors);
        }, d -> writes.vectorsChanged(List.of(), d.vectors()));
        int expunged;
        try {
            expunged = store.denseIndex().expungeDeleted();
        } catch (IOException e) {
            // The memories are deleted and their vectors tombstoned: searches never return them.
            throw new StoreException("forgot " + (deleted.memories() + deleted.passages())
                    + " memories, but cannot rewrite the dense index of " + store.dir() + ": " + e.getMessage(), e);
        }
        return new ForgetReport(deleted.memories(), deleted.passages(), expunged);
    }

    private static boolean isPassage(java.sql.Connection writer, String id) throws SQLException {
        try (PreparedStatement ps = writer.prepareStatement("SELECT kind FROM memories WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && MemoryKind.PASSAGE.label().equals(rs.getString(1));
            }
        }
    }
}
