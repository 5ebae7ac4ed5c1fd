package dev.funes.why;

import java.util.Locale;

/**
 * How a memory was tied to a commit, a file or a question, strongest first. The lower-case
 * {@link #label()} is what the store's {@code links.evidence} column, the CLI and MCP show; it is
 * stable. docs/WHY.md explains each one and its confidence.
 */
public enum Evidence {
    /** Aider's own {@code > Commit <sha> <message>} line: the exchange made that commit. */
    AIDER_COMMIT(0.98),
    /** {@code git commit} output ({@code [branch sha] message}) in a shell tool result of the memory. */
    COMMIT_OUTPUT(0.95),
    /** A decision, convention or lookup derived from a linked exchange (metadata {@code derivedFrom}). */
    DERIVED(0.9),
    /** A decision, convention or lookup whose metadata {@code files} names the file asked about. */
    DECISION_FILE(0.9),
    /** The memory edited the file asked about (an edit or write tool call, a patch). */
    EDITED_FILE(0.7),
    /**
     * Inferred: the memory edited files the commit changed, and the commit was made during the
     * exchange or soon after. Confidence 0.25 to 0.7 by overlap and delay.
     */
    FILE_TIME(0.7),
    /**
     * The repository's HEAD while the session ran (Codex {@code session_meta.git.commit_hash},
     * Cline {@code latestGitCommitHash}): the session worked on top of that commit.
     */
    SESSION_HEAD(0.4),
    /** The memory's text names the file asked about, without editing it. */
    MENTION(0.4),
    /** Found by searching for the question's text (decision kinds first). */
    SEARCH(0.5);

    private final double confidence;

    Evidence(double confidence) {
        this.confidence = confidence;
    }

    /** The usual confidence of a link found this way (inferred links compute their own). */
    public double confidence() {
        return confidence;
    }

    /** The stable lower-case, hyphenated name, for example {@code commit-output}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The evidence with this label.
     *
     * @throws IllegalArgumentException if no evidence has that label
     */
    public static Evidence fromLabel(String label) {
        for (Evidence e : values()) {
            if (e.label().equals(label)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown evidence '" + label + "'");
    }
}
