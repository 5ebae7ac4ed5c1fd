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
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
    /** A run of this many characters of a secret is a leak (as in PlantedSecretsTest). */
    private static final int WINDOW = 12;

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
            assertNoFragment(fragments, storeFiles(storeDir));

            DatasetExport.export(store, dataset, ExportOptions.defaults().withVectors(true));
        }
        assertNoFragment(fragments, storeFiles(storeDir));
        assertNoFtsTerm(storeDir.resolve("funes.db"));

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
            assertNoFragment(fragments, Map.of(file, content));
        }
        assertThat(memoryRecords).isEqualTo(raw.size());
        System.out.println("planted secrets reaching memories, per type: " + expected
                + "; none in the database, WAL, FTS vocabulary or the " + exported.size() + " exported files");
    }

    /** Every store file (database, WAL, shared memory, ANN index) read as Latin-1: secrets are ASCII. */
    private static Map<Path, String> storeFiles(Path dir) throws IOException {
        Map<Path, String> files = new TreeMap<>();
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                files.put(p, new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
            }
        }
        assertThat(files.keySet()).anyMatch(p -> p.getFileName().toString().equals("funes.db"));
        return files;
    }

    /** FTS5 keeps its terms lower-cased and stemmed, out of reach of a byte scan: ask its vocabulary. */
    private void assertNoFtsTerm(Path db) throws Exception {
        List<String> lowered = corpus.planted.stream().map(p -> p.value().toLowerCase(Locale.ROOT)).toList();
        int terms = 0;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
             Statement s = c.createStatement()) {
            s.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, memories_fts, 'row')");
            try (ResultSet rs = s.executeQuery("SELECT term FROM temp.vocab")) {
                while (rs.next()) {
                    String term = rs.getString(1);
                    terms++;
                    if (term.length() < WINDOW) {
                        continue;
                    }
                    for (int i = 0; i < lowered.size(); i++) {
                        assertThat(lowered.get(i)).as("FTS term %s is a piece of a planted %s", term,
                                corpus.planted.get(i).type()).doesNotContain(term);
                    }
                }
            }
        }
        assertThat(terms).isGreaterThan(100);
    }

    private static SecretIndex fragments(List<PlantedCorpus.Planted> planted) {
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
        return new SecretIndex(fragments);
    }

    private static void assertNoFragment(SecretIndex fragments, Map<Path, String> contents) {
        for (Map.Entry<Path, String> e : contents.entrySet()) {
            long[] found = new long[fragments.size()];
            if (fragments.count(e.getValue(), found) == 0) {
                continue;
            }
            for (int i = 0; i < found.length; i++) {
                if (found[i] > 0) {
                    throw new AssertionError("a piece of a planted " + fragments.get(i).type() + " secret ("
                            + fragments.get(i).value() + ") survived in " + e.getKey());
                }
            }
        }
    }
}
