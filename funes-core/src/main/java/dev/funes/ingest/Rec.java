package dev.funes.ingest;

import java.time.Instant;

/**
 * One log record as the chunker sees it: where it is in the file and the session fields that
 * travel with every Claude Code record.
 *
 * @param line          1-based line number
 * @param start         offset of the line's first byte
 * @param end           offset just past the line, newline included
 * @param uuid          the record's {@code uuid}, or null
 * @param time          the record's {@code timestamp}, or null
 * @param session       the session the record belongs to, as Funes names it
 * @param parentSession for sub-agent transcripts, the session that started the agent; else null
 * @param cwd           working directory, or null
 * @param gitBranch     git branch, or null
 * @param version       Claude Code version, or null
 * @param agentId       sub-agent id, or null
 * @param sidechain     whether the record belongs to a sub-agent conversation
 */
record Rec(int line, long start, long end, String uuid, Instant time, String session, String parentSession,
           String cwd, String gitBranch, String version, String agentId, boolean sidechain) {
}
