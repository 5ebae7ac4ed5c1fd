package dev.funes.store;

import dev.funes.Memory;

import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The store's tables behind "why": the git commits of the repositories sessions ran in, the files
 * each commit changed, links from memories to commits (each with the evidence it was found by and
 * a confidence), and how far linking got. Obtained with {@link FunesStore#links}; valid while its
 * store is open; thread-safe like the store. Writes run in one transaction each, under the store's
 * write lock. docs/STORE-FORMAT.md describes the tables; docs/WHY.md what fills them.
 *
 * <p>Shas are lower-case hex. A link keeps the sha as its evidence gave it, abbreviated or full,
 * and may name a commit no scanned repository has: {@link #linksTo} matches either way.
 */
public interface LinkTables {

    /**
     * A commit as read from a repository.
     *
     * @param repo    the repository's work tree (absolute, normalized), or its git directory when bare
     * @param sha     full sha, 40 hex characters
     * @param time    committer time
     * @param author  author name and address, {@code Name <mail>}
     * @param message full message
     * @param files   files changed against the first parent (all files of a root commit)
     */
    record Commit(String repo, String sha, Instant time, String author, String message, List<FileChange> files) {
        /** Checks for nulls; copies the files. */
        public Commit {
            Objects.requireNonNull(repo, "repo");
            Objects.requireNonNull(sha, "sha");
            Objects.requireNonNull(time, "time");
            Objects.requireNonNull(author, "author");
            Objects.requireNonNull(message, "message");
            files = files == null ? List.of() : List.copyOf(files);
        }

        /** The first line of the message. */
        public String subject() {
            int nl = message.indexOf('\n');
            return (nl < 0 ? message : message.substring(0, nl)).strip();
        }
    }

    /**
     * One changed file of a commit.
     *
     * @param path    path relative to the repository root, {@code /}-separated (the old path of a deletion)
     * @param change  {@code A}dd, {@code M}odify, {@code D}elete, {@code R}ename or {@code C}opy
     * @param oldPath the path before a rename or copy, else {@code null}
     */
    record FileChange(String path, String change, String oldPath) {
        /** Checks for nulls. */
        public FileChange {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(change, "change");
        }
    }

    /**
     * A memory linked to a commit.
     *
     * @param memoryId   the memory
     * @param sha        the commit, full or abbreviated (at least 7 characters)
     * @param evidence   how the link was found, for example {@code commit-output} (see docs/WHY.md)
     * @param confidence 0 (a guess) to 1 (certain)
     * @param repo       the repository that has the commit, or {@code null} while none is known
     * @param detail     what the evidence said (the commit's subject as the log showed it), or {@code null}
     */
    record Link(String memoryId, String sha, String evidence, double confidence, String repo, String detail) {
        /** Validates the fields; lower-cases the sha. */
        public Link {
            Objects.requireNonNull(memoryId, "memoryId");
            Objects.requireNonNull(sha, "sha");
            Objects.requireNonNull(evidence, "evidence");
            if (!(confidence >= 0 && confidence <= 1)) {
                throw new IllegalArgumentException("confidence must be between 0 and 1, was " + confidence);
            }
            sha = sha.toLowerCase(java.util.Locale.ROOT);
            if (sha.length() < 7) {
                throw new IllegalArgumentException("sha '" + sha + "' is shorter than 7 characters");
            }
        }
    }

    /**
     * A memory with its row number: rows are scanned in that order, so linking resumes where it stopped.
     *
     * @param seq    the memory's row number
     * @param memory the memory
     */
    record Scanned(long seq, Memory memory) {
    }

    /** The branch tips recorded at a repository's last scan (comma-separated shas), if it was scanned. */
    Optional<String> heads(String repo);

    /** The repositories scanned so far. */
    List<String> repos();

    /**
     * Stores commits (those already stored are kept as they are) and the repository's new tips,
     * in one transaction.
     *
     * @return how many commits were new
     */
    int putCommits(String repo, Collection<Commit> commits, String heads);

    /** The distinct projects (working directories) of the stored memories. */
    List<String> projects();

    /** Memories stored after row {@code seq}, in row order, at most {@code limit}. */
    List<Scanned> memoriesAfter(long seq, int limit);

    /** The row up to which memories were scanned for evidence (0 when never). */
    long scannedUpTo();

    /**
     * Stores links and the scan position, in one transaction. A link already stored for the same
     * memory, sha and evidence keeps the higher confidence. Links of memories no longer stored are
     * removed.
     *
     * @param scannedUpTo the new scan position, or a negative number to leave it
     * @return how many links were new
     */
    int putLinks(Collection<Link> links, long scannedUpTo);

    /** Stored commits whose sha starts with {@code prefix} (at least 4 hex characters), newest first. */
    List<Commit> commits(String prefix);

    /** Commits of {@code repo} that changed {@code path} (relative, {@code /}-separated), newest first. */
    List<Commit> commitsTouching(String repo, String path, int limit);

    /** Commits of {@code repo} with a time in {@code [from, to]}, oldest first. */
    List<Commit> commitsBetween(String repo, Instant from, Instant to);

    /** Links to the commit {@code sha} (full or abbreviated), whichever form the link holds. */
    List<Link> linksTo(String sha);

    /** Links of one memory. */
    List<Link> linksFrom(String memoryId);

    /**
     * Memories of the project {@code project} or a folder below it whose time (end, else start)
     * is in {@code [from, to]}, oldest first.
     */
    List<Memory> memoriesBetween(String project, Instant from, Instant to);

    /** Memories whose text or metadata contains {@code needle} literally, newest first. */
    List<Memory> memoriesContaining(String needle, int limit);

    /**
     * Memories whose metadata {@code derivedFrom} is one of {@code ids}, in the session of the
     * memory they derive from (where the classifier puts them), or in none.
     */
    List<Memory> memoriesDerivedFrom(Collection<String> ids);

    /** Links per evidence type, counting only links whose memory is stored. */
    Map<String, Long> linkCounts();

    /** Number of stored commits. */
    long commitCount();
}
