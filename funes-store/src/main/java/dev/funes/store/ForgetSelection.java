package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What {@link FunesStore#forget} would remove for the memories a caller selected, counted before
 * asking: the memories and, as {@code forget} deletes them too, their passages. Made by
 * {@link FunesStore#toForget}.
 *
 * @param memories the selected memories that are not passages
 * @param passages the ids of the passages that go: of those memories, or selected themselves
 */
public record ForgetSelection(List<Memory> memories, Set<String> passages) {

    /** Copies both, so a selection does not change under its caller. */
    public ForgetSelection {
        memories = List.copyOf(memories);
        passages = Collections.unmodifiableSet(new LinkedHashSet<>(passages));
    }

    static ForgetSelection of(MemoryStore store, Collection<Memory> selected) {
        StoreVectors vectors = FunesStore.vectors(store);
        List<Memory> memories = new ArrayList<>();
        Set<String> passages = new LinkedHashSet<>();
        Set<String> parents = new LinkedHashSet<>();
        for (Memory m : selected) {
            if (m.kind() == MemoryKind.PASSAGE) {
                passages.add(m.id());
            } else if (parents.add(m.id())) {
                memories.add(m);
            }
        }
        if (!parents.isEmpty()) {
            for (Memory p : vectors.scan(SearchRequest.builder("forget").kinds(MemoryKind.PASSAGE).build(),
                    p -> parents.contains(p.metadata().get(Memory.PASSAGE_OF)))) {
                passages.add(p.id());
            }
        }
        return new ForgetSelection(memories, passages);
    }

    /** Whether nothing would go. */
    public boolean isEmpty() {
        return memories.isEmpty() && passages.isEmpty();
    }

    /** The ids to pass to {@link FunesStore#forget}: the memories', then the passages'. */
    public Set<String> ids() {
        Set<String> all = new LinkedHashSet<>();
        memories.forEach(m -> all.add(m.id()));
        all.addAll(passages);
        return all;
    }

    /** The counts for a question or a message, e.g. {@code 2 memories (and 1 passage)}. */
    public String describe() {
        return memories.size() + (memories.size() == 1 ? " memory" : " memories")
                + (passages.isEmpty() ? "" : " (and " + passages.size() + (passages.size() == 1 ? " passage)" : " passages)"));
    }
}
