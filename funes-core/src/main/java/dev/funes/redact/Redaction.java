package dev.funes.redact;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The result of one {@link Redactor#redact} call.
 *
 * @param text   the text with every secret found replaced by its placeholder
 *               ({@code [REDACTED:<type>]}); the input itself when nothing was found
 * @param counts how many secrets of each type were replaced, by type, sorted; empty when none
 */
public record Redaction(String text, Map<String, Integer> counts) {

    /** Checks the text and copies the counts. */
    public Redaction {
        Objects.requireNonNull(text, "text");
        counts = counts == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(counts));
    }

    /** Whether anything was replaced. */
    public boolean changed() {
        return !counts.isEmpty();
    }

    /** How many secrets were replaced, of all types. */
    public int total() {
        int n = 0;
        for (int c : counts.values()) {
            n += c;
        }
        return n;
    }
}
