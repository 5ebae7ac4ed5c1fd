package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small corpus of memories written for these tests: the kind of things a coding agent's logs
 * hold, on clearly different topics, spread over two projects, two agents, several sessions,
 * kinds and months. Keys name the topics.
 */
final class TestCorpus {

    static final String ALPHA = "/home/dev/alpha";
    static final String BETA = "/home/dev/beta";
    static final Path LOG = Path.of("/home/dev/.claude/projects/alpha/session-1.jsonl");

    private final Map<String, Memory> byKey = new LinkedHashMap<>();
    private int line = 1;

    private TestCorpus() {
    }

    /** A passage of {@code of} (session {@code s1}, as the tests that build one use). */
    static Memory passage(Memory of, String text) {
        return Memory.builder(MemoryKind.PASSAGE, "claude-code", text).session("s1")
                .metadata(Memory.PASSAGE_OF, of.id()).build();
    }

    static TestCorpus create() {
        TestCorpus c = new TestCorpus();
        c.add("ci-branch", MemoryKind.EXCHANGE, "claude-code", ALPHA, "s1", "2025-01-10T09:00:00Z",
                "The CI workflow checked out the default branch instead of the pull request head, so the tests ran"
                        + " against old code. Fixed by passing ref: github.event.pull_request.head.sha to actions/checkout.");
        c.add("json-parser", MemoryKind.DECISION, "claude-code", ALPHA, "s1", "2025-01-10T10:00:00Z",
                "We moved away from the streaming JSON parser to Jackson's tree model, because partial records at the"
                        + " end of a growing log file broke the streaming state machine. Rejected: a custom tokenizer.");
        c.add("sqlite-wal", MemoryKind.EXCHANGE, "claude-code", ALPHA, "s1", "2025-01-11T08:30:00Z",
                "Enabled SQLite write-ahead logging (journal_mode=WAL) so that searches can read while the indexer"
                        + " is writing a batch.");
        c.add("python-indent", MemoryKind.CONVENTION, "claude-code", ALPHA, "s2", "2025-02-01T12:00:00Z",
                "Always indent Python code with four spaces, never with tabs.");
        c.add("docker-gcc", MemoryKind.EXCHANGE, "codex", BETA, "b1", "2025-02-03T15:00:00Z",
                "The Docker image build failed because the python:3.12-slim base image has no gcc; a builder stage now"
                        + " installs build-essential and the final image copies only the wheels.");
        c.add("flaky-clock", MemoryKind.EXCHANGE, "claude-code", BETA, "b2", "2025-02-10T11:00:00Z",
                "OrderServiceTest failed now and then with a timeout: it shared a static system clock with other tests."
                        + " Injecting a java.time.Clock made it deterministic.");
        c.add("cache-leak", MemoryKind.EXCHANGE, "claude-code", BETA, "b2", "2025-02-11T16:20:00Z",
                "A heap dump showed the LRU cache kept references to closed sessions, so memory grew until the"
                        + " service restarted. Bounded the cache with Caffeine maximumSize and weak values.");
        c.add("tls-port", MemoryKind.EXCHANGE, "codex", BETA, "b1", "2025-03-01T09:30:00Z",
                "Login failed in the browser with ERR_SSL_PROTOCOL_ERROR because nginx served TLS on port 80. Moved"
                        + " the TLS listener to port 443 and redirected plain HTTP.");
        c.add("websocket-loop", MemoryKind.EXCHANGE, "claude-code", ALPHA, "s3", "2025-03-05T14:00:00Z",
                "The settings page opened a new websocket on every render; a useEffect cleanup that closes the socket"
                        + " stopped the reconnect loop.");
        c.add("not-null-migration", MemoryKind.DECISION, "claude-code", BETA, "b3", "2025-03-12T10:00:00Z",
                "Migration 0042 added a NOT NULL column without a default and locked the orders table. Split it into"
                        + " three steps: add the column as nullable, backfill in batches, then set NOT NULL.");
        c.add("rate-limit", MemoryKind.EXCHANGE, "codex", ALPHA, "s4", "2025-03-20T13:00:00Z",
                "Requests to the GitHub API hit the secondary rate limit during the nightly sync; added exponential"
                        + " backoff with jitter and honoured the Retry-After header.");
        c.add("jvector-lookup", MemoryKind.LOOKUP, "claude-code", ALPHA, "s4", "2025-04-02T09:00:00Z",
                "Looked up the JVector documentation: a GraphSearcher is not thread-safe and must be used by one"
                        + " thread at a time, while the graph index itself can be shared between threads.");
        c.add("maven-summary", MemoryKind.SUMMARY, "claude-code", ALPHA, "s5", "2025-04-03T18:00:00Z",
                "Session summary: set up the Maven multi-module build, wrote the core API records and added the"
                        + " first unit tests.");
        c.add("oom-killed", MemoryKind.EXCHANGE, "codex", BETA, "b4", "2025-04-15T07:45:00Z",
                "Pods were OOMKilled by Kubernetes because the JVM sized its heap from the node, not the container"
                        + " memory limit. Set -XX:MaxRAMPercentage=75 in the deployment.");
        c.add("composite-index", MemoryKind.EXCHANGE, "claude-code", BETA, "b3", "2025-04-20T10:10:00Z",
                "The dashboard query took 800 ms; a composite index on (tenant_id, created_at) brought it down to 40 ms.");
        c.add("rebase-conflict", MemoryKind.EXCHANGE, "claude-code", ALPHA, "s5", "2025-05-02T16:00:00Z",
                "Resolved the rebase conflict in pom.xml by keeping both dependency additions and re-running the build.");
        c.add("slf4j-logging", MemoryKind.DECISION, "claude-code", ALPHA, "s6", "2025-05-10T11:00:00Z",
                "Replaced the System.out calls with slf4j loggers; the application configures logback to write JSON.");
        c.add("dst-bug", MemoryKind.EXCHANGE, "codex", BETA, "b5", "2025-05-18T08:00:00Z",
                "Scheduled reports ran one hour late after the daylight saving time change because the code stored"
                        + " LocalDateTime. Switched to Instant and explicit ZoneId conversions.");
        c.add("uv-venv", MemoryKind.CONVENTION, "claude-code", BETA, "b5", "2025-05-20T09:00:00Z",
                "Prefer uv to create Python virtual environments and install packages; plain pip was far too slow here.");
        c.add("windows-paths", MemoryKind.EXCHANGE, "claude-code", ALPHA, "s7", "2025-06-01T10:00:00Z",
                "The log path parser split on forward slashes and broke on Windows paths with backslashes; it uses"
                        + " Path.of and Path.getFileName now.");
        c.add("env-secrets", MemoryKind.CONVENTION, "claude-code", ALPHA, "s7", "2025-06-02T10:00:00Z",
                "Never commit .env files. The pre-commit hook scans staged files for AWS access keys and tokens.");
        c.add("graphql-n-plus-one", MemoryKind.EXCHANGE, "codex", BETA, "b6", "2025-06-10T15:00:00Z",
                "The orders GraphQL resolver issued one SQL query per customer (N+1). A DataLoader now batches the"
                        + " lookups by customer id.");
        c.add("sidebar-css", MemoryKind.EXCHANGE, "claude-code", BETA, "b6", "2025-06-12T17:00:00Z",
                "On phones the sidebar covered the content; a CSS grid layout with a media query at 768px fixed it.");
        c.add("charset", MemoryKind.EXCHANGE, "claude-code", ALPHA, "s8", "2025-06-20T12:00:00Z",
                "Reading files with the platform default charset garbled UTF-8 emoji on Windows; always pass"
                        + " StandardCharsets.UTF_8 explicitly.");
        // A note recorded through the API: no session, no provenance, no timestamps.
        c.byKey.put("deploy-note", Memory.builder(MemoryKind.NOTE, "me",
                "Deploy to staging with make deploy ENV=staging; production deploys need a manual approval in the"
                        + " release channel.").project(ALPHA).build());
        return c;
    }

    private void add(String key, MemoryKind kind, String agent, String project, String session, String start,
                     String text) {
        Instant started = Instant.parse(start);
        int lines = 3 + text.length() % 5;
        Provenance provenance = new Provenance(LOG, line, line + lines - 1, line * 1000L, (line + lines) * 1000L,
                List.of("rec-" + line, "rec-" + (line + 1)));
        line += lines;
        byKey.put(key, Memory.builder(kind, agent, text)
                .project(project)
                .session(session)
                .time(started, started.plusSeconds(90))
                .provenance(provenance)
                .metadata("gitBranch", project.equals(ALPHA) ? "main" : "develop")
                .build());
    }

    Memory get(String key) {
        Memory m = byKey.get(key);
        if (m == null) {
            throw new IllegalArgumentException("no memory " + key);
        }
        return m;
    }

    List<Memory> all() {
        return new ArrayList<>(byKey.values());
    }

    int size() {
        return byKey.size();
    }
}
