package dev.funes.redact;

import dev.funes.Memory;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The result of {@link Redactor#redact(Memory)}.
 *
 * @param memory the memory with every secret found in its text, project and metadata values
 *               replaced; the input itself when nothing was found
 * @param counts how many secrets of each type were replaced, by type, sorted; empty when none
 */
public record RedactedMemory(Memory memory, Map<String, Integer> counts) {

    /** Checks the memory and copies the counts. */
    public RedactedMemory {
        Objects.requireNonNull(memory, "memory");
        counts = counts == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(counts));
    }

    /** Whether anything was replaced. */
    public boolean changed() {
        return !counts.isEmpty();
    }
}
