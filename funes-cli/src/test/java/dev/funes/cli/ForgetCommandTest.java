package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes forget} end to end on stores indexed from real agent logs ({@code ../shared/fixtures})
 * with the real model: what goes, what stays, searches, {@code check}, and the tombstones an export
 * carries into another store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForgetCommandTest {

    private static final Path FIXTURES = CliTest.SHARED.resolve("fixtures");
    private static final List<Path> LOGS = List.of(
            FIXTURES.resolve("claude-code/episodic-memory-tiny.jsonl"),
            FIXTURES.resolve("claude-code/episodic-memory-short.jsonl"),
            FIXTURES.resolve("claude-code/episodic-memory-medium.jsonl"),
            FIXTURES.resolve("codex/codemie-exec-repo-summary-v0.77.jsonl"),
            FIXTURES.resolve("codex/localpush-rollout-t1319.jsonl"));
    /** The session of episodic-memory-tiny.jsonl: the worktree and CI debugging on 2025-09-19. */
    private static final String TINY_SESSION = "67a8478e-78dc-44ab-82ea-f65c8ead85f6";

    @TempDir
    Path tmp;

    private Embedder embedder;
    /** The logs indexed once; each test works on a copy. */
    private Path pristine;

    @BeforeAll
    void indexTheFixtures(@TempDir Path dir) {
        for (Path log : LOGS) {
            assumeTrue(Files.isRegularFile(log), "skipped: " + log + " is absent (../shared/fixtures)");
        }
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        pristine = dir.resolve("store");
        index(pristine);
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    private static void index(Path store) {
        List<String> args = new ArrayList<>(List.of("index", "--store", store.toString()));
        for (Path log : LOGS) {
            args.add("--index-path");
            args.add(log.toString());
        }
        CliTest.Result indexed = CliTest.funes(args.toArray(String[]::new));
        assertThat(indexed.status()).as(indexed.err()).isZero();
    }

    private static CliTest.Result ok(String... args) {
        CliTest.Result r = CliTest.funes(args);
        assertThat(r.status()).as("funes %s\n%s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    /** A copy of the indexed store (it is closed: every file of it is at rest). */
    private Path copy(String name) throws IOException {
        Path target = tmp.resolve(name);
        try (Stream<Path> files = Files.walk(pristine)) {
            for (Path f : files.toList()) {
                Path to = target.resolve(pristine.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(f, to);
                }
            }
        }
        return target;
    }

    /** Every memory of the store, passages included. */
    private List<Memory> memories(Path store) {
        try (MemoryStore s = FunesStore.open(store, embedder)) {
            return FunesStore.vectors(s).scan(null, null);
        }
    }

    private static Set<String> ids(List<Memory> memories) {
        return memories.stream().map(Memory::id).collect(Collectors.toCollection(HashSet::new));
    }

    /** The memories for which {@code selected} holds, with the passages of those. */
    private static Set<String> withPassages(List<Memory> all, java.util.function.Predicate<Memory> selected) {
        Set<String> ids = new HashSet<>();
        for (Memory m : all) {
            if (selected.test(m)) {
                ids.add(m.id());
            }
        }
        for (Memory m : all) {
            if (m.kind() == MemoryKind.PASSAGE && ids.contains(m.metadata().get(Memory.PASSAGE_OF))) {
                ids.add(m.id());
            }
        }
        return ids;
    }

    /** The ids of the hits of {@code search --json} with these options and query. */
    private static List<String> searchIds(Path store, String... args) throws IOException {
        List<String> all = new ArrayList<>(List.of("search", "--store", store.toString(), "--json", "--limit", "50"));
        all.addAll(List.of(args));
        CliTest.Result r = ok(all.toArray(String[]::new));
        List<String> ids = new ArrayList<>();
        for (JsonNode hit : r.json()) {
            ids.add(hit.get("session").isNull() ? "" : hit.get("session").asText());
        }
        return ids;
    }

    /** The tombstone records ({@code {"id", "deletedAt"}}) over every shard of a dataset folder. */
    private static Map<String, String> tombstones(Path dataset) throws IOException {
        Map<String, String> found = new TreeMap<>();
        List<Path> shards;
        try (Stream<Path> s = Files.list(dataset.resolve("data"))) {
            shards = s.toList();
        }
        for (Path shard : shards) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(shard))) {
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList()) {
                    JsonNode record = HitJson.MAPPER.readTree(line);
                    if (record.has("deletedAt")) {
                        found.put(record.get("id").asText(), record.get("deletedAt").asText());
                    }
                }
            }
        }
        return found;
    }

    @Test
    void aForgottenSessionIsFoundByNoSearchChecksCleanAndItsTombstonesTravelThroughExportAndImport()
            throws IOException {
        Path a = copy("a");
        Path b = tmp.resolve("b");
        index(b); // another store (its own origin) that holds the session too
        List<Memory> before = memories(a);
        Set<String> session = withPassages(before, m -> TINY_SESSION.equals(m.session()));
        assertThat(session).as("the tiny log's session is stored").hasSizeGreaterThan(1);
        // What the session is about (the agent being tentative), in its words: each search finds it first.
        String query = "tentative proactiveness instructions";
        for (String retrieval : List.of("lexical", "hybrid", "dense")) {
            assertThat(searchIds(a, "--retrieval", retrieval, query)).as(retrieval).contains(TINY_SESSION);
        }
        Path dataset = tmp.resolve("dataset");
        ok("export", "--hf-dataset", dataset.toString(), "--store", a.toString());

        CliTest.Result forgot = ok("forget", "--store", a.toString(), "--session", TINY_SESSION, "--yes");
        long sessionMemories = before.stream()
                .filter(m -> session.contains(m.id()) && m.kind() != MemoryKind.PASSAGE).count();
        assertThat(forgot.out()).startsWith("forgot " + sessionMemories + " memories and "
                + (session.size() - sessionMemories) + " passages; " + session.size() + " tombstones");

        List<Memory> after = memories(a);
        assertThat(ids(after)).doesNotContainAnyElementsOf(session).hasSize(before.size() - session.size());
        for (String retrieval : List.of("lexical", "hybrid", "dense")) {
            assertThat(searchIds(a, "--retrieval", retrieval, query)).as(retrieval).isNotEmpty()
                    .doesNotContain(TINY_SESSION);
            assertThat(searchIds(a, "--retrieval", retrieval, "--session", TINY_SESSION, query)).as(retrieval).isEmpty();
        }
        CliTest.Result check = CliTest.funes("check", "--store", a.toString());
        assertThat(check.status()).as(check.out() + check.err()).isZero();

        CliTest.Result exported = ok("export", "--hf-dataset", dataset.toString(), "--store", a.toString());
        assertThat(exported.out()).contains("0 memories and " + session.size() + " deletions exported");
        assertThat(tombstones(dataset).keySet()).isEqualTo(new java.util.TreeSet<>(session));

        assertThat(ids(memories(b))).containsAll(session);
        CliTest.Result imported = ok("import", dataset.toString(), "--store", b.toString());
        assertThat(imported.out()).contains(session.size() + " deleted");
        assertThat(ids(memories(b))).doesNotContainAnyElementsOf(session).hasSize(after.size());
        assertThat(searchIds(b, "--retrieval", "lexical", query)).isNotEmpty().doesNotContain(TINY_SESSION);
        CliTest.Result checkB = CliTest.funes("check", "--store", b.toString());
        assertThat(checkB.status()).as(checkB.out() + checkB.err()).isZero();
    }

    @Test
    void aProjectGoesWholeAndTheOthersStay() throws IOException {
        Path a = copy("a");
        List<Memory> before = memories(a);
        String project = before.stream().filter(m -> "codex".equals(m.agent()) && m.project() != null)
                .map(Memory::project).findFirst().orElseThrow();
        Set<String> gone = withPassages(before, m -> project.equals(m.project()));
        ok("forget", "--store", a.toString(), "-p", project, "-y");
        List<Memory> after = memories(a);
        assertThat(ids(after)).doesNotContainAnyElementsOf(gone).hasSize(before.size() - gone.size());
        assertThat(after).extracting(Memory::project).doesNotContain(project);
    }

    @Test
    void aFileOrAFolderPrefixForgetsWhatWasReadFromThere() throws IOException {
        Path a = copy("a");
        List<Memory> before = memories(a);
        Path codex = FIXTURES.resolve("codex").toRealPath();
        Set<String> fromCodex = withPassages(before,
                m -> m.provenance() != null && m.provenance().source().startsWith(codex));
        assertThat(fromCodex).isNotEmpty();
        ok("forget", "--store", a.toString(), "--file", FIXTURES.resolve("codex").toString(), "--yes");
        List<Memory> after = memories(a);
        assertThat(ids(after)).doesNotContainAnyElementsOf(fromCodex).hasSize(before.size() - fromCodex.size());
        assertThat(after).allSatisfy(m -> assertThat(m.agent()).isNotEqualTo("codex"));

        // One file; a sibling whose name starts the same ("episodic-memory-short" vs "-s") is another file.
        Path tiny = LOGS.get(0).toRealPath();
        Set<String> fromTiny = withPassages(after,
                m -> m.provenance() != null && m.provenance().source().equals(tiny));
        assertThat(fromTiny).isNotEmpty();
        ok("forget", "--store", a.toString(), "-f", tiny.toString(), "--yes");
        assertThat(ids(memories(a))).doesNotContainAnyElementsOf(fromTiny).hasSize(after.size() - fromTiny.size());
    }

    @Test
    void beforeADateForgetsTheOlderMemoriesOnly() throws IOException {
        Path a = copy("a");
        List<Memory> before = memories(a);
        Instant cut = Instant.parse("2025-10-01T00:00:00Z");
        Set<String> older = withPassages(before, m -> {
            Instant t = m.endedAt() != null ? m.endedAt() : m.startedAt();
            return t != null && t.isBefore(cut);
        });
        assertThat(older).isNotEmpty().hasSizeLessThan(before.size());
        ok("forget", "--store", a.toString(), "--before", "2025-10-01", "--yes");
        List<Memory> after = memories(a);
        assertThat(ids(after)).doesNotContainAnyElementsOf(older).hasSize(before.size() - older.size());
    }

    @Test
    void anIdForgetsThatMemoryWithItsPassagesAndNothingElse() throws IOException {
        Path a = copy("a");
        List<Memory> before = memories(a);
        Set<String> parents = new HashSet<>();
        before.stream().filter(m -> m.kind() == MemoryKind.PASSAGE).forEach(m -> parents.add(m.metadata().get(Memory.PASSAGE_OF)));
        assertThat(parents).as("some memory of the fixtures has passages").isNotEmpty();
        String id = parents.iterator().next();
        Set<String> gone = withPassages(before, m -> m.id().equals(id));
        assertThat(gone).hasSizeGreaterThan(1);
        CliTest.Result forgot = ok("forget", "--store", a.toString(), "--id", id, "--yes");
        assertThat(forgot.out()).startsWith("forgot 1 memories and " + (gone.size() - 1) + " passages");
        assertThat(ids(memories(a))).doesNotContainAnyElementsOf(gone).hasSize(before.size() - gone.size());
    }

    @Test
    void withoutATerminalOrYesItRefusesNamingTheCountAndForgetsNothing() throws IOException {
        Path a = copy("a");
        int count = memories(a).size();
        CliTest.Result refused = CliTest.funes("forget", "--store", a.toString(), "--session", TINY_SESSION);
        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err()).startsWith("funes: would forget ").contains("--session " + TINY_SESSION)
                .contains("pass --yes").hasLineCount(1);
        assertThat(memories(a)).hasSize(count);
    }

    @Test
    void aBadDateAnUnknownIdOrNoCriterionIsAClearErrorAndForgetsNothing() throws IOException {
        Path a = copy("a");
        int count = memories(a).size();
        CliTest.Result badDate = CliTest.funes("forget", "--store", a.toString(), "--before", "last tuesday", "--yes");
        assertThat(badDate.status()).isEqualTo(2);
        assertThat(badDate.err()).contains("--before").contains("'last tuesday' is neither an ISO date");

        CliTest.Result unknown = CliTest.funes("forget", "--store", a.toString(), "--id", "0123456789abcdef0123456789abcdef", "--yes");
        assertThat(unknown.status()).isEqualTo(1);
        assertThat(unknown.err()).isEqualTo("funes: no memory with id 0123456789abcdef0123456789abcdef in " + a.toAbsolutePath()
                + System.lineSeparator());

        CliTest.Result nothing = CliTest.funes("forget", "--store", a.toString(), "--yes");
        assertThat(nothing.status()).isEqualTo(2);
        assertThat(nothing.err()).contains("say what to forget");

        CliTest.Result noMatch = ok("forget", "--store", a.toString(), "--session", "no-such-session", "--yes");
        assertThat(noMatch.out()).startsWith("nothing to forget");
        assertThat(memories(a)).hasSize(count);
    }

    @Test
    void onATerminalItAsksAndOnlyYesForgets() throws Exception {
        Path script = Path.of("/usr/bin/script");
        assumeTrue(Files.isExecutable(script), "skipped: no script(1) to give the process a terminal");
        Path a = copy("a");
        int count = memories(a).size();
        Set<String> session = withPassages(memories(a), m -> TINY_SESSION.equals(m.session()));

        Terminal no = onTerminal(a, "n");
        assertThat(no.output()).contains("forget ").contains("? [y/N]").contains("nothing forgotten");
        assertThat(no.status()).isEqualTo(1);
        assertThat(memories(a)).hasSize(count);

        Terminal yes = onTerminal(a, "y");
        assertThat(yes.output()).contains("? [y/N]").contains("forgot ");
        assertThat(yes.status()).as(yes.output()).isZero();
        assertThat(ids(memories(a))).doesNotContainAnyElementsOf(session).hasSize(count - session.size());
    }

    private record Terminal(int status, String output) {
    }

    /** {@code funes forget --session} in a separate JVM whose stdin and stdout are a terminal, answering {@code answer}. */
    private static Terminal onTerminal(Path store, String answer) throws Exception {
        List<String> command = FunesProcess.command(Main.class, "512m",
                "forget", "--store", store.toString(), "--session", TINY_SESSION);
        String line = command.stream().map(arg -> "'" + arg.replace("'", "'\\''") + "'").collect(Collectors.joining(" "));
        Process p = new ProcessBuilder("/usr/bin/script", "-qec", line, "/dev/null").redirectErrorStream(true).start();
        StringBuilder seen = new StringBuilder();
        InputStream in = p.getInputStream();
        byte[] buffer = new byte[4096];
        // Answer once the question is on the terminal, then read to the end.
        boolean answered = false;
        int n;
        while ((n = in.read(buffer)) >= 0) {
            seen.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
            if (!answered && seen.indexOf("[y/N]") >= 0) {
                OutputStream stdin = p.getOutputStream();
                stdin.write((answer + "\n").getBytes(StandardCharsets.UTF_8));
                stdin.flush();
                answered = true;
            }
        }
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
        return new Terminal(p.exitValue(), seen.toString());
    }
}
