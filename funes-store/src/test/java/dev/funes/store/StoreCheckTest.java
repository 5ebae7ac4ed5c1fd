package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.StoreException;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.CheckReport.Finding;
import dev.funes.store.CheckReport.Status;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link FunesStore#check}: each kind of damage is found, derived data is repaired, source data never touched. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreCheckTest {

    private static final List<String> ALL_CHECKS = List.of("database", "schema", "integrity", "foreign-keys", "meta",
            "vectors", "model", "sessions", "sources", "fts", "ann");

    private final TestCorpus corpus = TestCorpus.create();
    private Embedder embedder;

    @BeforeAll
    void loadModel() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    private void createStore(Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(corpus.all());
        }
    }

    private CheckReport check(Path dir, boolean repair) {
        return FunesStore.check(dir, embedder, repair);
    }

    private static Finding finding(CheckReport report, String check) {
        return report.findings().stream().filter(f -> f.check().equals(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + check + " in " + report));
    }

    private static void sql(Path dir, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    private static List<String> rows(Path dir, String query) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= columns; i++) {
                    row.append(rs.getString(i)).append('|');
                }
                rows.add(row.toString());
            }
        }
        return rows;
    }

    private static List<String> memoryRows(Path dir) throws SQLException {
        return rows(dir, "SELECT * FROM memories ORDER BY seq");
    }

    @Test
    void aHealthyStorePassesEveryCheck(@TempDir Path dir) {
        createStore(dir);
        CheckReport report = check(dir, false);
        assertThat(report.findings()).extracting(Finding::check).containsExactlyElementsOf(ALL_CHECKS);
        assertThat(report.findings()).allSatisfy(f -> assertThat(f.status()).as(f.toString()).isEqualTo(Status.OK));
        assertThat(report.healthy()).isTrue();
        assertThat(report.summary()).isEqualTo("healthy: 11 checks");
        assertThat(finding(report, "ann").message()).contains(corpus.size() + " vectors");
        assertThat(finding(report, "model").message()).contains("match");
        assertThat(check(dir, true)).isEqualTo(report); // nothing to repair, nothing done
    }

    @Test
    void identifierTermsOutOfStepWithTheTextAreFoundAndRecomputed(@TempDir Path dir) throws SQLException {
        createStore(dir);
        Memory tls = corpus.get("tls-port");
        List<String> before = memoryRows(dir);
        // The column and its index agree (FTS5's own check passes) but no longer match the text.
        sql(dir, "UPDATE memories SET terms = 'stale' WHERE id = '" + tls.id() + "'");

        CheckReport report = check(dir, false);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("fts");
        assertThat(finding(report, "fts").message()).contains("1 of " + corpus.size() + " memories have identifier terms");

        CheckReport repaired = check(dir, true);
        assertThat(repaired.healthy()).as(repaired.toString()).isTrue();
        assertThat(finding(repaired, "fts").status()).isEqualTo(Status.REPAIRED);
        assertThat(rows(dir, "SELECT terms FROM memories WHERE id = '" + tls.id() + "'"))
                .containsExactly(Terms.of(tls.text()) + "|");
        assertThat(memoryRows(dir)).isEqualTo(before);
        assertThat(check(dir, false).findings()).allSatisfy(f -> assertThat(f.status()).isEqualTo(Status.OK));
    }

    @Test
    void aFullTextIndexOutOfStepIsFoundAndRebuilt(@TempDir Path dir) throws SQLException {
        createStore(dir);
        Memory tls = corpus.get("tls-port");
        List<String> before = memoryRows(dir);
        long seq = Long.parseLong(rows(dir, "SELECT seq FROM memories WHERE id = '" + tls.id() + "'").get(0).replace("|", ""));
        // The index loses one memory and gains a ghost no memory backs.
        sql(dir, "DELETE FROM memories_fts WHERE rowid = " + seq,
                "INSERT INTO memories_fts(rowid, text, terms) VALUES (999999, 'ghost words nobody wrote', '')");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")).get(0).parts().lexicalRank()).isZero();
        }

        CheckReport report = check(dir, false);
        assertThat(report.healthy()).isFalse();
        assertThat(report.problems()).extracting(Finding::check).containsExactly("fts");
        assertThat(report.summary()).isEqualTo("1 problem (fts)");
        assertThat(report.repairable()).isTrue();

        CheckReport repaired = check(dir, true);
        assertThat(repaired.healthy()).as(repaired.toString()).isTrue();
        assertThat(finding(repaired, "fts").status()).isEqualTo(Status.REPAIRED);
        assertThat(finding(repaired, "fts").message()).contains("rebuilt the full-text index from the " + corpus.size());
        // Token counts a running store kept from the broken index are dropped at its next search.
        assertThat(rows(dir, "SELECT n FROM fts_rewrites").get(0).replace("|", "")).isEqualTo("1");
        assertThat(memoryRows(dir)).isEqualTo(before);
        assertThat(check(dir, false).findings()).allSatisfy(f -> assertThat(f.status()).isEqualTo(Status.OK));
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")).get(0).parts().lexicalRank()).isEqualTo(1);
        }
    }

    @Test
    void damagedFullTextBlocksFailSearchUntilARepairRebuildsThem(@TempDir Path dir) throws SQLException {
        createStore(dir);
        List<String> before = memoryRows(dir);
        // FTS5's own shadow table loses its index blocks (rows 1 and 10 are its averages and
        // structure records): SQLite's integrity check reports FTS5 corruption, the tables are sound.
        sql(dir, "DELETE FROM memories_fts_data WHERE id > 10");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThatThrownBy(() -> store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("full-text index").hasMessageContaining("funes check --repair");
        }
        assertThat(FunesStore.quickCheck(dir)).isEmpty(); // its rows and structure record are all there

        CheckReport report = check(dir, false);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("fts");
        assertThat(finding(report, "integrity").message()).contains("passed for the tables")
                .contains("full-text index damaged");
        assertThat(finding(report, "fts").message()).contains("corrupt").contains("repair rebuilds it");
        assertThat(report.repairable()).isTrue();

        CheckReport repaired = check(dir, true);
        assertThat(repaired.healthy()).as(repaired.toString()).isTrue();
        assertThat(finding(repaired, "fts").status()).isEqualTo(Status.REPAIRED);
        assertThat(finding(repaired, "integrity").message()).isEqualTo("SQLite's integrity check passed");
        assertThat(memoryRows(dir)).isEqualTo(before);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")).get(0).memory().id())
                    .isEqualTo(corpus.get("tls-port").id());
        }
    }

    @Test
    void everyVectorIsReadSoZeroedAndNaNOnesAreFoundAndARepairEmbedsTheirTextsAgain(@TempDir Path dir)
            throws SQLException {
        createStore(dir);
        List<String> before = memoryRows(dir);
        List<String> ids = rows(dir, "SELECT id FROM vectors ORDER BY id");
        // Two vectors from the middle of the id range, where no sample of its ends would look.
        String zeroed = ids.get(ids.size() / 2).replace("|", "");
        String nan = ids.get(ids.size() / 2 + 1).replace("|", "");
        sql(dir, "UPDATE vectors SET embedding = zeroblob(" + embedder.dimension() * 4 + ") WHERE id = " + zeroed,
                "UPDATE vectors SET embedding = X'" + "0000C07F".repeat(embedder.dimension()) + "' WHERE id = " + nan);

        CheckReport report = check(dir, false);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("vectors");
        assertThat(finding(report, "vectors").message()).contains("of " + ids.size() + " vectors, 1 are all zeros, 1 hold"
                + " NaN or infinity (ids [" + zeroed + ", " + nan + "])").contains("repair embeds those texts again");
        assertThat(finding(report, "vectors").repairable()).isTrue();
        assertThat(finding(report, "model").status()).as("a broken vector is not a changed model").isEqualTo(Status.OK);

        CheckReport repaired = check(dir, true);
        assertThat(repaired.healthy()).as(repaired.toString()).isTrue();
        assertThat(finding(repaired, "vectors").status()).isEqualTo(Status.REPAIRED);
        assertThat(finding(repaired, "vectors").message()).contains("embedded 2 texts again").contains("rebuilt the index");
        assertThat(memoryRows(dir)).isEqualTo(before);
        for (String id : List.of(zeroed, nan)) {
            String text = rows(dir, "SELECT text FROM memories WHERE vector_id = " + id + " LIMIT 1").get(0);
            Memory memory = corpus.all().stream().filter(m -> text.equals(m.text() + "|")).findFirst().orElseThrow();
            try (MemoryStore store = FunesStore.open(dir, embedder)) {
                assertThat(store.search(SearchRequest.builder(memory.text()).retrieval(dev.funes.Retrieval.DENSE)
                        .limit(1).build()).get(0).memory().id()).as("found by meaning again").isEqualTo(memory.id());
            }
        }
    }

    @Test
    void theQuickSignsSeeZeroedVectorsAtTheEndsAndFullTextRowsMissing(@TempDir Path dir) throws SQLException {
        createStore(dir);
        assertThat(FunesStore.quickCheck(dir)).isEmpty();
        sql(dir, "UPDATE vectors SET embedding = zeroblob(" + embedder.dimension() * 4 + ")"
                + " WHERE id = (SELECT max(id) FROM vectors)");
        assertThat(FunesStore.quickCheck(dir)).singleElement().asString()
                .startsWith("1 of the " + Math.min(32, corpus.size()) + " vectors read are unusable");
        long seq = Long.parseLong(rows(dir, "SELECT min(seq) FROM memories").get(0).replace("|", ""));
        sql(dir, "DELETE FROM memories_fts WHERE rowid = " + seq);
        assertThat(FunesStore.quickCheck(dir)).hasSize(2).first().asString()
                .isEqualTo("the full-text index lists " + (corpus.size() - 1) + " memories of " + corpus.size()
                        + ": searches by words miss memories");
    }

    @Test
    void aSessionsTableOutOfStepIsRecomputed(@TempDir Path dir) throws SQLException {
        createStore(dir);
        List<String> sessions = rows(dir, "SELECT * FROM sessions ORDER BY agent, session");
        sql(dir, "UPDATE sessions SET memories = 42 WHERE session = 's1'",
                "DELETE FROM sessions WHERE session = 'b1'",
                "INSERT INTO sessions VALUES ('claude-code', 'nobody', NULL, NULL, NULL, 3)");

        CheckReport report = check(dir, false);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("sessions");
        assertThat(finding(report, "sessions").message()).startsWith("3 sessions disagree");
        assertThat(finding(report, "sessions").repairable()).isTrue();

        CheckReport repaired = check(dir, true);
        assertThat(repaired.healthy()).isTrue();
        assertThat(finding(repaired, "sessions").status()).isEqualTo(Status.REPAIRED);
        assertThat(rows(dir, "SELECT * FROM sessions ORDER BY agent, session")).isEqualTo(sessions);
    }

    @Test
    void aDamagedIndexFileIsReportedLeftAloneByACheckAndRebuiltByARepair(@TempDir Path dir) throws IOException {
        createStore(dir);
        Path index = onlySegment(dir);
        try (FileChannel ch = FileChannel.open(index, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), Files.size(index) / 2);
        }
        byte[] damaged = Files.readAllBytes(index);

        CheckReport report = check(dir, false);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("ann");
        assertThat(finding(report, "ann").message()).contains("checksum mismatch").contains("next open rebuilds it");
        assertThat(Files.readAllBytes(index)).isEqualTo(damaged);

        CheckReport repaired = check(dir, true);
        assertThat(repaired.healthy()).isTrue();
        assertThat(finding(repaired, "ann").status()).isEqualTo(Status.REPAIRED);
        assertThat(finding(repaired, "ann").message()).contains("rebuilt the index (index/) from the " + corpus.size()
                + " vectors");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse();
        }
    }

    @Test
    void anIndexMissingVectorsIsStaleButOneMerelyBehindOrHoldingDeletedOnesIsFine(@TempDir Path dir,
                                                                                  @TempDir Path elsewhere)
            throws IOException, SQLException {
        List<Memory> all = corpus.all();
        Path index = dir.resolve(StoreIndex.DIR);
        Path manifest = index.resolve(IndexManifest.FILE);
        Path saved = elsewhere.resolve("saved-manifest");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(all.subList(0, 10));
        }
        Files.copy(manifest, saved); // lists one segment of 10 vectors
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(all.subList(10, all.size()));
        }
        IndexManifest both = IndexManifest.read(manifest, null);
        assertThat(both.segments()).hasSize(2);
        Files.delete(manifest);
        CheckReport none = check(dir, false);
        assertThat(none.healthy()).isTrue();
        assertThat(finding(none, "ann").message()).startsWith("no index/manifest yet: the " + all.size() + " vectors");
        assertThat(check(dir, true)).isEqualTo(none); // nothing to repair: the next open builds it

        Files.copy(saved, manifest);
        CheckReport behind = check(dir, false);
        assertThat(behind.healthy()).isTrue();
        assertThat(finding(behind, "ann").message()).contains("holds 10 vectors")
                .contains((all.size() - 10) + " newer vectors are searched from memory");

        // Only the second segment listed: the first 10 vectors are in none, below its largest id.
        IndexManifest.write(manifest, new IndexManifest(both.identity(), both.nextSegment(),
                List.of(both.segments().get(1)), new long[0]));
        CheckReport stale = check(dir, false);
        assertThat(stale.problems()).extracting(Finding::check).containsExactly("ann");
        assertThat(finding(stale, "ann").message()).contains("stale").contains("10 missing from the segments");

        IndexManifest.write(manifest, both);
        sql(dir, "DELETE FROM memories WHERE id = '" + all.get(0).id() + "'",
                "DELETE FROM vectors WHERE id NOT IN (SELECT vector_id FROM memories)");
        CheckReport deleted = check(dir, false);
        assertThat(deleted.problems()).extracting(Finding::check).containsExactly("sessions");
        assertThat(finding(deleted, "ann").message()).contains("1 deleted since");
    }

    /** The one segment of a store closed after one batch. */
    private static Path onlySegment(Path dir) throws IOException {
        try (var files = Files.list(dir.resolve(StoreIndex.DIR))) {
            List<Path> segments = files.filter(f -> f.getFileName().toString().matches("seg-[0-9]+\\.ann")).toList();
            assertThat(segments).hasSize(1);
            return segments.get(0);
        }
    }

    @Test
    void aVectorDigestOutOfStepIsAProblemThatARepairRecomputesWithoutRebuildingTheIndex(@TempDir Path dir)
            throws SQLException, IOException {
        createStore(dir);
        Path segment = onlySegment(dir);
        byte[] segmentBytes = Files.readAllBytes(segment);
        // A program that dropped a trigger, then deleted an unused vector: the digest still counts it.
        sql(dir, "INSERT INTO vectors (content_hash, embedding) SELECT 'orphan', embedding FROM vectors LIMIT 1",
                "DROP TRIGGER vector_digest_delete", "DELETE FROM vectors WHERE content_hash = 'orphan'");
        CheckReport report = check(dir, false);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("ann");
        assertThat(finding(report, "ann").message()).contains("digest of the vector ids")
                .contains("1 of its triggers missing").contains("says " + (corpus.size() + 1) + " vectors")
                .contains("holds " + corpus.size());

        CheckReport repaired = check(dir, true);
        assertThat(finding(repaired, "ann").status()).isEqualTo(Status.REPAIRED);
        assertThat(finding(repaired, "ann").message()).contains("recomputed the digest");
        assertThat(rows(dir, "SELECT count FROM vector_digest")).containsExactly(corpus.size() + "|");
        assertThat(rows(dir, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'vector_digest_%'"))
                .containsExactly("3|");
        assertThat(onlySegment(dir)).isEqualTo(segment); // the index itself was fine: not rebuilt
        assertThat(Files.readAllBytes(segment)).isEqualTo(segmentBytes);
        assertThat(check(dir, false).findings()).allSatisfy(f -> assertThat(f.status()).isEqualTo(Status.OK));
    }

    @Test
    void unusedVectorsAreHarmlessAndARepairRemovesThem(@TempDir Path dir) throws SQLException {
        createStore(dir);
        sql(dir, "INSERT INTO vectors (content_hash, embedding) SELECT 'orphan', embedding FROM vectors LIMIT 1");
        CheckReport report = check(dir, false);
        assertThat(report.healthy()).isTrue();
        assertThat(finding(report, "vectors").status()).isEqualTo(Status.WARNING);
        assertThat(finding(report, "vectors").message()).startsWith("1 of " + (corpus.size() + 1) + " vectors");
        assertThat(finding(report, "ann").status()).isEqualTo(Status.OK); // the orphan is newer than the graph

        CheckReport repaired = check(dir, true);
        assertThat(finding(repaired, "vectors").status()).isEqualTo(Status.REPAIRED);
        assertThat(finding(repaired, "vectors").message()).contains("removed 1 vectors").contains("rebuilt the index");
        assertThat(rows(dir, "SELECT count(*) FROM vectors")).containsExactly(corpus.size() + "|");
        assertThat(check(dir, false).findings()).allSatisfy(f -> assertThat(f.status()).isEqualTo(Status.OK));
    }

    @Test
    void vectorsThatNoLongerMatchTheModelAreAProblem(@TempDir Path dir) throws SQLException {
        createStore(dir);
        // The first and last vectors swap embeddings: what a changed model would look like.
        sql(dir, "CREATE TEMP TABLE e AS SELECT id, embedding FROM vectors",
                "UPDATE vectors SET embedding = (SELECT embedding FROM e WHERE e.id = (SELECT max(id) FROM e))"
                        + " WHERE id = (SELECT min(id) FROM e)",
                "UPDATE vectors SET embedding = (SELECT embedding FROM e WHERE e.id = (SELECT min(id) FROM e))"
                        + " WHERE id = (SELECT max(id) FROM e)");
        CheckReport report = check(dir, true);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("model");
        assertThat(finding(report, "model").message()).contains("do not match").contains(embedder.modelId());
        assertThat(report.repairable()).as("a repair cannot bring back the model").isFalse();
    }

    @Test
    void missingVectorsAreReportedAndARepairRebuildsOnlyWhatIsDerived(@TempDir Path dir) throws SQLException {
        createStore(dir);
        sql(dir, "PRAGMA foreign_keys = OFF", "DELETE FROM vectors WHERE id = (SELECT min(id) FROM vectors)");
        List<String> before = memoryRows(dir);

        CheckReport report = check(dir, true);
        assertThat(report.problems()).extracting(Finding::check).containsExactly("foreign-keys");
        assertThat(finding(report, "foreign-keys").message()).contains("1 rows refer to missing rows")
                .contains("index the agent logs again");
        // The index still holds the vector: harmless, it is a tombstone at the next open and dropped at a merge.
        assertThat(finding(report, "ann").status()).isEqualTo(Status.OK);
        assertThat(finding(report, "ann").message()).contains("1 deleted since");
        assertThat(memoryRows(dir)).isEqualTo(before);
    }

    @Test
    void aFileThatIsNotADatabaseIsAProblemWithAdviceAndIsNeverTouched(@TempDir Path dir) throws IOException {
        Path db = dir.resolve(SqliteMemoryStore.DATABASE_FILE);
        Files.writeString(db, "hello, this is not a database\n".repeat(200));
        byte[] bytes = Files.readAllBytes(db);

        CheckReport report = check(dir, true);
        assertThat(report.findings()).extracting(Finding::check).containsExactly("database", "repair");
        assertThat(report.healthy()).isFalse();
        assertThat(finding(report, "database").message()).contains("not a SQLite database")
                .contains("backup").contains("index the agent logs again");
        assertThat(Files.readAllBytes(db)).isEqualTo(bytes);

        assertThatThrownBy(() -> FunesStore.open(dir, embedder))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining(dir.toString())
                .hasMessageContaining("backup")
                .hasMessageContaining("index the agent logs again");
        assertThat(Files.readAllBytes(db)).isEqualTo(bytes);
    }

    @Test
    void aDatabaseCutInHalfIsAProblemWithAdviceNeverASilentAnswer(@TempDir Path dir) throws IOException {
        createStore(dir);
        Path db = dir.resolve(SqliteMemoryStore.DATABASE_FILE);
        assertThat(dir.resolve(SqliteMemoryStore.DATABASE_FILE + "-wal")).doesNotExist(); // checkpointed at close
        try (FileChannel ch = FileChannel.open(db, StandardOpenOption.WRITE)) {
            ch.truncate(Files.size(db) / 2);
        }
        CheckReport report = check(dir, true);
        assertThat(report.healthy()).isFalse();
        assertThat(report.problems()).extracting(Finding::check).containsExactly("database", "repair");
        assertThat(finding(report, "database").message()).contains("malformed").contains("backup");
        assertThat(finding(report, "repair").message()).startsWith("nothing was rebuilt");
        assertThatThrownBy(() -> FunesStore.open(dir, embedder))
                .isInstanceOf(StoreException.class).hasMessageContaining("malformed").hasMessageContaining("backup");
    }

    @Test
    void aGarbledIndexPageFailsTheIntegrityCheckAndIsNotRepaired(@TempDir Path dir) throws IOException, SQLException {
        createStore(dir);
        List<String> pages = rows(dir, "SELECT pageno FROM dbstat WHERE name = 'memories_time'");
        long page = Long.parseLong(pages.get(0).replace("|", ""));
        Path db = dir.resolve(SqliteMemoryStore.DATABASE_FILE);
        try (FileChannel ch = FileChannel.open(db, StandardOpenOption.WRITE)) {
            // Zeros over the cells, within the page: the next page may belong to the full-text index
            // (migration 5 rebuilds it in pages freed next to this index), whose damage is another test.
            ch.write(ByteBuffer.wrap(new byte[4096 - 100]), (page - 1) * 4096 + 100);
        }
        byte[] damaged = Files.readAllBytes(db);
        CheckReport report = check(dir, true);
        assertThat(report.healthy()).isFalse();
        assertThat(report.problems()).extracting(Finding::check).contains("integrity", "repair");
        assertThat(finding(report, "integrity").message()).contains("memories_time").contains("backup").doesNotContain("\n");
        assertThat(report.findings()).extracting(Finding::status).doesNotContain(Status.REPAIRED);
        assertThat(report.repairable()).as("nothing is rebuilt from a database that fails the integrity check").isFalse();
        assertThat(Files.readAllBytes(db)).isEqualTo(damaged);
    }

    @Test
    void aStoreOfANewerFunesIsAProblemAndNotReadFurther(@TempDir Path dir) throws SQLException {
        createStore(dir);
        sql(dir, "PRAGMA user_version = " + (Schema.CURRENT_VERSION + 1));
        CheckReport report = check(dir, true);
        assertThat(report.findings()).extracting(Finding::check).containsExactly("database", "schema", "repair");
        assertThat(finding(report, "schema").message()).contains("newer Funes").contains("upgrade Funes");
    }

    @Test
    void anotherModelIsAProblemThatNamesTheRecordedOne(@TempDir Path dir) {
        createStore(dir);
        try (Embedder other = Embedders.bundled(BundledModel.fromId("bge-small-en-v15-q"))) {
            CheckReport report = FunesStore.check(dir, other, false);
            assertThat(report.problems()).extracting(Finding::check).containsExactly("meta");
            assertThat(finding(report, "meta").message()).contains("check it with " + embedder.modelId());
        }
        CheckReport withoutModel = FunesStore.check(dir, null, false);
        assertThat(withoutModel.healthy()).isTrue();
        assertThat(finding(withoutModel, "model").status()).isEqualTo(Status.WARNING);
    }

    @Test
    void aDirectoryWithoutAStoreIsAProblemAndStaysEmpty(@TempDir Path dir) throws IOException {
        CheckReport report = check(dir, true);
        assertThat(report.healthy()).isFalse();
        assertThat(finding(report, "database").message()).contains("no Funes store");
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }
}
