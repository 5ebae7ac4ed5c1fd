package dev.funes.solr;

import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.store.StoreChanges;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Publishes a local store's memories to a team collection, incrementally: the memories stored
 * since the cursor (with their vectors, so nothing is embedded again), each through the team
 * store's redactor once more, then the local deletions since the cursor as deletions of this
 * origin's copies. The cursor advances after each page that arrived, so a publish that fails
 * part way resumes where it stopped; pages sent twice change nothing (adds are idempotent by id).
 * Memories whose metadata changed in place since they were published (marked: their log changed)
 * keep their position, so every publish compares the local marked memories with the team's
 * copies and stores again those that differ.
 */
public final class TeamPublish {

    /** Memories per page: one team write each. */
    public static final int PAGE = 1000;

    /**
     * How far a local store was published to one team collection.
     *
     * @param seq       the position of the last memory published (it is read again next time)
     * @param deletedAt the time of the last deletion published, or null
     * @param deletedId its id, or null
     */
    public record Cursor(long seq, String deletedAt, String deletedId) {
        /** Nothing published yet. */
        public static final Cursor START = new Cursor(0, null, null);
    }

    /**
     * What a publish did.
     *
     * @param read    local memories read (memories of the pages, including any sent before)
     * @param stored  what the team collection stored of them
     * @param deleted memories deleted from the team collection
     * @param changed published memories stored again because their metadata changed locally
     * @param cursor  where the next publish starts
     */
    public record Report(long read, AddResult stored, long deleted, long changed, Cursor cursor) {
    }

    private TeamPublish() {
    }

    /**
     * Publishes from {@code from} on, calling {@code advanced} with each new cursor once what it
     * covers is in the team collection.
     *
     * @param projects only memories of these projects; every memory when empty
     * @throws dev.funes.StoreException if the team collection fails (the cursor stays at the last
     *                                  page that arrived)
     */
    public static Report publish(MemoryStore local, SolrMemoryStore team, Set<String> projects, Cursor from,
                                 String origin, Consumer<Cursor> advanced) {
        return publish(local, team, projects, from, origin, advanced, PAGE);
    }

    /** {@link #publish(MemoryStore, SolrMemoryStore, Set, Cursor, String, Consumer)} in pages of {@code page} memories. */
    public static Report publish(MemoryStore local, SolrMemoryStore team, Set<String> projects, Cursor from,
                                 String origin, Consumer<Cursor> advanced, int page) {
        Objects.requireNonNull(from, "from");
        if (page < 1) {
            throw new IllegalArgumentException("page must be at least 1, not " + page);
        }
        Cursor cursor = from;
        long read = 0;
        AddResult stored = AddResult.NONE;
        long start = from.seq();
        while (true) {
            StoreChanges.Memories got = StoreChanges.memories(local, start, projects, page);
            List<Memory> memories = got.memories();
            if (memories.isEmpty()) {
                break;
            }
            Map<String, float[]> vectors = new HashMap<>();
            for (int i = 0; i < memories.size(); i++) {
                vectors.put(memories.get(i).contentHash(), got.vectors().get(i));
            }
            stored = stored.plus(team.addWithVectors(memories, vectors));
            read += memories.size();
            cursor = new Cursor(got.lastSeq(), cursor.deletedAt(), cursor.deletedId());
            advanced.accept(cursor);
            if (memories.size() < page) {
                break;
            }
            start = got.lastSeq() + 1;
        }
        // After the new memories: a memory marked before its first publish went out with its mark.
        long changed = 0;
        for (long seq = 0; ; ) {
            StoreChanges.Memories marked = StoreChanges.changed(local, seq, projects, page);
            if (!marked.memories().isEmpty()) {
                changed += team.republishChanged(marked.memories());
            }
            if (marked.memories().size() < page) {
                break;
            }
            seq = marked.lastSeq() + 1;
        }
        long deleted = 0;
        while (true) {
            List<StoreChanges.Deletion> gone = StoreChanges.deletions(local, cursor.deletedAt(), cursor.deletedId(), page);
            if (gone.isEmpty()) {
                break;
            }
            List<String> ids = new ArrayList<>(gone.size());
            gone.forEach(d -> ids.add(d.id()));
            deleted += team.deleteAll(ids, origin);
            StoreChanges.Deletion last = gone.get(gone.size() - 1);
            cursor = new Cursor(cursor.seq(), last.deletedAt(), last.id());
            advanced.accept(cursor);
            if (gone.size() < page) {
                break;
            }
        }
        return new Report(read, stored, deleted, changed, cursor);
    }
}
