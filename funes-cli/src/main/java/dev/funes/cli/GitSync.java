package dev.funes.cli;

import dev.funes.FunesException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.MergeResult;
import org.eclipse.jgit.api.ResetCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * The dataset folder as a git repository (a Hugging Face dataset repository is one), synced with
 * a remote through JGit, so no git binary is needed.
 *
 * <p>Shard names are unique per store and shards are never rewritten, so merging two machines'
 * histories never conflicts on data; only the generated card ({@code README.md}) may, and it is
 * written again from the merged manifests by the export that follows every merge.
 *
 * <p>Shards and the live view are kept in Git LFS ({@link GitLfs}), as the Hugging Face Hub
 * requires of binary files over 1 MB: a push uploads their objects before the commits
 * ({@link LfsTransfer}), a fetch downloads those the merged commit needs before checking it out.
 *
 * <p>Credentials come only from the environment ({@code FUNES_GIT_TOKEN}, with
 * {@code FUNES_GIT_USERNAME}), serve git and LFS alike, and are never written to disk nor put in
 * a message: every message from here is {@linkplain #scrub scrubbed}. Not thread-safe.
 */
final class GitSync implements AutoCloseable {

    static final String BRANCH = "main";
    private static final String REMOTE_REF = "refs/remotes/funes-sync/" + BRANCH;
    /**
     * Files an export writes again from the manifests (its part of the card, the live view); a
     * merge conflict on them takes the remote's version and the export that follows writes
     * Funes's part again, so what someone wrote in the card on the Hub's website is kept.
     */
    private static boolean generated(String path) {
        return path.equals("README.md") || path.startsWith("memories/") || path.equals(Constants.DOT_GIT_ATTRIBUTES);
    }

    private final Git git;
    private final CredentialsProvider credentials;
    private final String user;
    private final String token;

    private GitSync(Git git, Map<String, String> env) {
        this.git = git;
        this.credentials = credentials(env);
        this.token = credentials == null ? null : env.get("FUNES_GIT_TOKEN");
        this.user = user(env);
    }

    /** Opens the repository in {@code dir}, creating it (branch {@value #BRANCH}) if absent. */
    static GitSync open(Path dir, Map<String, String> env) {
        try {
            Files.createDirectories(dir);
            Git git = Files.isDirectory(dir.resolve(".git"))
                    ? Git.open(dir.toFile())
                    : Git.init().setDirectory(dir.toFile()).setInitialBranch(BRANCH).call();
            GitLfs.configure(git.getRepository());
            return new GitSync(git, env);
        } catch (IOException | GitAPIException e) {
            throw new FunesException("cannot open the git repository " + dir + ": " + scrub(e.getMessage(), null), e);
        }
    }

    /**
     * For a dataset folder that is a git clone made without Git LFS (its shards are pointers):
     * downloads the objects of the pointers under {@code data/} from its {@code origin} remote into
     * its {@code .git/lfs/objects}, where {@code funes import} reads them, as {@code git lfs fetch}
     * would. Nothing happens for a folder that is not a clone or holds no pointer.
     *
     * @return how many objects were downloaded
     */
    static int fetchLfsObjects(Path dir, Map<String, String> env) {
        Path dotGit = dir.resolve(Constants.DOT_GIT);
        Path data = dir.resolve("data");
        if (!Files.isDirectory(dotGit) || !Files.isDirectory(data)) {
            return 0;
        }
        String token = credentials(env) == null ? null : env.get("FUNES_GIT_TOKEN");
        try (Repository repo = new org.eclipse.jgit.storage.file.FileRepositoryBuilder().setGitDir(dotGit.toFile())
                .setWorkTree(dir.toFile()).build()) {
            String origin = repo.getConfig().getString("remote", "origin", "url");
            if (origin == null) {
                return 0;
            }
            Set<GitLfs.Pointer> pointers = new java.util.LinkedHashSet<>();
            try (java.util.stream.Stream<Path> files = Files.list(data)) {
                for (Path f : files.toList()) {
                    if (Files.isRegularFile(f, java.nio.file.LinkOption.NOFOLLOW_LINKS) && Files.size(f) <= GitLfs.MAX_POINTER) {
                        GitLfs.Pointer p = GitLfs.Pointer.parse(Files.readAllBytes(f));
                        if (p != null) {
                            pointers.add(p);
                        }
                    }
                }
            }
            List<GitLfs.Pointer> missing = GitLfs.missing(repo, pointers);
            if (!missing.isEmpty()) {
                LfsTransfer.forRemote(origin, user(env), token).download(repo, missing);
            }
            return missing.size();
        } catch (IOException | FunesException e) {
            throw new FunesException(scrub("cannot fetch the LFS objects of " + dir + ": " + e.getMessage(), token));
        }
    }

    private static String user(Map<String, String> env) {
        String u = env.get("FUNES_GIT_USERNAME");
        return u == null || u.isEmpty() ? "funes" : u;
    }

    /** A username and token from the environment, or none (public or local remotes). */
    static CredentialsProvider credentials(Map<String, String> env) {
        String token = env.get("FUNES_GIT_TOKEN");
        if (token == null || token.isEmpty()) {
            return null;
        }
        String user = env.getOrDefault("FUNES_GIT_USERNAME", "funes");
        return new UsernamePasswordCredentialsProvider(user.isEmpty() ? "funes" : user, token);
    }

    /** Commits every change in the folder; false when there was none. */
    boolean commitAll(String message) {
        try {
            git.add().addFilepattern(".").call();
            git.add().addFilepattern(".").setUpdate(true).call();
            if (git.status().call().isClean() && git.getRepository().resolve("HEAD") != null) {
                return false;
            }
            git.commit().setMessage(message).setAllowEmpty(false).call();
            return true;
        } catch (GitAPIException | IOException e) {
            throw fail("cannot commit in " + dir() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Fetches the remote's {@value #BRANCH} and merges it into the local one.
     *
     * @return whether anything came in
     */
    boolean fetchAndMerge(String remote) {
        try {
            Collection<Ref> heads = git.lsRemote().setRemote(remote).setHeads(true)
                    .setCredentialsProvider(credentials).call();
            if (heads.stream().noneMatch(r -> r.getName().equals("refs/heads/" + BRANCH))) {
                return false; // a new, empty remote
            }
            git.fetch().setRemote(remote).setCredentialsProvider(credentials)
                    .setRefSpecs(new RefSpec("+refs/heads/" + BRANCH + ":" + REMOTE_REF)).call();
            ObjectId theirs = git.getRepository().resolve(REMOTE_REF);
            // The merge checks out their shards through the smudge filter, which reads only local objects.
            List<GitLfs.Pointer> missing = GitLfs.missing(git.getRepository(),
                    GitLfs.pointersInTree(git.getRepository(), theirs));
            if (!missing.isEmpty()) {
                LfsTransfer.forRemote(remote, user, token).download(git.getRepository(), missing);
            }
            MergeResult result = git.merge().include(theirs).setMessage("Merge memories from " + remote).call();
            switch (result.getMergeStatus()) {
                case ALREADY_UP_TO_DATE:
                    return false;
                case FAST_FORWARD:
                case MERGED:
                    return true;
                case CONFLICTING:
                    resolveGenerated(result.getConflicts().keySet(), theirs, remote);
                    return true;
                default:
                    throw fail("cannot merge " + remote + " into " + dir() + ": " + result.getMergeStatus(), null);
            }
        } catch (GitAPIException | IOException e) {
            throw fail("cannot fetch from " + remote + ": " + e.getMessage(), e);
        } catch (FunesException e) {
            throw fail(e.getMessage(), e.getCause());
        }
    }

    /** Takes the remote's version of generated files in conflict; anything else in conflict is an error. */
    private void resolveGenerated(Set<String> conflicts, ObjectId theirs, String remote)
            throws GitAPIException, IOException {
        for (String path : conflicts) {
            if (!generated(path)) {
                git.reset().setMode(ResetCommand.ResetType.HARD).setRef("HEAD").call();
                throw fail("merging " + remote + " conflicts on " + conflicts + " in " + dir()
                        + ": shards are named per store and never rewritten, so someone changed them by hand;"
                        + " nothing was merged", null);
            }
        }
        Repository repo = git.getRepository();
        try (RevWalk walk = new RevWalk(repo)) {
            RevCommit remoteHead = walk.parseCommit(theirs);
            for (String path : conflicts) {
                try (TreeWalk tw = TreeWalk.forPath(repo, path, remoteHead.getTree())) {
                    if (tw == null) {
                        Files.deleteIfExists(dir().resolve(path));
                        git.rm().addFilepattern(path).call();
                        continue;
                    }
                    byte[] blob = repo.open(tw.getObjectId(0)).getBytes();
                    Path file = dir().resolve(path);
                    if (path.equals(Constants.DOT_GIT_ATTRIBUTES)) {
                        // Theirs (the Hub's list) with our lines added.
                        Files.writeString(file, GitLfs.withOurLines(new String(blob, StandardCharsets.UTF_8)),
                                StandardCharsets.UTF_8);
                    } else {
                        Files.write(file, GitLfs.smudged(repo, blob));
                    }
                }
                git.add().addFilepattern(path).call();
            }
        }
        git.commit().setMessage("Merge memories from " + remote + " (Funes's part of the card and the live view"
                + " written again by the next export)").call();
    }

    /**
     * Uploads the LFS objects of the commits the remote lacks, then pushes the local
     * {@value #BRANCH} to the remote's; fails if the remote moved meanwhile.
     */
    void push(String remote) {
        try {
            Repository repo = git.getRepository();
            Set<GitLfs.Pointer> pointers = GitLfs.pointers(repo, repo.resolve("HEAD"), repo.resolve(REMOTE_REF));
            if (!pointers.isEmpty()) {
                LfsTransfer.forRemote(remote, user, token).upload(repo, List.copyOf(pointers));
            }
            Iterable<PushResult> results = git.push().setRemote(remote).setCredentialsProvider(credentials)
                    .setRefSpecs(new RefSpec("refs/heads/" + BRANCH + ":refs/heads/" + BRANCH)).call();
            for (PushResult result : results) {
                for (RemoteRefUpdate update : result.getRemoteUpdates()) {
                    RemoteRefUpdate.Status status = update.getStatus();
                    if (status != RemoteRefUpdate.Status.OK && status != RemoteRefUpdate.Status.UP_TO_DATE) {
                        throw fail("the remote " + remote + " refused the push (" + status
                                + (update.getMessage() == null ? "" : ": " + update.getMessage())
                                + "); if another machine pushed meanwhile, run push again", null);
                    }
                }
            }
        } catch (GitAPIException | IOException e) {
            throw fail("cannot push to " + remote + ": " + e.getMessage(), e);
        } catch (FunesException e) {
            throw fail(e.getMessage(), e.getCause());
        }
    }

    /**
     * A failure whose message carries neither the token nor a URL's user info; the cause is kept
     * only if nothing in its chain carries them either.
     */
    private FunesException fail(String message, Throwable cause) {
        String clean = scrub(message, token);
        for (Throwable t = cause; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (!m.equals(scrub(m, token))) {
                return new FunesException(clean);
            }
        }
        return new FunesException(clean, cause);
    }

    /** {@code text} with the token replaced and user info (user:password@) removed from URLs. */
    static String scrub(String text, String token) {
        if (text == null) {
            return null;
        }
        String out = withoutUserInfo(text);
        if (token != null && !token.isEmpty()) {
            out = out.replace(token, "***");
        }
        return out;
    }

    /** URLs in {@code text} without their user info. */
    static String withoutUserInfo(String text) {
        return text.replaceAll("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s]+@", "$1");
    }

    private Path dir() {
        return git.getRepository().getWorkTree().toPath();
    }

    @Override
    public void close() {
        git.close();
    }
}
