package dev.funes.bench.eval;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Normalises LoCoMo evidence ids. A well-formed id is {@code D<session>:<turn>}, for example
 * {@code D1:3}. The data set has a few malformed ones: several ids in one string
 * ({@code "D8:6; D9:17"}, {@code "D9:1 D4:4 D4:6"}), a stray colon ({@code "D:11:26"}), a leading
 * zero ({@code "D30:05"}), a bare {@code "D"}, and well-formed ids of turns that do not exist.
 * Splittable and repairable ones are repaired; the rest are dropped and reported.
 */
final class EvidenceIds {

    /** A tolerant id: {@code D}, optional stray colon, session, colon, turn. */
    private static final Pattern ID = Pattern.compile("D\\s*:?\\s*(\\d+)\\s*:\\s*(\\d+)");
    private static final Pattern WELL_FORMED = Pattern.compile("D[1-9]\\d*:[1-9]\\d*");
    private static final Pattern SEPARATORS = Pattern.compile("[;,\\s]+");

    private EvidenceIds() {
    }

    /**
     * What became of one raw evidence string.
     *
     * @param raw     the string as it is in the data set
     * @param ids     the well-formed ids it yielded, in order, without duplicates; may be empty
     * @param dropped parts that could not be read as an id, or ids of turns that do not exist
     */
    record Normalised(String raw, List<String> ids, List<String> dropped) {

        /** Whether the raw string was already one well-formed, existing id. */
        boolean clean() {
            return dropped.isEmpty() && ids.size() == 1 && ids.get(0).equals(raw);
        }
    }

    /**
     * Normalises one raw evidence string.
     *
     * @param raw    as found in a question's {@code evidence} list
     * @param exists whether a turn with a given well-formed id exists in the question's conversation
     */
    static Normalised normalise(String raw, java.util.function.Predicate<String> exists) {
        Set<String> ids = new LinkedHashSet<>();
        List<String> dropped = new ArrayList<>();
        for (String part : SEPARATORS.split(raw.trim())) {
            if (part.isEmpty()) {
                continue;
            }
            Matcher m = ID.matcher(part);
            if (!m.matches()) {
                dropped.add(part);
                continue;
            }
            // Integer parsing drops leading zeros: "D30:05" is turn 5 of session 30.
            String id = "D" + Integer.parseInt(m.group(1)) + ":" + Integer.parseInt(m.group(2));
            if (!WELL_FORMED.matcher(id).matches() || !exists.test(id)) {
                dropped.add(part);
            } else {
                ids.add(id);
            }
        }
        return new Normalised(raw, List.copyOf(ids), List.copyOf(dropped));
    }
}
