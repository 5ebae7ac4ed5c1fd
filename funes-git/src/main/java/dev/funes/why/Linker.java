package dev.funes.why;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.store.LinkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * One linking pass: reads new commits of every repository the memories' projects are in (and of
 * the repositories named explicitly), scans the memories stored since the last pass for explicit
 * evidence, then infers links from edited files and commit times, for the new memories and for the
 * new commits.
 */
final class Linker {

    private static final Logger LOG = LoggerFactory.getLogger(Linker.class);

    /** Commits later than an exchange's end by up to this much may still be its work. */
    static final Duration AFTER = Duration.ofHours(2);
    /** An exchange may end a little after the commit it made (its last records come after the commit). */
    static final Duration BEFORE = Duration.ofMinutes(5);
    /** Committed this soon after the exchange: no discount for delay. */
    static final Duration PROMPT = Duration.ofMinutes(10);
    static final int MAX_COMMITS_PER_SCAN = 20_000;
    private static final int BATCH = 500;

    private final LinkTables tables;
    /**
     * The link counts by evidence before this pass wrote its first link; null until then. Read
     * only when a link is about to be written: a pass that writes none (every memory scanned
     * already, no new commit) counts once, not twice (each count is 20-60 ms at 100k memories).
     */
    private Map<String, Long> countsBefore;

    /** A linker for one {@link #run}. */
    Linker(LinkTables tables) {
        this.tables = tables;
    }

    LinkReport run(Collection<Path> extraRepos) {
        List<String> problems = new ArrayList<>();
        Map<String, GitHistory> repos = new LinkedHashMap<>();
        try {
            Map<String, List<LinkTables.Commit>> newCommits = new HashMap<>();
            List<Path> dirs = new ArrayList<>();
            for (String project : tables.projects()) {
                try {
                    dirs.add(Path.of(project));
                } catch (InvalidPathException e) {
                    // a Windows path on Linux, say: no repository to read here
                }
            }
            dirs.addAll(extraRepos);
            for (Path dir : dirs) {
                open(dir, repos, problems);
            }
            int commitsAdded = 0;
            for (GitHistory git : repos.values()) {
                try {
                    List<LinkTables.Commit> commits = git.newCommits(tables.heads(git.key()).orElse(null),
                            MAX_COMMITS_PER_SCAN);
                    commitsAdded += tables.putCommits(git.key(), commits, git.heads());
                    newCommits.put(git.key(), commits);
                } catch (IOException | RuntimeException e) {
                    problems.add(git.key() + ": cannot read its history: " + e.getMessage());
                    LOG.warn("Cannot read the history of {}: {}", git.key(), e.toString());
                }
            }
            long scanned = scanMemories(repos);
            inferForCommits(newCommits);
            Map<String, Long> after = tables.linkCounts();
            Map<String, Long> before = countsBefore != null ? countsBefore : after;
            Map<String, Long> added = new TreeMap<>();
            after.forEach((k, v) -> {
                long d = v - before.getOrDefault(k, 0L);
                if (d > 0) {
                    added.put(k, d);
                }
            });
            return new LinkReport(new ArrayList<>(repos.keySet()), commitsAdded, scanned, added, after, problems);
        } finally {
            for (GitHistory git : repos.values()) { // a loop: a method reference would load GitHistory, and JGit
                git.close();
            }
        }
    }

    private static void open(Path dir, Map<String, GitHistory> repos, List<String> problems) {
        for (GitHistory known : repos.values()) {
            if (dir.toAbsolutePath().normalize().startsWith(known.root())) {
                return;
            }
        }
        if (!mayHoldRepository(dir)) {
            return;
        }
        try {
            Optional<GitHistory> git = GitHistory.find(dir);
            if (git.isPresent()) {
                if (repos.containsKey(git.get().key())) {
                    git.get().close();
                } else {
                    repos.put(git.get().key(), git.get());
                }
            }
        } catch (IOException | RuntimeException e) {
            problems.add(dir + ": cannot open its git repository: " + e.getMessage());
            LOG.warn("Cannot open the git repository of {}: {}", dir, e.toString());
        }
    }

    /**
     * Whether {@code dir} may be in a git repository: it exists, and it or a folder above it has a
     * {@code .git} or is a bare repository (has a {@code HEAD}), what JGit's search needs to find
     * one. Asked first because touching {@link GitHistory} loads JGit, whose signed jar the JVM
     * verifies as it opens it: 0.3-0.5 s of an {@code index} that finds nothing new, for projects
     * that are not on this machine or not in git.
     */
    static boolean mayHoldRepository(Path dir) {
        if (dir == null || !Files.isDirectory(dir)) {
            return false;
        }
        for (Path d = dir.toAbsolutePath().normalize(); d != null; d = d.getParent()) {
            if (Files.exists(d.resolve(".git")) || Files.exists(d.resolve("HEAD"))) {
                return true;
            }
        }
        return false;
    }

    /** Explicit evidence and file/time inference for the memories stored since the last pass. */
    private long scanMemories(Map<String, GitHistory> repos) {
        long from = tables.scannedUpTo();
        long count = 0;
        while (true) {
            List<LinkTables.Scanned> batch = tables.memoriesAfter(from, BATCH);
            if (batch.isEmpty()) {
                return count;
            }
            List<LinkTables.Link> links = new ArrayList<>();
            for (LinkTables.Scanned s : batch) {
                Memory m = s.memory();
                // A passage's evidence (the whole output of a git commit, say) is its exchange's:
                // the link goes to the exchange, which its files and times are inferred from too.
                boolean passage = m.kind() == MemoryKind.PASSAGE && m.metadata().containsKey(Memory.PASSAGE_OF);
                String owner = passage ? m.metadata().get(Memory.PASSAGE_OF) : m.id();
                for (EvidenceScanner.Found f : EvidenceScanner.commits(m)) {
                    links.add(new LinkTables.Link(owner, f.sha(), f.evidence().label(), f.confidence(),
                            repoOf(f.sha()), f.detail()));
                }
                if (passage) {
                    continue;
                }
                GitHistory git = repoOfProject(m.project(), repos);
                if (git != null) {
                    links.addAll(infer(m, git.root(), null));
                }
            }
            from = batch.get(batch.size() - 1).seq();
            count += batch.size();
            putLinks(links, from);
        }
    }

    /** {@link LinkTables#putLinks}, the counts read first before the pass's first link. */
    private void putLinks(List<LinkTables.Link> links, long scannedUpTo) {
        if (!links.isEmpty() && countsBefore == null) {
            countsBefore = tables.linkCounts();
        }
        tables.putLinks(links, scannedUpTo);
    }

    private String repoOf(String sha) {
        List<LinkTables.Commit> known = tables.commits(sha);
        return known.isEmpty() ? null : known.get(0).repo();
    }

    private static GitHistory repoOfProject(String project, Map<String, GitHistory> repos) {
        if (project == null) {
            return null;
        }
        try {
            Path p = Path.of(project).toAbsolutePath().normalize();
            for (GitHistory git : repos.values()) {
                if (p.startsWith(git.root())) {
                    return git;
                }
            }
        } catch (InvalidPathException e) {
            return null;
        }
        return null;
    }

    /** Links from memories near each new commit in time that edited its files. */
    private void inferForCommits(Map<String, List<LinkTables.Commit>> newCommits) {
        for (Map.Entry<String, List<LinkTables.Commit>> e : newCommits.entrySet()) {
            Path root = Path.of(e.getKey());
            List<LinkTables.Link> links = new ArrayList<>();
            for (LinkTables.Commit c : e.getValue()) {
                for (Memory m : tables.memoriesBetween(e.getKey(), c.time().minus(AFTER), c.time().plus(BEFORE))) {
                    links.addAll(infer(m, root, List.of(c)));
                }
            }
            if (!links.isEmpty()) {
                putLinks(links, -1);
            }
        }
    }

    /**
     * File/time links of one memory: commits of the repository made from shortly before the
     * memory ended to {@link #AFTER} after, sharing files with those it edited. {@code commits}
     * null means look them up.
     */
    private List<LinkTables.Link> infer(Memory m, Path root, List<LinkTables.Commit> commits) {
        Instant end = m.endedAt() != null ? m.endedAt() : m.startedAt();
        if (end == null) {
            return List.of();
        }
        Set<String> edited = new HashSet<>();
        for (String f : EvidenceScanner.editedFiles(m)) {
            String rel = EvidenceScanner.relativeTo(root, m.project(), f);
            if (rel != null) {
                edited.add(rel);
            }
        }
        if (edited.isEmpty()) {
            return List.of();
        }
        Instant start = m.startedAt() != null ? m.startedAt() : end;
        List<LinkTables.Commit> candidates = commits != null ? commits
                : tables.commitsBetween(root.toString(), start.minus(BEFORE), end.plus(AFTER));
        List<LinkTables.Link> links = new ArrayList<>();
        for (LinkTables.Commit c : candidates) {
            if (c.time().isBefore(start.minus(BEFORE)) || c.time().isAfter(end.plus(AFTER)) || c.files().isEmpty()) {
                continue;
            }
            long shared = c.files().stream().filter(f -> edited.contains(f.path())
                    || f.oldPath() != null && edited.contains(f.oldPath())).count();
            if (shared == 0) {
                continue;
            }
            double overlap = shared / (double) c.files().size();
            double confidence = 0.25 + 0.45 * overlap;
            if (c.time().isAfter(end.plus(PROMPT))) {
                confidence *= 0.75;
            }
            links.add(new LinkTables.Link(m.id(), c.sha(), Evidence.FILE_TIME.label(),
                    Math.round(confidence * 100) / 100.0, c.repo(), shared + " of " + c.files().size()
                            + " changed files edited"));
        }
        return links;
    }
}
