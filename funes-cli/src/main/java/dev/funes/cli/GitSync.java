package dev.funes.cli;

import dev.funes.FunesException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.MergeResult;
import org.eclipse.jgit.api.ResetCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
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
 * <p>Credentials come only from the environment ({@code FUNES_GIT_TOKEN}, with
 * {@code FUNES_GIT_USERNAME}); nothing is written to disk. Not thread-safe.
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
        return path.equals("README.md") || path.startsWith("memories/");
    }

    private final Git git;
    private final CredentialsProvider credentials;

    private GitSync(Git git, CredentialsProvider credentials) {
        this.git = git;
        this.credentials = credentials;
    }

    /** Opens the repository in {@code dir}, creating it (branch {@value #BRANCH}) if absent. */
    static GitSync open(Path dir, Map<String, String> env) {
        try {
            Files.createDirectories(dir);
            Git git = Files.isDirectory(dir.resolve(".git"))
                    ? Git.open(dir.toFile())
                    : Git.init().setDirectory(dir.toFile()).setInitialBranch(BRANCH).call();
            return new GitSync(git, credentials(env));
        } catch (IOException | GitAPIException e) {
            throw new FunesException("cannot open the git repository " + dir + ": " + e.getMessage(), e);
        }
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
            throw new FunesException("cannot commit in " + dir() + ": " + e.getMessage(), e);
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
                    throw new FunesException("cannot merge " + remote + " into " + dir() + ": " + result.getMergeStatus());
            }
        } catch (GitAPIException | IOException e) {
            throw new FunesException("cannot fetch from " + remote + ": " + e.getMessage(), e);
        }
    }

    /** Takes the remote's version of generated files in conflict; anything else in conflict is an error. */
    private void resolveGenerated(Set<String> conflicts, ObjectId theirs, String remote)
            throws GitAPIException, IOException {
        for (String path : conflicts) {
            if (!generated(path)) {
                git.reset().setMode(ResetCommand.ResetType.HARD).setRef("HEAD").call();
                throw new FunesException("merging " + remote + " conflicts on " + conflicts + " in " + dir()
                        + ": shards are named per store and never rewritten, so someone changed them by hand;"
                        + " nothing was merged");
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
                    ObjectLoader blob = repo.open(tw.getObjectId(0));
                    Files.write(dir().resolve(path), blob.getBytes());
                }
                git.add().addFilepattern(path).call();
            }
        }
        git.commit().setMessage("Merge memories from " + remote + " (Funes's part of the card and the live view"
                + " written again by the next export)").call();
    }

    /** Pushes the local {@value #BRANCH} to the remote's; fails if the remote moved meanwhile. */
    void push(String remote) {
        try {
            Iterable<PushResult> results = git.push().setRemote(remote).setCredentialsProvider(credentials)
                    .setRefSpecs(new RefSpec("refs/heads/" + BRANCH + ":refs/heads/" + BRANCH)).call();
            for (PushResult result : results) {
                for (RemoteRefUpdate update : result.getRemoteUpdates()) {
                    RemoteRefUpdate.Status status = update.getStatus();
                    if (status != RemoteRefUpdate.Status.OK && status != RemoteRefUpdate.Status.UP_TO_DATE) {
                        throw new FunesException("the remote " + remote + " refused the push (" + status
                                + (update.getMessage() == null ? "" : ": " + update.getMessage())
                                + "); if another machine pushed meanwhile, run push again");
                    }
                }
            }
        } catch (GitAPIException e) {
            throw new FunesException("cannot push to " + remote + ": " + e.getMessage(), e);
        }
    }

    private Path dir() {
        return git.getRepository().getWorkTree().toPath();
    }

    @Override
    public void close() {
        git.close();
    }
}
