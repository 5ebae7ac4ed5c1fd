package dev.funes.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.attributes.FilterCommand;
import org.eclipse.jgit.attributes.FilterCommandRegistry;
import org.eclipse.jgit.lib.AnyObjectId;
import org.eclipse.jgit.lib.ConfigConstants;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevObject;

/**
 * Git LFS in the dataset repository, as the Hugging Face Hub wants it: shards are committed as
 * LFS pointers and their content kept under {@code .git/lfs/objects/}, exactly where {@code git
 * lfs} keeps it, so the folder also works with git and git-lfs.
 *
 * <p>The clean and smudge filters are JGit builtin filter commands (JGit runs them in-process
 * for paths whose {@code .gitattributes} say {@code filter=lfs} when the repository's config sets
 * {@code filter.lfs.useJGitBuiltin}); the transfer to and from a remote is {@link LfsTransfer}.
 * Smudge never reaches the network: the objects a checkout needs are downloaded before it, and
 * a missing one leaves the pointer in place (an import then names it).
 */
final class GitLfs {

    static final String SPEC = "version https://git-lfs.github.com/spec/v1";
    /** What {@code funes push} keeps in LFS: every shard and every file of the live view. */
    static final List<String> PATTERNS = List.of("data/*.jsonl.gz", "memories/*.jsonl.gz");
    static final String ATTRIBUTES = "filter=lfs diff=lfs merge=lfs -text";
    /** A pointer is at most this long; git-lfs reads no more to recognise one. */
    static final int MAX_POINTER = 1024;
    private static final Pattern POINTER = Pattern.compile(
            "version https://git-lfs\\.github\\.com/spec/v1\noid sha256:([0-9a-f]{64})\nsize ([0-9]{1,18})\n");

    private GitLfs() {
    }

    /** An LFS pointer: the SHA-256 and size of the content it stands for. */
    record Pointer(String oid, long size) {
        String text() {
            return SPEC + "\noid sha256:" + oid + "\nsize " + size + "\n";
        }

        /** The pointer these bytes are, or {@code null}. */
        static Pointer parse(byte[] bytes) {
            if (bytes.length > MAX_POINTER) {
                return null;
            }
            Matcher m = POINTER.matcher(new String(bytes, StandardCharsets.UTF_8));
            return m.matches() ? new Pointer(m.group(1), Long.parseLong(m.group(2))) : null;
        }
    }

    static {
        String prefix = Constants.BUILTIN_FILTER_PREFIX + "lfs/";
        FilterCommandRegistry.register(prefix + "clean", (repo, in, out) -> new Clean(repo, in, out));
        FilterCommandRegistry.register(prefix + "smudge", (repo, in, out) -> new Smudge(repo, in, out));
    }

    /**
     * Makes the repository use these filters for {@link #PATTERNS}: the config switch and the
     * {@code .gitattributes} lines, added to whatever the file holds already (the Hub's own list).
     */
    static void configure(Repository repo) throws IOException {
        StoredConfig config = repo.getConfig();
        if (!config.getBoolean(ConfigConstants.CONFIG_FILTER_SECTION, "lfs", ConfigConstants.CONFIG_KEY_USEJGITBUILTIN,
                false)) {
            config.setBoolean(ConfigConstants.CONFIG_FILTER_SECTION, "lfs", ConfigConstants.CONFIG_KEY_USEJGITBUILTIN,
                    true);
            config.save();
        }
        Path file = repo.getWorkTree().toPath().resolve(Constants.DOT_GIT_ATTRIBUTES);
        String text = Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
        String merged = withOurLines(text);
        if (!merged.equals(text)) {
            Files.writeString(file, merged, StandardCharsets.UTF_8);
        }
    }

    /** {@code text} with a line for each of {@link #PATTERNS} it lacks, appended. */
    static String withOurLines(String text) {
        StringBuilder b = new StringBuilder(text);
        Set<String> patterns = new LinkedHashSet<>();
        text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .forEach(l -> patterns.add(l.split("\\s+")[0]));
        for (String p : PATTERNS) {
            if (!patterns.contains(p)) {
                if (b.length() > 0 && b.charAt(b.length() - 1) != '\n') {
                    b.append('\n');
                }
                b.append(p).append(' ').append(ATTRIBUTES).append('\n');
            }
        }
        return b.toString();
    }

    /** Where the content of {@code oid} is kept: {@code .git/lfs/objects/ab/cd/abcd...}. */
    static Path object(Repository repo, String oid) {
        return repo.getDirectory().toPath().resolve("lfs").resolve("objects").resolve(oid.substring(0, 2))
                .resolve(oid.substring(2, 4)).resolve(oid);
    }

    static Path tmp(Repository repo) throws IOException {
        Path dir = repo.getDirectory().toPath().resolve("lfs").resolve("tmp");
        Files.createDirectories(dir);
        return dir;
    }

    /** Every LFS pointer in the tree of {@code commit}: what checking it out needs. */
    static Set<Pointer> pointersInTree(Repository repo, AnyObjectId commit) throws IOException {
        Set<Pointer> found = new LinkedHashSet<>();
        try (org.eclipse.jgit.revwalk.RevWalk walk = new org.eclipse.jgit.revwalk.RevWalk(repo);
             org.eclipse.jgit.treewalk.TreeWalk tw = new org.eclipse.jgit.treewalk.TreeWalk(repo)) {
            tw.addTree(walk.parseCommit(commit).getTree());
            tw.setRecursive(true);
            ObjectReader reader = tw.getObjectReader();
            while (tw.next()) {
                org.eclipse.jgit.lib.ObjectId id = tw.getObjectId(0);
                if (tw.getFileMode(0).getObjectType() == Constants.OBJ_BLOB
                        && reader.getObjectSize(id, Constants.OBJ_BLOB) <= MAX_POINTER) {
                    Pointer p = Pointer.parse(reader.open(id, Constants.OBJ_BLOB).getBytes());
                    if (p != null) {
                        found.add(p);
                    }
                }
            }
        }
        return found;
    }

    /**
     * Every LFS pointer among the blobs reachable from {@code start} and not from
     * {@code exclude} (what a push sends, or what a fetched commit checks out).
     */
    static Set<Pointer> pointers(Repository repo, AnyObjectId start, AnyObjectId exclude) throws IOException {
        Set<Pointer> found = new LinkedHashSet<>();
        try (ObjectWalk walk = new ObjectWalk(repo)) {
            walk.markStart(walk.parseAny(start));
            if (exclude != null) {
                walk.markUninteresting(walk.parseAny(exclude));
            }
            while (walk.next() != null) {
                // the commits; their trees and blobs follow
            }
            ObjectReader reader = walk.getObjectReader();
            for (RevObject o; (o = walk.nextObject()) != null; ) {
                if (o.getType() == Constants.OBJ_BLOB && reader.getObjectSize(o, Constants.OBJ_BLOB) <= MAX_POINTER) {
                    Pointer p = Pointer.parse(reader.open(o, Constants.OBJ_BLOB).getBytes());
                    if (p != null) {
                        found.add(p);
                    }
                }
            }
        }
        return found;
    }

    /** The pointers of {@code candidates} whose content this repository lacks. */
    static List<Pointer> missing(Repository repo, Set<Pointer> candidates) throws IOException {
        List<Pointer> missing = new ArrayList<>();
        for (Pointer p : candidates) {
            Path f = object(repo, p.oid());
            if (!Files.isRegularFile(f) || Files.size(f) != p.size()) {
                missing.add(p);
            }
        }
        return missing;
    }

    /**
     * What a checkout writes for a blob: the content of a pointer whose object is here, else the
     * blob as it is.
     */
    static byte[] smudged(Repository repo, byte[] blob) throws IOException {
        Pointer p = Pointer.parse(blob);
        if (p == null) {
            return blob;
        }
        Path f = object(repo, p.oid());
        return Files.isRegularFile(f) ? Files.readAllBytes(f) : blob;
    }

    /**
     * Moves a file whose SHA-256 and size were checked into the object store; an object already
     * there is kept (same name, same content).
     */
    static void store(Repository repo, Path temp, String oid) throws IOException {
        Path target = object(repo, oid);
        if (Files.isRegularFile(target)) {
            Files.delete(temp);
            return;
        }
        Files.createDirectories(target.getParent());
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    static String hex(MessageDigest digest) {
        return HexFormat.of().formatHex(digest.digest());
    }

    /** Content in, pointer out; the content goes to the object store. A pointer passes as it is. */
    private static final class Clean extends FilterCommand {
        private final Repository repo;

        Clean(Repository repo, InputStream in, OutputStream out) {
            super(in, out);
            this.repo = repo;
        }

        @Override
        public int run() throws IOException {
            Path temp = Files.createTempFile(tmp(repo), "clean", ".tmp");
            try {
                MessageDigest digest = sha256();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                long size = 0;
                try (OutputStream file = Files.newOutputStream(temp)) {
                    byte[] buffer = new byte[1 << 16];
                    for (int n; (n = in.read(buffer)) > 0; size += n) {
                        digest.update(buffer, 0, n);
                        file.write(buffer, 0, n);
                        if (head.size() <= MAX_POINTER) {
                            head.write(buffer, 0, Math.min(n, MAX_POINTER + 1 - head.size()));
                        }
                    }
                }
                byte[] small = head.toByteArray();
                if (size <= MAX_POINTER && Pointer.parse(small) != null) {
                    out.write(small); // already a pointer (a file taken from a commit as it is)
                } else {
                    String oid = hex(digest);
                    store(repo, temp, oid);
                    out.write(new Pointer(oid, size).text().getBytes(StandardCharsets.UTF_8));
                }
            } finally {
                Files.deleteIfExists(temp);
                in.close();
                out.close();
            }
            return -1;
        }
    }

    /** Pointer in, content out when the object is here; else the pointer, unchanged. */
    private static final class Smudge extends FilterCommand {
        private final Repository repo;

        Smudge(Repository repo, InputStream in, OutputStream out) {
            super(in, out);
            this.repo = repo;
        }

        @Override
        public int run() throws IOException {
            try {
                byte[] head = in.readNBytes(MAX_POINTER + 1);
                Pointer p = Pointer.parse(head);
                Path f = p == null ? null : object(repo, p.oid());
                if (f != null && Files.isRegularFile(f) && Files.size(f) == p.size()) {
                    Files.copy(f, out);
                } else {
                    out.write(head);
                    in.transferTo(out);
                }
            } finally {
                in.close();
                out.close();
            }
            return -1;
        }
    }
}
