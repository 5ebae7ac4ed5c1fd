package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Secrets in messages, commands and outputs long enough to be shortened: wherever a cut falls,
 * no piece of a secret may reach the store.
 */
class PlantedTruncationTest {

    private static final long SEED = Long.getLong("funes.test.seed", 20251114L);

    @TempDir
    Path tmp;

    @Test
    void noPieceOfASecretSurvivesACut() throws IOException {
        Path fixtures = Logs.shared().resolve("fixtures").resolve("claude-code");
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        System.out.println("PlantedTruncationTest seed " + SEED + " (set -Dfunes.test.seed to change)");
        PlantedCorpus corpus = new PlantedCorpus(SEED, PlantedCorpus.fillerFrom(fixtures));
        Path projects = tmp.resolve("projects");
        List<Path> files = corpus.writeLong(projects, 60);

        List<Memory> raw = new ArrayList<>();
        for (Path file : files) {
            AgentLogs.claudeCode().parse(file, raw::add);
        }
        long cut = raw.stream().filter(m -> m.text().contains("chars omitted]") || m.text().contains("\u2026")).count();
        // Secrets a cut went through: a piece of them is in a memory more often than all of them.
        SecretIndex secrets = new SecretIndex(corpus.planted);
        SecretIndex pieces = secrets.pieces(12);
        long[] whole = new long[secrets.size()];
        long[] pieceCounts = new long[pieces.size()];
        for (Memory m : raw) {
            for (String field : PlantedSecretsTest.fields(m)) {
                secrets.count(field, whole);
                pieces.count(field, pieceCounts);
            }
        }
        int split = 0;
        for (int i = 0; i < secrets.size(); i++) {
            if (Math.max(pieceCounts[2 * i], pieceCounts[2 * i + 1]) > whole[i]) {
                split++;
            }
        }
        InMemoryStore store = new InMemoryStore();
        IndexReport report = Indexer.builder(store).build().index(List.of(projects));

        System.out.println(corpus.planted.size() + " secrets planted in " + raw.size() + " memories, " + cut
                + " of them shortened; " + split + " secrets cut through; redacted " + report.redactions());
        assertThat(report.problems()).isEmpty();
        assertThat(cut).as("memories with a cut").isGreaterThan(raw.size() / 2);
        assertThat(split).as("secrets a cut went through").isPositive();
        PlantedSecretsTest.assertLeakFree(store.all(), corpus.planted);
    }
}
