package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.ForwardingEmbedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * "Never embed the same content twice", through the Indexer and the real store with the real
 * model: every text the embedder is given is counted by a wrapper around it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EmbedOnceTest {

    private Embedder model;

    @BeforeAll
    void loadModel() {
        model = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        if (model != null) {
            model.close();
        }
    }

    private static Path fixture(String agent, String name) {
        Path file = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures").resolve(agent)
                .resolve(name);
        assumeTrue(Files.isRegularFile(file), "shared fixtures not found at " + file.toAbsolutePath()
                + " (set -Dfunes.shared.dir); real-log test skipped");
        return file;
    }

    @Test
    void textsSharedByTwoLogsAreEmbeddedOnceThoughTheirBatchesArePipelined(@TempDir Path tmp) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path history = fixture("aider", "coding-aider-history-example.md");
        Files.copy(history, Files.createDirectories(logs.resolve("a")).resolve(history.getFileName()));
        Files.copy(history, Files.createDirectories(logs.resolve("b")).resolve(history.getFileName()));
        CountingEmbedder counting = new CountingEmbedder(model);
        Path dir = tmp.resolve("store");

        IndexReport report;
        try (MemoryStore store = FunesStore.open(dir, counting)) {
            // Small batches: while one is embedded and stored, the next ones are read and queued.
            report = Indexer.builder(store).passages(false).batchSize(1).build().index(List.of(logs));
        }

        assertThat(report.filesIndexed()).isEqualTo(2);
        assertThat(counting.calls).isGreaterThan(1);
        assertThat(counting.texts).doesNotHaveDuplicates();
        // Each log gave the same texts under other ids (other paths): one vector per text.
        assertThat(count(dir, "SELECT count(*) FROM memories")).isEqualTo(2 * count(dir, "SELECT count(*) FROM vectors"));
        assertThat(counting.texts).hasSize(count(dir, "SELECT count(*) FROM vectors"));
        assertThat(report.textsEmbedded()).isEqualTo(counting.texts.size());
    }

    @Test
    void aResumedReadEmbedsOnlyTextsThatHadNoVector(@TempDir Path tmp) throws Exception {
        byte[] bytes = Files.readAllBytes(fixture("claude-code", "episodic-memory-long.jsonl"));
        int cut = lineBoundary(bytes, bytes.length / 2);
        Path file = Files.write(Files.createDirectories(tmp.resolve("logs")).resolve("session.jsonl"),
                Arrays.copyOf(bytes, cut)).toRealPath();
        Path dir = tmp.resolve("store");
        try (MemoryStore store = FunesStore.open(dir, model)) {
            Indexer.builder(store).passages(false).build().index(List.of(file));
        }
        Set<String> before = hashes(dir);
        Files.write(file, Arrays.copyOfRange(bytes, cut, bytes.length), StandardOpenOption.APPEND);
        CountingEmbedder counting = new CountingEmbedder(model);

        IndexReport report;
        try (MemoryStore store = FunesStore.open(dir, counting)) {
            report = Indexer.builder(store).passages(false).build().index(List.of(file));
        }

        assertThat(report.filesResumed()).isEqualTo(1);
        assertThat(counting.texts).isNotEmpty().doesNotHaveDuplicates();
        assertThat(counting.texts.stream().map(EmbedOnceTest::sha256)).doesNotContainAnyElementsOf(before);
    }

    private static Set<String> hashes(Path dir) throws SQLException {
        Set<String> hashes = new HashSet<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT content_hash FROM vectors")) {
            while (rs.next()) {
                hashes.add(rs.getString(1));
            }
        }
        return hashes;
    }

    private static int count(Path dir, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int lineBoundary(byte[] bytes, int at) {
        for (int i = at; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i + 1;
            }
        }
        return bytes.length;
    }

    /** The real model, counting every text it is given. */
    private static final class CountingEmbedder extends ForwardingEmbedder {
        final List<String> texts = new ArrayList<>();
        int calls;

        CountingEmbedder(Embedder delegate) {
            super(delegate, false); // the model belongs to the test class
        }

        @Override
        public synchronized List<float[]> embedDocuments(List<String> batch) {
            calls++;
            texts.addAll(batch);
            return super.embedDocuments(batch);
        }
    }
}
