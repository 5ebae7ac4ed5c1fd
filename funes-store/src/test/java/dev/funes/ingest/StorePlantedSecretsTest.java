package dev.funes.ingest;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.DatasetExport;
import dev.funes.store.ExportOptions;
import dev.funes.store.FunesStore;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The planted-secrets corpus of funes-core (real Claude Code text, realistic secrets of every
 * type), read WITHOUT redaction and handed straight to {@code MemoryStore.addAll}, as a library
 * user would: no piece of any secret may reach the SQLite files (database, WAL, FTS index) nor
 * the exported dataset, and the store counts every one under its type.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StorePlantedSecretsTest {

    private static final long SEED = Long.getLong("funes.test.seed", 20251202L);
    private static final int PER_TYPE = 30;

    private Path tmp;
    private Embedder embedder;
    private PlantedCorpus corpus;
    private List<Memory> raw;
    private Map<String, Long> expected;

    @BeforeAll
    void plant(@TempDir Path dir) throws IOException {
        tmp = dir;
        Path fixtures = Logs.shared().resolve("fixtures").resolve("claude-code");
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        System.out.println("StorePlantedSecretsTest seed " + SEED + " (set -Dfunes.test.seed to change)");
        corpus = new PlantedCorpus(SEED, PlantedCorpus.fillerFrom(fixtures));
        List<Path> files = corpus.write(tmp.resolve("projects"), PER_TYPE);
        raw = new ArrayList<>();
        for (Path file : files) {
            assertThat(AgentLogs.claudeCode().parse(file, raw::add).problems()).isEmpty();
        }
        SecretIndex secrets = new SecretIndex(corpus.planted);
        long[] whole = new long[secrets.size()];
        for (Memory m : raw) {
            for (String field : PlantedSecretsTest.fields(m)) {
                secrets.count(field, whole);
            }
        }
        expected = new TreeMap<>();
        for (int i = 0; i < secrets.size(); i++) {
            if (whole[i] > 0) {
                expected.merge(secrets.get(i).type(), whole[i], Long::sum);
            }
        }
        assertThat(expected.keySet()).as("every type reached a memory").hasSize(PlantedCorpus.TYPES.length);
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    @Test
    void secretsAddedThroughTheStoreReachNeitherTheDatabaseNorTheWalNorFtsNorTheExport() throws Exception {
        Path storeDir = tmp.resolve("store");
        Path dataset = tmp.resolve("dataset");
        SecretIndex fragments = fragments(corpus.planted);
        try (MemoryStore store = FunesStore.open(storeDir, embedder)) {
            assertThat(store.addAll(raw).added()).isEqualTo(raw.size());
            assertThat(store.stats().redactions()).isEqualTo(expected);

            // While open, the WAL holds the batch: scan every file of the store.
            assertThat(Files.exists(storeDir.resolve("funes.db-wal"))).isTrue();
            StoreScans.assertNoFragment(fragments, StoreScans.storeFiles(storeDir));

            DatasetExport.export(store, dataset, ExportOptions.defaults().withVectors(true));
        }
        StoreScans.assertNoFragment(fragments, StoreScans.storeFiles(storeDir));
        StoreScans.assertNoFtsTerm(storeDir.resolve("funes.db"),
                corpus.planted.stream().map(PlantedCorpus.Planted::value).toList(),
                corpus.planted.stream().map(PlantedCorpus.Planted::type).toList());

        List<Path> exported;
        try (Stream<Path> s = Files.walk(dataset)) {
            exported = s.filter(Files::isRegularFile).sorted().toList();
        }
        assertThat(exported).anyMatch(p -> p.toString().endsWith(".jsonl.gz"));
        long memoryRecords = 0;
        for (Path file : exported) {
            String content;
            if (file.toString().endsWith(".gz")) {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                    content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                if (file.getFileName().toString().startsWith("memories-")) {
                    memoryRecords += content.lines().count();
                }
            } else {
                content = Files.readString(file);
            }
            StoreScans.assertNoFragment(fragments, Map.of(file, content));
        }
        assertThat(memoryRecords).isEqualTo(raw.size());
        System.out.println("planted secrets reaching memories, per type: " + expected
                + "; none in the database, WAL, FTS vocabulary or the " + exported.size() + " exported files");
    }

    private static SecretIndex fragments(List<PlantedCorpus.Planted> planted) {
        List<PlantedCorpus.Planted> fragments = new ArrayList<>();
        for (PlantedCorpus.Planted p : planted) {
            for (String v : p.value().split("\\s+")) {
                if (v.length() < StoreScans.WINDOW && v.length() >= SecretIndex.KEY) {
                    fragments.add(new PlantedCorpus.Planted(p.type(), v));
                }
                for (int i = 0; i + StoreScans.WINDOW <= v.length(); i++) {
                    fragments.add(new PlantedCorpus.Planted(p.type(), v.substring(i, i + StoreScans.WINDOW)));
                }
            }
        }
        return new SecretIndex(fragments);
    }

}
