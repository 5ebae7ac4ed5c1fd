package dev.funes.store;

import dev.funes.Memory;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** {@link LinkTables} over the tables of schema migration 2, through the store's connections and locks. */
final class SqliteLinkTables implements LinkTables {

    private static final String COMMIT_COLUMNS = "c.repo, c.sha, c.time, c.author, c.message";
    static final String SCANNED_KEY = "memories_scanned_seq";
    private static final int IN_LIST_CHUNK = 500;

    private final StoreDatabase db;
    private final MemoryWriter writes;

    SqliteLinkTables(SqliteMemoryStore store) {
        this.db = store.database();
        this.writes = store.writes();
    }

    @Override
    public Optional<String> heads(String repo) {
        Objects.requireNonNull(repo, "repo");
        return db.read("read the heads of " + repo, c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT heads FROM repo_heads WHERE repo = ?")) {
                ps.setString(1, repo);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
                }
            }
        });
    }

    @Override
    public List<String> repos() {
        return db.read("list repositories", c -> strings(c, "SELECT repo FROM repo_heads ORDER BY repo"));
    }

    @Override
    public int putCommits(String repo, Collection<Commit> commits, String heads) {
        Objects.requireNonNull(repo, "repo");
        Objects.requireNonNull(heads, "heads");
        return db.write("store " + commits.size() + " commits of " + repo, c -> {
            int added = 0;
            try (PreparedStatement commit = c.prepareStatement(
                    "INSERT OR IGNORE INTO commits (repo, sha, time, author, message) VALUES (?,?,?,?,?)");
                 PreparedStatement file = c.prepareStatement(
                         "INSERT OR IGNORE INTO commit_files (repo, sha, path, change, old_path) VALUES (?,?,?,?,?)")) {
                for (Commit k : commits) {
                    commit.setString(1, repo);
                    commit.setString(2, k.sha());
                    commit.setString(3, Rows.instant(k.time()));
                    commit.setString(4, writes.redacted(k.author()));
                    commit.setString(5, writes.redacted(k.message()));
                    if (commit.executeUpdate() == 0) {
                        continue;
                    }
                    added++;
                    for (FileChange f : k.files()) {
                        file.setString(1, repo);
                        file.setString(2, k.sha());
                        file.setString(3, f.path());
                        file.setString(4, f.change());
                        file.setString(5, f.oldPath());
                        file.addBatch();
                    }
                    file.executeBatch();
                }
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT OR REPLACE INTO repo_heads (repo, heads, scanned_at) VALUES (?,?,?)")) {
                ps.setString(1, repo);
                ps.setString(2, heads);
                ps.setString(3, Rows.instant(Instant.now()));
                ps.executeUpdate();
            }
            // Links found before their commit was known learn its repository now.
            try (PreparedStatement ps = c.prepareStatement("""
                    UPDATE links SET repo = ? WHERE repo IS NULL AND EXISTS (
                      SELECT 1 FROM commits k WHERE k.repo = ? AND k.sha GLOB links.sha || '*')""")) {
                ps.setString(1, repo);
                ps.setString(2, repo);
                ps.executeUpdate();
            }
            return added;
        });
    }

    @Override
    public List<String> projects() {
        // From one project to the next through the memories_project index, a seek each: DISTINCT
        // reads every entry of the index (28 ms at 100k memories, for the two projects there).
        return db.read("list projects", c -> strings(c, """
                WITH RECURSIVE p(project) AS (
                    SELECT min(project) FROM memories
                    UNION ALL
                    SELECT (SELECT min(project) FROM memories WHERE project > p.project) FROM p
                    WHERE p.project IS NOT NULL)
                SELECT project FROM p WHERE project IS NOT NULL"""));
    }

    @Override
    public List<Scanned> memoriesAfter(long seq, int limit) {
        return db.read("read memories to link", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT " + Rows.MEMORY_COLUMNS
                    + " FROM memories m WHERE m.seq > ? ORDER BY m.seq LIMIT ?")) {
                ps.setLong(1, seq);
                ps.setInt(2, limit);
                List<Scanned> out = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        Rows.StoredMemory m = Rows.memory(rs);
                        out.add(new Scanned(m.seq(), m.memory()));
                    }
                }
                return out;
            }
        });
    }

    @Override
    public long scannedUpTo() {
        return db.read("read the link scan position", c -> {
            long max;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT coalesce(max(seq), 0) FROM memories")) {
                max = rs.next() ? rs.getLong(1) : 0;
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT value FROM link_state WHERE key = ?")) {
                ps.setString(1, SCANNED_KEY);
                try (ResultSet rs = ps.executeQuery()) {
                    long scanned = rs.next() ? Long.parseLong(rs.getString(1)) : 0;
                    // Rows past the newest memory were deleted; their numbers may be given out
                    // again, so scanning starts over rather than skip the new rows.
                    return scanned > max ? 0 : scanned;
                }
            }
        });
    }

    @Override
    public int putLinks(Collection<Link> links, long scannedUpTo) {
        return db.write("store " + links.size() + " links", c -> {
            int added = 0;
            try (PreparedStatement insert = c.prepareStatement("""
                    INSERT INTO links (memory_id, sha, evidence, confidence, repo, detail, linked_at)
                    VALUES (?,?,?,?,?,?,?)
                    ON CONFLICT (memory_id, sha, evidence) DO UPDATE SET
                      confidence = max(confidence, excluded.confidence),
                      repo = coalesce(links.repo, excluded.repo),
                      detail = coalesce(links.detail, excluded.detail)""");
                 PreparedStatement exists = c.prepareStatement(
                         "SELECT 1 FROM links WHERE memory_id = ? AND sha = ? AND evidence = ?")) {
                String now = Rows.instant(Instant.now());
                for (Link l : links) {
                    exists.setString(1, l.memoryId());
                    exists.setString(2, l.sha());
                    exists.setString(3, l.evidence());
                    try (ResultSet rs = exists.executeQuery()) {
                        if (!rs.next()) {
                            added++;
                        }
                    }
                    insert.setString(1, l.memoryId());
                    insert.setString(2, l.sha());
                    insert.setString(3, l.evidence());
                    insert.setDouble(4, l.confidence());
                    insert.setString(5, l.repo());
                    insert.setString(6, l.detail());
                    insert.setString(7, now);
                    insert.executeUpdate();
                }
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("DELETE FROM links WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = links.memory_id)");
            }
            if (scannedUpTo >= 0) {
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT OR REPLACE INTO link_state (key, value) VALUES (?, ?)")) {
                    ps.setString(1, SCANNED_KEY);
                    ps.setString(2, Long.toString(scannedUpTo));
                    ps.executeUpdate();
                }
            }
            return added;
        });
    }

    @Override
    public List<Commit> commits(String prefix) {
        String p = hex(prefix, 4);
        return db.read("find commit " + p, c -> commitsWhere(c,
                "c.sha GLOB ? || '*' ORDER BY c.time DESC", ps -> ps.setString(1, p)));
    }

    @Override
    public List<Commit> commitsTouching(String repo, String path, int limit) {
        return db.read("find commits of " + path, c -> commitsWhere(c,
                "c.repo = ? AND EXISTS (SELECT 1 FROM commit_files f WHERE f.repo = c.repo AND f.sha = c.sha"
                        + " AND (f.path = ? OR f.old_path = ?)) ORDER BY c.time DESC LIMIT ?", ps -> {
                    ps.setString(1, repo);
                    ps.setString(2, path);
                    ps.setString(3, path);
                    ps.setInt(4, limit);
                }));
    }

    @Override
    public List<Commit> commitsBetween(String repo, Instant from, Instant to) {
        return db.read("find commits of " + repo, c -> commitsWhere(c,
                "c.repo = ? AND c.time >= ? AND c.time <= ? ORDER BY c.time", ps -> {
                    ps.setString(1, repo);
                    ps.setString(2, Rows.instant(from));
                    ps.setString(3, Rows.instant(to));
                }));
    }

    @Override
    public List<Link> linksTo(String sha) {
        String s = hex(sha, 7);
        // Stored shas that start with the target, or (abbreviated ones) that the target starts with.
        return db.read("find links to " + s, c -> links(c, """
                SELECT memory_id, sha, evidence, confidence, repo, detail FROM links
                WHERE sha GLOB ?1 || '*'
                   OR (sha BETWEEN substr(?1, 1, 7) AND ?1 AND substr(?1, 1, length(sha)) = sha)
                ORDER BY confidence DESC""", s));
    }

    @Override
    public List<Link> linksFrom(String memoryId) {
        return db.read("find links of " + memoryId, c -> links(c, """
                SELECT memory_id, sha, evidence, confidence, repo, detail FROM links
                WHERE memory_id = ?1 ORDER BY confidence DESC""", memoryId));
    }

    @Override
    public List<Memory> memoriesBetween(String project, Instant from, Instant to) {
        String folder = project.endsWith("/") ? project : project + "/";
        return db.read("find memories of " + project, c -> memoriesWhere(c,
                "(m.project = ? OR substr(m.project, 1, ?) = ?) AND coalesce(m.ended_at, m.started_at) >= ?"
                        + " AND coalesce(m.ended_at, m.started_at) <= ? ORDER BY coalesce(m.ended_at, m.started_at)",
                ps -> {
                    ps.setString(1, project);
                    ps.setInt(2, folder.length());
                    ps.setString(3, folder);
                    ps.setString(4, Rows.instant(from));
                    ps.setString(5, Rows.instant(to));
                }));
    }

    @Override
    public List<Memory> memoriesContaining(String needle, int limit) {
        return db.read("find memories citing " + needle, c -> memoriesWhere(c,
                "(instr(m.text, ?1) > 0 OR instr(m.metadata, ?1) > 0)"
                        + " ORDER BY coalesce(m.ended_at, m.started_at) DESC LIMIT ?2", ps -> {
                    ps.setString(1, needle);
                    ps.setInt(2, limit);
                }));
    }

    @Override
    public List<Memory> memoriesDerivedFrom(Collection<String> ids) {
        List<String> list = List.copyOf(ids);
        return db.read("find derived memories", c -> {
            List<Memory> out = new ArrayList<>();
            for (int from = 0; from < list.size(); from += IN_LIST_CHUNK) {
                List<String> chunk = list.subList(from, Math.min(list.size(), from + IN_LIST_CHUNK));
                String marks = "?,".repeat(chunk.size() - 1) + "?";
                // Only the memories of the parents' sessions are read (an index has the session):
                // no index has the metadata, and reading every memory's took 0.1-0.5 s at 100k.
                out.addAll(memoriesWhere(c, "json_extract(m.metadata, '$.derivedFrom') IN (" + marks + ")"
                        + " AND (m.session IN (SELECT p.session FROM memories p WHERE p.id IN (" + marks + "))"
                        + " OR m.session IS NULL) ORDER BY m.seq", ps -> {
                            for (int i = 0; i < chunk.size(); i++) {
                                ps.setString(i + 1, chunk.get(i));
                                ps.setString(chunk.size() + i + 1, chunk.get(i));
                            }
                        }));
            }
            return out;
        });
    }

    @Override
    public Map<String, Long> linkCounts() {
        return db.read("count links", c -> {
            Map<String, Long> counts = new LinkedHashMap<>();
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
                    SELECT evidence, count(*) FROM links l
                    WHERE EXISTS (SELECT 1 FROM memories m WHERE m.id = l.memory_id)
                    GROUP BY evidence ORDER BY evidence""")) {
                while (rs.next()) {
                    counts.put(rs.getString(1), rs.getLong(2));
                }
            }
            return counts;
        });
    }

    @Override
    public long commitCount() {
        return db.read("count commits", c -> {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM commits")) {
                return rs.next() ? rs.getLong(1) : 0L;
            }
        });
    }

    // ---------------------------------------------------------------- helpers

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private static String hex(String sha, int min) {
        Objects.requireNonNull(sha, "sha");
        String s = sha.strip().toLowerCase(Locale.ROOT);
        if (s.length() < min || s.length() > 64 || !s.chars().allMatch(ch -> ch >= '0' && ch <= '9' || ch >= 'a' && ch <= 'f')) {
            throw new IllegalArgumentException("'" + sha + "' is not a commit sha (" + min + " to 40 hex characters)");
        }
        return s;
    }

    private static List<Commit> commitsWhere(Connection c, String where, Binder binder) throws SQLException {
        List<Commit> commits = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + COMMIT_COLUMNS + " FROM commits c WHERE " + where)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    commits.add(new Commit(rs.getString(1), rs.getString(2), Rows.instant(rs.getString(3)),
                            rs.getString(4), rs.getString(5), List.of()));
                }
            }
        }
        List<Commit> withFiles = new ArrayList<>(commits.size());
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT path, change, old_path FROM commit_files WHERE repo = ? AND sha = ? ORDER BY path")) {
            for (Commit k : commits) {
                ps.setString(1, k.repo());
                ps.setString(2, k.sha());
                List<FileChange> files = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        files.add(new FileChange(rs.getString(1), rs.getString(2), rs.getString(3)));
                    }
                }
                withFiles.add(new Commit(k.repo(), k.sha(), k.time(), k.author(), k.message(), files));
            }
        }
        return withFiles;
    }

    private static List<Memory> memoriesWhere(Connection c, String where, Binder binder) throws SQLException {
        List<Memory> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + Rows.MEMORY_COLUMNS + " FROM memories m WHERE " + where)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(Rows.memory(rs).memory());
                }
            }
        }
        return out;
    }

    private static List<Link> links(Connection c, String sql, String param) throws SQLException {
        List<Link> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new Link(rs.getString(1), rs.getString(2), rs.getString(3), rs.getDouble(4),
                            rs.getString(5), rs.getString(6)));
                }
            }
        }
        return out;
    }

    private static List<String> strings(Connection c, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }
}
