package dev.funes;

import java.time.Instant;
import java.util.Objects;

/**
 * One agent session as the store knows it: who ran it, where, when, and how many memories it
 * left.
 *
 * @param agent    the agent that wrote the session's log, for example {@code claude-code}
 * @param session  the agent's session id
 * @param project  the project (usually a working directory), or {@code null} when unknown
 * @param firstAt  time of the session's earliest memory, or {@code null} when its log had no times
 * @param lastAt   time of the session's latest memory, or {@code null}
 * @param memories how many stored memories belong to the session, not counting passages (the
 *                 full content of its exchanges); at least 1
 */
public record SessionInfo(String agent, String session, String project, Instant firstAt, Instant lastAt,
                          long memories) {

    /** Validates the fields. */
    public SessionInfo {
        Objects.requireNonNull(agent, "agent");
        Objects.requireNonNull(session, "session");
        if (memories < 1) {
            throw new IllegalArgumentException("a session has at least one memory, not " + memories);
        }
    }
}
