package dev.funes;

import java.util.Locale;

/**
 * What a memory is. The lower-case {@link #label()} is the name used in JSON, the CLI and the
 * SQLite store; it is stable.
 */
public enum MemoryKind {
    /** A user request with the agent's reasoning, answer and a compact rendering of its tool calls. */
    EXCHANGE,
    /** A session or compaction summary written by the agent itself. */
    SUMMARY,
    /** A decision taken, with the alternatives that were rejected. */
    DECISION,
    /** A convention the user asked for ("always", "never", "prefer"). */
    CONVENTION,
    /** A documentation lookup and what was concluded from it. */
    LOOKUP,
    /** A note recorded explicitly through the API, the CLI or an agent tool. */
    NOTE,
    /**
     * A few sentences or lines of everything an exchange's records hold in full (a request, an
     * answer, thinking, a tool's input or output), headed by where they were said and citing the
     * record that holds them. Searched like any memory; a search returns the memory it belongs to
     * ({@link Memory#PASSAGE_OF} in its metadata) with the passage as the answer.
     */
    PASSAGE;

    /** The stable lower-case name of this kind, as used in JSON and on the command line. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The kind with the given label, case-insensitively.
     *
     * @throws IllegalArgumentException if no kind has that label; the message lists the valid ones
     */
    public static MemoryKind fromLabel(String label) {
        for (MemoryKind kind : values()) {
            if (kind.label().equalsIgnoreCase(label.trim())) {
                return kind;
            }
        }
        StringBuilder valid = new StringBuilder();
        for (MemoryKind kind : values()) {
            valid.append(valid.length() == 0 ? "" : ", ").append(kind.label());
        }
        throw new IllegalArgumentException("unknown memory kind '" + label + "' (valid: " + valid + ")");
    }
}
