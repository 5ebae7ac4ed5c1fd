package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.SourceState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The secret families of {@link FamilyCorpus}, written as Claude Code sessions in real fixture
 * text and indexed by the real Indexer: no 12 characters of any planted secret reach a stored
 * string of a memory (text, project, agent, session, metadata keys and values, provenance path
 * and record ids) nor a checkpoint's resume point, and every family reached the memories read
 * without redaction, so each is really tried.
 */
class FamilySecretsTest {

    private static final long SEED = Long.getLong("funes.test.seed", 20260122L);
    private static final int PER_FAMILY = 12;
    /** Secrets of each family that must reach an unredacted memory for the test to mean something. */
    private static final int MIN_REACHED = 6;

    @TempDir
    Path tmp;

    @Test
    void noPieceOfAnyFamilyReachesAMemoryOrACheckpoint() throws IOException {
        Path fixtures = Logs.shared().resolve("fixtures").resolve("claude-code");
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        System.out.println("FamilySecretsTest seed " + SEED + " (set -Dfunes.test.seed to change)");
        FamilyCorpus corpus = new FamilyCorpus(SEED, PlantedCorpus.fillerFrom(fixtures));
        Path projects = tmp.resolve("projects");
        List<Path> files = corpus.write(projects, PER_FAMILY);

        List<Memory> raw = new ArrayList<>();
        for (Path file : files) {
            assertThat(AgentLogs.claudeCode().parse(file, raw::add).problems()).isEmpty();
        }
        Map<String, Integer> reached = corpus.reached(raw);
        System.out.println("planted secrets that reached a memory, per family: " + reached);
        assertThat(reached).allSatisfy((family, n) -> assertThat(n).as(family).isGreaterThanOrEqualTo(MIN_REACHED));

        InMemoryStore store = new InMemoryStore();
        IndexReport report = Indexer.builder(store).build().index(List.of(projects));
        assertThat(report.problems()).isEmpty();
        assertThat(report.filesIndexed()).isEqualTo(files.size());
        System.out.println("redacted: " + report.redactions());
        assertNoLeak(corpus, store);

        // A grown log is read on from its resume point, whose context (the working directory) was stored redacted.
        Path grown = files.stream().filter(f -> f.getParent().getFileName().toString().contains("deploy-")).findFirst()
                .orElseThrow();
        List<String> lines = new ArrayList<>(Files.readAllLines(grown));
        lines.add(lines.get(0).replace("\"uuid\":\"", "\"uuid\":\"f").replace("\"parentUuid\":null", "\"parentUuid\":\"x\""));
        Files.write(grown, lines);
        IndexReport again = Indexer.builder(store).build().index(List.of(projects));
        assertThat(again.problems()).isEmpty();
        assertNoLeak(corpus, store);
        assertThat(store.calls).anySatisfy(c -> assertThat(c.source()).isNotNull().satisfies(s -> assertThat(s.resume()).isNotEmpty()));
    }

    private static void assertNoLeak(FamilyCorpus corpus, InMemoryStore store) {
        for (Memory m : store.all()) {
            for (String s : FamilyCorpus.strings(m)) {
                FamilyCorpus.Planted leak = corpus.leakIn(s);
                assertThat(leak).as("a piece of a planted secret survived in %s: %s", m.provenance(), s).isNull();
            }
        }
        for (InMemoryStore.Call call : store.calls) {
            SourceState source = call.source();
            if (source != null) {
                assertThat(corpus.leakIn(source.resume())).as("resume point of %s: %s", source.path(), source.resume()).isNull();
            }
        }
    }
}
