package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Realistic secrets of every type planted in real Claude Code text, indexed by the real Indexer:
 * none may reach the store, and the redactions counted per type must be exactly the planted
 * secrets that reached a memory.
 */
class PlantedSecretsTest {

    /** Override with -Dfunes.test.seed=... to try other corpora. */
    private static final long SEED = Long.getLong("funes.test.seed", 20251114L);
    private static final int PER_TYPE = 130;
    private static final int MIN_REACHED = 100;
    /** A run of this many characters of a secret is a leak. */
    private static final int WINDOW = 12;

    @TempDir
    Path tmp;

    @Test
    void noPlantedSecretSurvivesAndEveryOneIsCountedUnderItsType() throws IOException {
        Path fixtures = Logs.shared().resolve("fixtures").resolve("claude-code");
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        System.out.println("PlantedSecretsTest seed " + SEED + " (set -Dfunes.test.seed to change)");
        List<String> filler = PlantedCorpus.fillerFrom(fixtures);
        assertThat(filler).hasSizeGreaterThan(200);
        PlantedCorpus corpus = new PlantedCorpus(SEED, filler);
        Path projects = tmp.resolve("projects");
        List<Path> files = corpus.write(projects, PER_TYPE);

        // What reached a memory, read without redaction: the oracle. Passages as the indexer
        // redacts them: each record's whole content (a piece) before it is cut.
        List<Memory> raw = new ArrayList<>();
        PassageSink withPieces = raw::add;
        for (Path file : files) {
            assertThat(AgentLogs.claudeCode().parse(file, withPieces).problems()).isEmpty();
        }
        SecretIndex secrets = new SecretIndex(corpus.planted);
        SecretIndex pieces = secrets.pieces(WINDOW);
        long[] whole = new long[secrets.size()];
        long[] pieceCounts = new long[pieces.size()];
        for (Memory m : raw) {
            for (String field : fields(m)) {
                secrets.count(field, whole);
                pieces.count(field, pieceCounts);
            }
        }
        Map<String, Long> expected = new TreeMap<>();
        Map<String, Integer> planted = new TreeMap<>();
        for (int i = 0; i < secrets.size(); i++) {
            PlantedCorpus.Planted p = secrets.get(i);
            planted.merge(p.type(), 1, Integer::sum);
            expected.merge(p.type(), whole[i], Long::sum);
            // The corpus keeps secrets away from the chunker's cuts: a piece of one would make
            // the counts below meaningless. Pieces looked for are ones no other secret holds.
            assertThat(new long[] {pieceCounts[2 * i], pieceCounts[2 * i + 1]})
                    .as("corpus problem: %s %s is cut somewhere", p.type(), p.value())
                    .containsOnly(whole[i]);
        }

        InMemoryStore store = new InMemoryStore();
        IndexReport report = Indexer.builder(store).build().index(List.of(projects));

        assertThat(report.problems()).isEmpty();
        assertThat(report.filesIndexed()).isEqualTo(files.size());
        // Derived memories (decisions, lookups) come on top of what the reader gave, and are checked for leaks too.
        assertThat(store.all().stream().filter(m -> !m.metadata().containsKey("derivedFrom"))
                .filter(m -> m.kind() != MemoryKind.PASSAGE).toList())
                .hasSameSizeAs(raw.stream().filter(m -> m.kind() != MemoryKind.PASSAGE).toList());
        assertThat(store.all()).as("the whole content is stored as passages")
                .anyMatch(m -> m.kind() == MemoryKind.PASSAGE);
        System.out.println("planted per type: " + planted);
        System.out.println("reached a memory: " + expected);
        System.out.println("redacted:         " + report.redactions());
        assertLeakFree(store.all(), corpus.planted);
        assertThat(report.redactions()).isEqualTo(expected);
        for (String type : PlantedCorpus.TYPES) {
            assertThat(expected.getOrDefault(type, 0L)).as("%s secrets that reached a memory", type)
                    .isGreaterThanOrEqualTo(MIN_REACHED);
        }
    }

    /** No stored text, project or metadata value holds a planted secret or any 12 characters of one. */
    static void assertLeakFree(List<Memory> stored, List<PlantedCorpus.Planted> planted) {
        List<PlantedCorpus.Planted> fragments = new ArrayList<>();
        for (PlantedCorpus.Planted p : planted) {
            for (String v : p.value().split("\\s+")) {
                if (v.length() < WINDOW && v.length() >= SecretIndex.KEY) {
                    fragments.add(new PlantedCorpus.Planted(p.type(), v));
                }
                for (int i = 0; i + WINDOW <= v.length(); i++) {
                    fragments.add(new PlantedCorpus.Planted(p.type(), v.substring(i, i + WINDOW)));
                }
            }
        }
        SecretIndex index = new SecretIndex(fragments);
        long[] found = new long[index.size()];
        for (Memory m : stored) {
            for (String field : fields(m)) {
                if (index.count(field, found) == 0) {
                    continue;
                }
                for (int i = 0; i < found.length; i++) {
                    if (found[i] > 0) {
                        throw new AssertionError("a piece of a planted " + index.get(i).type() + " secret ("
                                + index.get(i).value() + ") survived in " + m.provenance() + ":\n" + field);
                    }
                }
            }
        }
    }

    static List<String> fields(Memory m) {
        List<String> fields = new ArrayList<>();
        fields.add(m.text());
        if (m.project() != null) {
            fields.add(m.project());
        }
        fields.addAll(m.metadata().values());
        return fields;
    }
}
