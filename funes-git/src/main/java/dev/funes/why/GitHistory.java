package dev.funes.why;

import dev.funes.store.LinkTables;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.blame.BlameResult;
import org.eclipse.jgit.diff.DiffAlgorithm;
import org.eclipse.jgit.diff.DiffEntry;
import org.eclipse.jgit.diff.DiffFormatter;
import org.eclipse.jgit.diff.Edit;
import org.eclipse.jgit.diff.RawText;
import org.eclipse.jgit.diff.RawTextComparator;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevSort;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.util.io.DisabledOutputStream;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One git repository read with JGit (no git binary): its commits and the files they changed, a
 * file's content at a commit and now, and blame. Holds the repository open; close it.
 */
final class GitHistory implements AutoCloseable {

    /** Files larger than this are not compared for staleness (generated or data files). */
    private static final int MAX_COMPARED_BYTES = 4 << 20;

    private final Repository repository;
    private final Path root;

    private GitHistory(Repository repository, Path root) {
        this.repository = repository;
        this.root = root;
    }

    /**
     * The repository {@code dir} is in (it or a folder above it), if any.
     *
     * @throws IOException if a repository is there but cannot be opened
     */
    static Optional<GitHistory> find(Path dir) throws IOException {
        if (dir == null || !Files.isDirectory(dir)) {
            return Optional.empty();
        }
        FileRepositoryBuilder builder = new FileRepositoryBuilder().findGitDir(dir.toAbsolutePath().normalize().toFile());
        if (builder.getGitDir() == null) {
            return Optional.empty();
        }
        Repository repository = builder.setMustExist(true).build();
        Path root = (repository.isBare() ? repository.getDirectory() : repository.getWorkTree())
                .toPath().toAbsolutePath().normalize();
        return Optional.of(new GitHistory(repository, root));
    }

    /** The work tree (or, for a bare repository, the git directory): the repository's key in the store. */
    Path root() {
        return root;
    }

    String key() {
        return root.toString();
    }

    /** The tips of HEAD and every local branch, comma-separated, sorted. */
    String heads() throws IOException {
        Set<String> tips = new TreeSet<>();
        for (ObjectId id : tipIds()) {
            tips.add(id.name());
        }
        return String.join(",", tips);
    }

    private List<ObjectId> tipIds() throws IOException {
        Set<ObjectId> tips = new LinkedHashSet<>();
        ObjectId head = repository.resolve(Constants.HEAD);
        if (head != null) {
            tips.add(head);
        }
        for (Ref ref : repository.getRefDatabase().getRefsByPrefix(Constants.R_HEADS)) {
            if (ref.getObjectId() != null) {
                tips.add(ref.getObjectId());
            }
        }
        return new ArrayList<>(tips);
    }

    /**
     * Commits reachable from the tips but not from {@code knownHeads}, newest first, at most
     * {@code max} of them, each with the files it changed against its first parent.
     */
    List<LinkTables.Commit> newCommits(String knownHeads, int max) throws IOException {
        List<LinkTables.Commit> commits = new ArrayList<>();
        try (RevWalk walk = new RevWalk(repository);
             DiffFormatter diff = new DiffFormatter(DisabledOutputStream.INSTANCE)) {
            diff.setRepository(repository);
            diff.setDiffComparator(RawTextComparator.DEFAULT);
            diff.setDetectRenames(true);
            List<ObjectId> tips = tipIds();
            if (tips.isEmpty()) {
                return commits;
            }
            for (ObjectId tip : tips) {
                walk.markStart(walk.parseCommit(tip));
            }
            if (knownHeads != null && !knownHeads.isBlank()) {
                for (String sha : knownHeads.split(",")) {
                    try {
                        walk.markUninteresting(walk.parseCommit(ObjectId.fromString(sha.strip())));
                    } catch (MissingObjectException | IllegalArgumentException e) {
                        // a tip that was since rewritten away: everything is read again, duplicates ignored
                    }
                }
            }
            walk.sort(RevSort.COMMIT_TIME_DESC);
            for (RevCommit c : walk) {
                if (commits.size() >= max) {
                    break;
                }
                RevCommit parent = c.getParentCount() > 0 ? walk.parseCommit(c.getParent(0)) : null;
                List<LinkTables.FileChange> files = new ArrayList<>();
                for (DiffEntry e : diff.scan(parent == null ? null : parent.getTree(), c.getTree())) {
                    files.add(change(e));
                }
                PersonIdent author = c.getAuthorIdent();
                commits.add(new LinkTables.Commit(key(), c.name(), Instant.ofEpochSecond(c.getCommitTime()),
                        author.getName() + " <" + author.getEmailAddress() + ">", c.getFullMessage(), files));
            }
        }
        return commits;
    }

    private static LinkTables.FileChange change(DiffEntry e) {
        return switch (e.getChangeType()) {
            case ADD -> new LinkTables.FileChange(e.getNewPath(), "A", null);
            case DELETE -> new LinkTables.FileChange(e.getOldPath(), "D", null);
            case RENAME -> new LinkTables.FileChange(e.getNewPath(), "R", e.getOldPath());
            case COPY -> new LinkTables.FileChange(e.getNewPath(), "C", e.getOldPath());
            default -> new LinkTables.FileChange(e.getNewPath(), "M", null);
        };
    }

    /** The full sha of the commit that last changed line {@code line} (1-based) of {@code path} at HEAD. */
    Optional<String> blame(String path, int line) throws IOException {
        ObjectId head = repository.resolve(Constants.HEAD);
        if (head == null) {
            return Optional.empty();
        }
        try (Git git = new Git(repository)) {
            BlameResult blame = git.blame().setFilePath(path).setStartCommit(head).call();
            if (blame == null) {
                return Optional.empty();
            }
            blame.computeAll();
            if (line < 1 || line > blame.getResultContents().size()) {
                return Optional.empty();
            }
            RevCommit commit = blame.getSourceCommit(line - 1);
            return commit == null ? Optional.empty() : Optional.of(commit.name());
        } catch (GitAPIException e) {
            throw new IOException("cannot blame " + path + " in " + root + ": " + e.getMessage(), e);
        }
    }

    /**
     * The fraction of {@code path}'s lines (as of commit {@code sha}) that differ in the work tree
     * now (HEAD's version for a bare repository): changed, added and removed lines over the old
     * line count, at most 1. 1 when the file is gone; empty when it did not exist at the commit,
     * the commit is unknown, or the file is binary or huge.
     */
    Optional<Double> changedSince(String sha, String path) throws IOException {
        byte[] old = contentAt(sha, path);
        if (old == null || RawText.isBinary(old)) {
            return Optional.empty();
        }
        byte[] now = current(path);
        if (now == null) {
            return Optional.of(1.0);
        }
        if (RawText.isBinary(now) || now.length > MAX_COMPARED_BYTES) {
            return Optional.empty();
        }
        RawText a = new RawText(old);
        RawText b = new RawText(now);
        long changed = 0;
        for (Edit edit : DiffAlgorithm.getAlgorithm(DiffAlgorithm.SupportedAlgorithm.HISTOGRAM)
                .diff(RawTextComparator.WS_IGNORE_TRAILING, a, b)) {
            changed += Math.max(edit.getLengthA(), edit.getLengthB());
        }
        return Optional.of(Math.min(1.0, changed / (double) Math.max(1, a.size())));
    }

    /** Whether {@code path} exists now (in the work tree, or at HEAD for a bare repository). */
    boolean exists(String path) throws IOException {
        return current(path) != null;
    }

    private byte[] current(String path) throws IOException {
        if (!repository.isBare()) {
            Path file = root.resolve(path);
            if (!Files.isRegularFile(file)) {
                return null;
            }
            return Files.size(file) > MAX_COMPARED_BYTES ? new byte[] {0} : Files.readAllBytes(file);
        }
        ObjectId head = repository.resolve(Constants.HEAD);
        return head == null ? null : contentAt(head.name(), path);
    }

    private byte[] contentAt(String sha, String path) throws IOException {
        ObjectId id;
        try {
            id = repository.resolve(sha + "^{commit}");
        } catch (RuntimeException e) {
            return null;
        }
        if (id == null) {
            return null;
        }
        try (RevWalk walk = new RevWalk(repository)) {
            RevCommit commit = walk.parseCommit(id);
            try (TreeWalk tree = TreeWalk.forPath(repository, path, commit.getTree())) {
                if (tree == null) {
                    return null;
                }
                var loader = repository.open(tree.getObjectId(0));
                if (loader.getSize() > MAX_COMPARED_BYTES) {
                    return new byte[] {0};
                }
                return loader.getBytes();
            }
        } catch (MissingObjectException e) {
            return null;
        }
    }

    @Override
    public void close() {
        repository.close();
    }
}
