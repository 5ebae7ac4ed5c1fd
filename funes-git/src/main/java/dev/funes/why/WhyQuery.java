package dev.funes.why;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.store.LinkTables;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One {@link Why#why} call: resolves the target, collects the hits, flags stale ones. */
final class WhyQuery implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WhyQuery.class);

    private static final Pattern SHA = Pattern.compile("[0-9a-f]{4,64}");
    private static final Pattern LINE = Pattern.compile("^(.+):(\\d+)$");
    private static final Set<MemoryKind> DERIVED_KINDS = Set.of(MemoryKind.DECISION, MemoryKind.CONVENTION,
            MemoryKind.LOOKUP);
    /** A link found through one of a commit's files is a little weaker than one to the commit. */
    private static final double VIA_FILE = 0.9;
    private static final double VIA_DERIVED = 0.95;
    private static final int COMMITS_PER_FILE = 50;
    private static final int FILES_PER_COMMIT = 20;

    private enum Target { COMMIT, FILE, TEXT }

    /** A hit being collected, with what its staleness is judged against. */
    private static final class Candidate {
        Memory memory;
        Evidence evidence;
        double confidence;
        String sha;
        String title;
        String repo;
        String file;
    }

    private final MemoryStore store;
    private final LinkTables tables;
    private final WhyRequest request;
    private final Map<String, Candidate> hits = new LinkedHashMap<>();
    private final Map<String, Optional<GitHistory>> repos = new HashMap<>();
    private final Map<String, List<LinkTables.Commit>> commitCache = new HashMap<>();

    WhyQuery(MemoryStore store, LinkTables tables, WhyRequest request) {
        this.store = store;
        this.tables = tables;
        this.request = request;
    }

    List<WhyHit> run() {
        String t = request.target();
        String lower = t.toLowerCase(Locale.ROOT);
        if (SHA.matcher(lower).matches()) {
            List<LinkTables.Commit> commits = tables.commits(lower);
            List<LinkTables.Link> links = lower.length() >= 7 ? tables.linksTo(lower) : List.of();
            if (!commits.isEmpty() || !links.isEmpty()) {
                for (LinkTables.Commit c : commits) {
                    commitCache.put(c.sha(), List.of(c));
                }
                addLinks(links, 1.0, null);
                addDerived();
                return finish(Target.COMMIT);
            }
        }
        if (looksLikeFile(t)) {
            fileHits(t);
            if (!hits.isEmpty()) {
                return finish(Target.FILE);
            }
        }
        textHits(t);
        return finish(Target.TEXT);
    }

    // ---------------------------------------------------------------- commits

    /** Adds the memories of links, their confidence times {@code factor}, judged stale against {@code file}. */
    private void addLinks(List<LinkTables.Link> links, double factor, String file) {
        Map<String, String> details = new HashMap<>();
        for (LinkTables.Link link : links) {
            if (link.detail() != null) {
                details.putIfAbsent(link.sha(), link.detail());
            }
        }
        for (LinkTables.Link link : links) {
            Evidence evidence;
            try {
                evidence = Evidence.fromLabel(link.evidence());
            } catch (IllegalArgumentException e) {
                continue; // written by a newer Funes
            }
            Optional<Memory> memory = store.get(link.memoryId());
            if (memory.isEmpty()) {
                continue;
            }
            LinkTables.Commit commit = commit(link.sha());
            Candidate c = new Candidate();
            c.memory = memory.get();
            c.evidence = evidence;
            c.confidence = link.confidence() * factor;
            c.sha = commit != null ? commit.sha() : link.sha();
            c.title = commit != null ? commit.subject() : details.get(link.sha());
            c.repo = commit != null ? commit.repo() : link.repo();
            c.file = file;
            offer(c);
        }
    }

    private LinkTables.Commit commit(String sha) {
        List<LinkTables.Commit> found = commitCache.computeIfAbsent(sha, tables::commits);
        return found.size() == 1 ? found.get(0) : null;
    }

    /** Decisions, conventions and lookups derived from the exchanges found so far. */
    private void addDerived() {
        Map<String, Candidate> parents = new HashMap<>(hits);
        if (parents.isEmpty()) {
            return;
        }
        for (Memory m : tables.memoriesDerivedFrom(parents.keySet())) {
            Candidate parent = parents.get(m.metadata().get("derivedFrom"));
            if (parent == null) {
                continue;
            }
            Candidate c = new Candidate();
            c.memory = m;
            c.evidence = Evidence.DERIVED;
            c.confidence = parent.confidence * VIA_DERIVED;
            c.sha = parent.sha;
            c.title = parent.title;
            c.repo = parent.repo;
            c.file = parent.file;
            offer(c);
        }
    }

    private void offer(Candidate c) {
        Candidate before = hits.get(c.memory.id());
        if (before == null || before.confidence < c.confidence) {
            hits.put(c.memory.id(), c);
        }
    }

    // ---------------------------------------------------------------- files

    private static boolean looksLikeFile(String t) {
        return !t.isEmpty() && t.chars().noneMatch(Character::isWhitespace)
                && (t.indexOf('/') >= 0 || t.indexOf('\\') >= 0 || t.lastIndexOf('.') > 0);
    }

    private void fileHits(String target) {
        String path = target;
        int line = 0;
        Matcher m = LINE.matcher(target);
        if (m.matches()) {
            path = m.group(1);
            try {
                line = Integer.parseInt(m.group(2));
            } catch (NumberFormatException e) {
                line = 0;
            }
        }
        path = path.replace('\\', '/');
        Path root = null;
        String rel = null;
        for (Path candidate : candidates(path)) {
            Optional<GitHistory> git = repoContaining(candidate);
            if (git.isPresent()) {
                String r = EvidenceScanner.relativeTo(git.get().root(), null, candidate.toString());
                if (r != null && (Files.exists(candidate) || !tables.commitsTouching(git.get().key(), r, 1).isEmpty())) {
                    root = git.get().root();
                    rel = r;
                    break;
                }
            }
        }
        if (root == null) {
            // Known from the store alone: a scanned repository whose commits changed this path.
            for (String repo : tables.repos()) {
                if (!tables.commitsTouching(repo, path, 1).isEmpty()) {
                    root = Path.of(repo);
                    rel = path;
                    break;
                }
            }
        }
        String repo = root == null ? null : root.toString();
        String file = rel != null ? rel : path;
        if (repo != null && line > 0) {
            blame(repo, file, line);
        }
        if (repo != null) {
            for (LinkTables.Commit c : tables.commitsTouching(repo, file, COMMITS_PER_FILE)) {
                commitCache.put(c.sha(), List.of(c));
                addLinks(tables.linksTo(c.sha()), VIA_FILE, file);
            }
        }
        for (Memory mem : tables.memoriesContaining(file, 500)) {
            Candidate c = new Candidate();
            c.memory = mem;
            c.repo = repo;
            c.file = file;
            if (DERIVED_KINDS.contains(mem.kind()) && names(root, mem, EvidenceScanner.metadataFiles(mem), file)) {
                c.evidence = Evidence.DECISION_FILE;
            } else if (names(root, mem, EvidenceScanner.editedFiles(mem), file)) {
                c.evidence = Evidence.EDITED_FILE;
            } else {
                c.evidence = Evidence.MENTION;
            }
            c.confidence = c.evidence.confidence();
            offer(c);
        }
        addDerived();
        // Memories found through a file are judged against that file.
        for (Candidate c : hits.values()) {
            if (c.file == null) {
                c.file = file;
            }
        }
    }

    private void blame(String repo, String file, int line) {
        Optional<GitHistory> git = repo(repo);
        if (git.isEmpty()) {
            return;
        }
        try {
            Optional<String> sha = git.get().blame(file, line);
            if (sha.isPresent()) {
                addLinks(tables.linksTo(sha.get()), 1.0, file);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot blame {}:{} in {}: {}", file, line, repo, e.toString());
        }
    }

    /** Whether one of {@code files} (as a memory named them) is {@code file} of the repository. */
    private static boolean names(Path root, Memory memory, Set<String> files, String file) {
        for (String f : files) {
            String normalized = f.replace('\\', '/');
            if (normalized.equals(file)) {
                return true;
            }
            if (root != null && file.equals(EvidenceScanner.relativeTo(root, memory.project(), normalized))) {
                return true;
            }
        }
        return false;
    }

    private List<Path> candidates(String path) {
        List<Path> out = new ArrayList<>();
        try {
            Path p = Path.of(path);
            if (p.isAbsolute()) {
                out.add(p.normalize());
                return out;
            }
            if (request.base() != null) {
                out.add(request.base().resolve(p).toAbsolutePath().normalize());
            }
            for (String repo : tables.repos()) {
                out.add(Path.of(repo).resolve(p).normalize());
            }
        } catch (InvalidPathException e) {
            // not a path on this system
        }
        return out;
    }

    private Optional<GitHistory> repoContaining(Path file) {
        for (String repo : tables.repos()) {
            if (file.startsWith(Path.of(repo))) {
                return repo(repo);
            }
        }
        Path dir = file.getParent();
        while (dir != null && !Files.isDirectory(dir)) {
            dir = dir.getParent();
        }
        if (dir == null) {
            return Optional.empty();
        }
        try {
            Optional<GitHistory> git = GitHistory.find(dir);
            if (git.isPresent()) {
                Optional<GitHistory> known = repos.get(git.get().key());
                if (known != null && known.isPresent()) {
                    git.get().close();
                    return known;
                }
                repos.put(git.get().key(), git);
            }
            return git;
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private Optional<GitHistory> repo(String repo) {
        return repos.computeIfAbsent(repo, r -> {
            try {
                Optional<GitHistory> git = GitHistory.find(Path.of(r));
                return git.isPresent() && git.get().key().equals(r) ? git : git.flatMap(g -> {
                    g.close();
                    return Optional.empty();
                });
            } catch (IOException | RuntimeException e) {
                LOG.debug("Cannot open the repository {}: {}", r, e.toString());
                return Optional.empty();
            }
        });
    }

    // ---------------------------------------------------------------- text

    private void textHits(String text) {
        int rank = 0;
        for (SearchHit hit : store.search(SearchRequest.builder(text).limit(request.limit())
                .kinds(MemoryKind.DECISION, MemoryKind.CONVENTION, MemoryKind.LOOKUP).build())) {
            offer(searched(hit.memory(), 0.6 - 0.01 * rank++));
        }
        rank = 0;
        for (SearchHit hit : store.search(SearchRequest.builder(text).limit(request.limit()).build())) {
            offer(searched(hit.memory(), 0.45 - 0.01 * rank++));
        }
    }

    private static Candidate searched(Memory memory, double confidence) {
        Candidate c = new Candidate();
        c.memory = memory;
        c.evidence = Evidence.SEARCH;
        c.confidence = Math.max(0.05, confidence);
        return c;
    }

    // ---------------------------------------------------------------- ranking and staleness

    private List<WhyHit> finish(Target target) {
        Comparator<Candidate> order = Comparator.<Candidate>comparingInt(c -> -tier(c.confidence))
                .thenComparing(c -> time(c.memory), Comparator.nullsLast(Comparator.reverseOrder()))
                .thenComparingInt(c -> kindRank(target, c.memory.kind()))
                .thenComparing(c -> -c.confidence);
        List<WhyHit> out = new ArrayList<>();
        for (Candidate c : hits.values().stream().sorted(order).limit(request.limit()).toList()) {
            String stale = staleness(c);
            out.add(new WhyHit(c.memory, c.evidence, Math.round(c.confidence * 1000) / 1000.0, c.sha, c.title,
                    stale != null, stale));
        }
        return out;
    }

    static int tier(double confidence) {
        return confidence >= 0.9 ? 3 : confidence >= 0.6 ? 2 : confidence >= 0.3 ? 1 : 0;
    }

    private static Instant time(Memory m) {
        return m.endedAt() != null ? m.endedAt() : m.startedAt();
    }

    private static int kindRank(Target target, MemoryKind kind) {
        boolean derived = DERIVED_KINDS.contains(kind);
        if (target == Target.COMMIT) {
            return kind == MemoryKind.EXCHANGE ? 0 : derived ? 1 : 2;
        }
        return derived ? 0 : kind == MemoryKind.EXCHANGE ? 1 : 2;
    }

    /**
     * Why the memory is stale, or {@code null}: more than the threshold of a cited file's lines
     * changed between the memory's version of it and the work tree now. The memory's version is
     * the linked commit's, else the file as of the last commit that changed it up to
     * {@link Linker#AFTER} after the memory.
     */
    private String staleness(Candidate c) {
        if (c.repo == null) {
            if (c.evidence == Evidence.SEARCH) {
                return decisionStaleness(c);
            }
            return null;
        }
        Optional<GitHistory> git = repo(c.repo);
        if (git.isEmpty()) {
            return null;
        }
        List<String> files = new ArrayList<>();
        String baseline = null;
        LinkTables.Commit commit = c.sha == null ? null : commit(c.sha);
        if (c.file != null) {
            files.add(c.file);
            baseline = commit != null ? commit.sha() : baselineAt(c.repo, c.file, time(c.memory));
        } else if (commit != null) {
            baseline = commit.sha();
            for (LinkTables.FileChange f : commit.files()) {
                if (!"D".equals(f.change()) && files.size() < FILES_PER_COMMIT) {
                    files.add(f.path());
                }
            }
        }
        return stale(git.get(), baseline, files, c.file == null ? null : c.file);
    }

    private String decisionStaleness(Candidate c) {
        if (!DERIVED_KINDS.contains(c.memory.kind())) {
            return null;
        }
        for (String f : EvidenceScanner.metadataFiles(c.memory)) {
            for (Path p : candidates(f)) {
                Optional<GitHistory> git = repoContaining(p);
                if (git.isEmpty()) {
                    continue;
                }
                String rel = EvidenceScanner.relativeTo(git.get().root(), c.memory.project(), p.toString());
                if (rel == null) {
                    continue;
                }
                String reason = stale(git.get(), baselineAt(git.get().key(), rel, time(c.memory)), List.of(rel), rel);
                if (reason != null) {
                    return reason;
                }
                break;
            }
        }
        return null;
    }

    private String baselineAt(String repo, String file, Instant t) {
        List<LinkTables.Commit> touching = tables.commitsTouching(repo, file, 200);
        if (touching.isEmpty()) {
            return null;
        }
        if (t != null) {
            Instant limit = t.plus(Linker.AFTER);
            for (LinkTables.Commit k : touching) {
                if (!k.time().isAfter(limit)) {
                    return k.sha();
                }
            }
        }
        return touching.get(touching.size() - 1).sha();
    }

    private String stale(GitHistory git, String baseline, List<String> files, String only) {
        if (baseline == null) {
            return null;
        }
        for (String f : files) {
            try {
                Optional<Double> changed = git.changedSince(baseline, f);
                if (changed.isPresent() && changed.get() > request.staleThreshold()) {
                    long percent = Math.round(changed.get() * 100);
                    return f + ": " + (percent >= 100 && !git.exists(f) ? "deleted" : percent + "% of lines changed")
                            + " since " + baseline.substring(0, 7);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("Cannot compare {} with {}: {}", f, baseline, e.toString());
            }
            if (only != null) {
                break;
            }
        }
        return null;
    }

    @Override
    public void close() {
        repos.values().forEach(g -> g.ifPresent(GitHistory::close));
    }
}
