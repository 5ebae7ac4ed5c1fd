package dev.funes.why;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What to explain: a commit, a file (optionally one line of it) or a topic.
 *
 * <p>The {@code target} is read as, in order: a commit sha (7 to 40 hex characters, or a shorter
 * prefix of at least 4 that a stored commit has) when a commit or link has it; a file, {@code path}
 * or {@code path:line}, absolute or relative to {@code base} or to a scanned repository, when such
 * a file exists or a stored commit changed it; otherwise free text, searched with decisions,
 * conventions and lookups first.
 *
 * @param target         a sha, a {@code file[:line]} or text; never blank
 * @param limit          maximum number of hits, 1 to 1000
 * @param base           the directory relative file paths are resolved against first (the caller's
 *                       working directory), or {@code null}
 * @param staleThreshold a memory is stale when more than this fraction (0 to 1) of the lines of a
 *                       file it cites changed since
 */
public record WhyRequest(String target, int limit, Path base, double staleThreshold) {

    /** The default number of hits. */
    public static final int DEFAULT_LIMIT = 10;
    /** The default staleness threshold: half of the file's lines changed. */
    public static final double DEFAULT_STALE_THRESHOLD = 0.5;

    /** Validates the request. */
    public WhyRequest {
        Objects.requireNonNull(target, "target");
        if (target.isBlank()) {
            throw new IllegalArgumentException("target is blank: give a commit sha, a file[:line] or a question");
        }
        target = target.strip();
        if (limit < 1 || limit > 1000) {
            throw new IllegalArgumentException("limit must be between 1 and 1000, was " + limit);
        }
        if (!(staleThreshold >= 0 && staleThreshold <= 1)) {
            throw new IllegalArgumentException("staleThreshold must be between 0 and 1, was " + staleThreshold);
        }
    }

    /** A request with the default limit and threshold, resolving relative paths against the working directory. */
    public static WhyRequest of(String target) {
        return new WhyRequest(target, DEFAULT_LIMIT, Path.of("").toAbsolutePath(), DEFAULT_STALE_THRESHOLD);
    }

    /** This request with another limit. */
    public WhyRequest withLimit(int limit) {
        return new WhyRequest(target, limit, base, staleThreshold);
    }

    /** This request resolving relative paths against {@code base}. */
    public WhyRequest withBase(Path base) {
        return new WhyRequest(target, limit, base, staleThreshold);
    }
}
