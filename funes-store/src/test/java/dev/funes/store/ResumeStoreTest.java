package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.SourceState;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The Indexer's resume point through the real store: kept in {@code sources.resume} across
 * processes (a closed and reopened store), added to a store created before the column existed,
 * and a resumed read of a real Claude Code log leaves exactly the memories a fresh store gets.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ResumeStoreTest {

    private Embedder embedder;

    @BeforeAll
    void loadModel() {
        embedder = new RememberingEmbedder(Embedders.bundled(BundledModel.DEFAULT));
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    private static Path fixture() {
        Path file = Path.of(System.getProperty("funes.shared.dir", "../../shared"))
                .resolve("fixtures/claude-code/episodic-memory-long.jsonl");
        assumeTrue(Files.isRegularFile(file), "shared fixtures not found at " + file.toAbsolutePath()
                + " (set -Dfunes.shared.dir); real-log test skipped");
        return file;
    }

    @Test
    void aGrownLogIsReadOnFromItsStoredResumePointAcrossReopening(@TempDir Path tmp) throws Exception {
        byte[] bytes = Files.readAllBytes(fixture());
        int cut = lineBoundary(bytes, bytes.length / 2);
        Path file = Files.write(Files.createDirectories(tmp.resolve("logs")).resolve("session.jsonl"),
                Arrays.copyOf(bytes, cut)).toRealPath();
        Path dir = tmp.resolve("store");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).build().index(List.of(file));
        }
        Files.write(file, Arrays.copyOfRange(bytes, cut, bytes.length), StandardOpenOption.APPEND);
        IndexReport report;
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            SourceState before = store.checkpoints().orElseThrow().source(file).orElseThrow();
            assertThat(before.resume()).contains("\"offset\"");
            report = Indexer.builder(store).build().index(List.of(file));
            assertThat(store.checkpoints().orElseThrow().source(file).orElseThrow().indexedBytes()).isEqualTo(bytes.length);
        }
        assertThat(report.filesResumed()).isEqualTo(1);
        assertThat(report.bytesRead()).isPositive().isLessThan(bytes.length - cut / 2);

        Path fresh = tmp.resolve("fresh");
        try (MemoryStore store = FunesStore.open(fresh, embedder)) {
            Indexer.builder(store).build().index(List.of(file));
        }
        assertThat(rows(dir)).isNotEmpty().containsExactlyInAnyOrderElementsOf(rows(fresh));
    }

    @Test
    void aStoreFromBeforeTheResumeColumnGetsItAndKeepsItsCheckpoints(@TempDir Path tmp) throws Exception {
        Path file = Files.copy(fixture(), Files.createDirectories(tmp.resolve("logs")).resolve("session.jsonl"))
                .toRealPath();
        Path dir = tmp.resolve("store");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Indexer.builder(store).build().index(List.of(file));
        }
        // The shape of a version 1 store.
        OldStores.downgradeToVersion1(dir);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            SourceState state = store.checkpoints().orElseThrow().source(file).orElseThrow();
            assertThat(state.resume()).isEmpty();
            // Migration 8 resets every checkpoint so that the next index adds the passages; the
            // rest of the checkpoint (size, time, head) is kept, and the read after it completes it.
            assertThat(state.indexedBytes()).isZero();
            assertThat(state.size()).isEqualTo(Files.size(file));
            IndexReport once = Indexer.builder(store).build().index(List.of(file));
            assertThat(once.filesIndexed()).isEqualTo(1);
            assertThat(store.checkpoints().orElseThrow().source(file).orElseThrow().indexedBytes()).isEqualTo(Files.size(file));
            IndexReport again = Indexer.builder(store).build().index(List.of(file));
            assertThat(again.filesUnchanged()).isEqualTo(1);
        }
    }

    /** Every memory row of a store as text: id, lines, bytes, metadata, text. */
    private static List<String> rows(Path dir) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT id, line_start, line_end, byte_start, byte_end, metadata, text FROM memories")) {
            while (rs.next()) {
                rows.add(rs.getString(1) + " " + rs.getLong(2) + "-" + rs.getLong(3) + " " + rs.getLong(4) + "-"
                        + rs.getLong(5) + " " + rs.getString(6) + " " + rs.getString(7));
            }
        }
        return rows;
    }


    private static int lineBoundary(byte[] bytes, int at) {
        for (int i = at; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i + 1;
            }
        }
        return bytes.length;
    }
}
