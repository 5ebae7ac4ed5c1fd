package dev.funes.ingest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds planted secrets in texts in one pass over each text (a window index), so thousands of
 * secrets can be looked for in thousands of memories. Values with spaces (a key's lines) are
 * looked for with all spaces removed, since tool output re-indents them.
 */
final class SecretIndex {

    /** Length of the windows indexed: the shortest planted value is longer. */
    static final int KEY = 8;

    private final List<PlantedCorpus.Planted> planted;
    private final String[] values;
    private final boolean[] compacted;
    private final Map<String, List<Integer>> byStart = new HashMap<>();
    private final boolean anyCompacted;

    SecretIndex(List<PlantedCorpus.Planted> planted) {
        this(planted, null);
    }

    /** {@code compact[i]}: whether value i is looked for in texts without spaces; null to judge by the value. */
    private SecretIndex(List<PlantedCorpus.Planted> planted, boolean[] compact) {
        this.planted = planted;
        this.values = new String[planted.size()];
        this.compacted = new boolean[planted.size()];
        for (int i = 0; i < values.length; i++) {
            String v = planted.get(i).value();
            compacted[i] = compact != null ? compact[i] : v.chars().anyMatch(Character::isWhitespace);
            values[i] = compacted[i] ? compact(v) : v;
            if (values[i].length() < KEY) {
                throw new IllegalArgumentException("planted value shorter than " + KEY + ": " + v);
            }
            byStart.computeIfAbsent(values[i].substring(0, KEY), k -> new ArrayList<>()).add(i);
        }
        boolean any = false;
        for (boolean c : compacted) {
            any |= c;
        }
        this.anyCompacted = any;
    }

    static String compact(String s) {
        return s.replaceAll("\\s+", "");
    }

    /**
     * Adds to {@code counts[i]} how many times planted secret i occurs whole in {@code text}.
     *
     * @return how many occurrences were found
     */
    long count(String text, long[] counts) {
        long n = scan(text, false, counts);
        return anyCompacted ? n + scan(compact(text), true, counts) : n;
    }

    private long scan(String text, boolean compactPass, long[] counts) {
        long n = 0;
        for (int j = 0; j + KEY <= text.length(); j++) {
            List<Integer> candidates = byStart.get(text.substring(j, j + KEY));
            if (candidates == null) {
                continue;
            }
            for (int i : candidates) {
                if (compacted[i] == compactPass && text.startsWith(values[i], j)) {
                    counts[i]++;
                    n++;
                }
            }
        }
        return n;
    }

    int size() {
        return values.length;
    }

    PlantedCorpus.Planted get(int i) {
        return planted.get(i);
    }

    /**
     * Pieces of each secret's (compacted) value that no other planted secret holds, one near the
     * start and one near the end; a secret with none is its own piece.
     */
    SecretIndex pieces(int window) {
        Map<String, Integer> counts = new HashMap<>();
        for (String v : values) {
            for (int i = 0; i + window <= v.length(); i++) {
                counts.merge(v.substring(i, i + window), 1, Integer::sum);
            }
        }
        List<PlantedCorpus.Planted> pieces = new ArrayList<>();
        boolean[] compact = new boolean[2 * values.length];
        for (int k = 0; k < values.length; k++) {
            compact[2 * k] = compacted[k];
            compact[2 * k + 1] = compacted[k];
            String v = values[k];
            String first = null;
            String last = null;
            for (int i = 0; i + window <= v.length(); i++) {
                String w = v.substring(i, i + window);
                if (counts.get(w) == 1) {
                    first = first == null ? w : first;
                    last = w;
                }
            }
            String type = planted.get(k).type();
            pieces.add(new PlantedCorpus.Planted(type, first == null ? v : first));
            pieces.add(new PlantedCorpus.Planted(type, last == null ? v : last));
        }
        return new SecretIndex(pieces, compact);
    }
}
