package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.SearchHit;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a ranking of memories and passages into a ranking of memories: each passage stands for
 * the memory it belongs to ({@link Memory#PASSAGE_OF}), a memory takes the place and score of its
 * best-ranked candidate (itself or one of its passages), and its hit carries its best passage. A
 * passage whose memory is gone (deleted since) is returned as a hit of its own.
 */
final class Rollup {

    /** Candidates ranked per hit asked for: passages of one memory share its place. */
    static final int CANDIDATES_PER_HIT = 4;

    /** Reads stored memories by id. */
    @FunctionalInterface
    interface Lookup {
        Map<String, Memory> byIds(List<String> ids) throws SQLException;
    }

    private Rollup() {
    }

    /**
     * @param ranked candidates, best first
     * @param limit  most hits returned
     * @param lookup reads the memories that passages belong to
     * @return at most {@code limit} hits, best first, each memory once
     */
    static List<SearchHit> apply(List<SearchHit> ranked, int limit, Lookup lookup) throws SQLException {
        Map<String, SearchHit> groups = new LinkedHashMap<>();
        Map<String, Memory> passageOf = new LinkedHashMap<>();
        for (SearchHit hit : ranked) {
            Memory m = hit.memory();
            String of = m.kind() == MemoryKind.PASSAGE ? m.metadata().get(Memory.PASSAGE_OF) : null;
            String key = of != null ? of : m.id();
            SearchHit first = groups.get(key);
            if (first == null) {
                if (groups.size() == limit) {
                    continue;
                }
                groups.put(key, hit);
            }
            if (of != null && !passageOf.containsKey(key)) {
                passageOf.put(key, m);
            }
        }
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, SearchHit> e : groups.entrySet()) {
            if (!e.getValue().memory().id().equals(e.getKey())) {
                missing.add(e.getKey());
            }
        }
        Map<String, Memory> owners = missing.isEmpty() ? Map.of() : lookup.byIds(missing);
        List<SearchHit> hits = new ArrayList<>(groups.size());
        for (Map.Entry<String, SearchHit> e : groups.entrySet()) {
            SearchHit best = e.getValue();
            Memory passage = passageOf.get(e.getKey());
            Memory owner = best.memory().id().equals(e.getKey()) ? best.memory() : owners.get(e.getKey());
            if (owner == null) {
                owner = passage;
            }
            hits.add(new SearchHit(owner, best.score(), best.parts(), passage));
        }
        return hits;
    }
}
