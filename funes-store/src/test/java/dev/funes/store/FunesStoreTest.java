package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SessionInfo;
import dev.funes.SourceState;
import dev.funes.StoreException;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What is particular to {@link FunesStore}: its files, their recovery, versions, models, SQLite. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FunesStoreTest {

    private static final List<String> QUERIES = List.of(
            "why did the build test the wrong branch in continuous integration",
            "ERR_SSL_PROTOCOL_ERROR",
            "container killed for using too much memory",
            "python formatting rules");

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

    private MemoryStore open(Path dir) {
        return FunesStore.open(dir, embedder);
    }

    /** Fills a new store with the corpus, records the answers to {@link #QUERIES}, closes it. */
    private List<List<String>> createStore(Path dir) {
        try (MemoryStore store = open(dir)) {
            store.addAll(corpus.all());
            return answers(store);
        }
    }

    private static List<List<String>> answers(MemoryStore store) {
        List<List<String>> answers = new ArrayList<>();
        for (String q : QUERIES) {
            answers.add(store.search(SearchRequest.builder(q).limit(5).build()).stream()
                    .map(h -> h.memory().id() + " d" + h.parts().denseRank() + " l" + h.parts().lexicalRank()).toList());
        }
        return answers;
    }

    /** The index manifest. */
    private static Path index(Path dir) {
        return dir.resolve(StoreIndex.DIR).resolve(IndexManifest.FILE);
    }

    /** The index's files: the manifest and the segments. */
    private static List<Path> indexFiles(Path dir) throws IOException {
        try (var files = Files.list(dir.resolve(StoreIndex.DIR))) {
            return files.filter(f -> f.getFileName().toString().matches("seg-[0-9]+\\.ann|manifest")).sorted().toList();
        }
    }

    /** The one segment a store closed after one batch has. */
    private static Path segment(Path dir) throws IOException {
        List<Path> segments = indexFiles(dir).stream().filter(f -> f.getFileName().toString().startsWith("seg-")).toList();
        assertThat(segments).hasSize(1);
        return segments.get(0);
    }

    /** Replaces the index files of {@code to} by copies of those in {@code from}. */
    private static void copyIndex(Path from, Path to) throws IOException {
        Files.createDirectories(to.resolve(StoreIndex.DIR));
        if (Files.isDirectory(to.resolve(StoreIndex.DIR))) {
            for (Path f : indexFiles(to)) {
                Files.delete(f);
            }
        }
        for (Path f : indexFiles(from)) {
            Files.copy(f, to.resolve(StoreIndex.DIR).resolve(f.getFileName()));
        }
    }

    // ------------------------------------------------------------ files and reopening

    @Test
    void recentSessionsAreLatestFirstWithTheirSpanProjectAndCountAndFollowDeletes(@TempDir Path dir) {
        Instant t = Instant.parse("2025-09-19T17:00:00Z");
        Memory oldA = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "set up the build").session("old")
                .project("/p/one").time(t, t.plusSeconds(60)).build();
        Memory oldB = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "fixed the flaky test").session("old")
                .project("/p/one").time(t.plusSeconds(120), t.plusSeconds(180)).build();
        Memory newer = Memory.builder(MemoryKind.DECISION, "codex", "use SQLite, not Postgres").session("new")
                .project("/p/two").time(t.plusSeconds(3600), t.plusSeconds(3601)).build();
        Memory timeless = Memory.builder(MemoryKind.EXCHANGE, "aider", "rename the module").session("undated").build();
        Memory sessionless = Memory.builder(MemoryKind.NOTE, "mcp", "tabs, not spaces").build();
        try (MemoryStore store = open(dir)) {
            store.addAll(List.of(oldA, oldB, newer, timeless, sessionless));

            assertThat(store.recentSessions(10)).containsExactly(
                    new SessionInfo("codex", "new", "/p/two", t.plusSeconds(3600), t.plusSeconds(3601), 1),
                    new SessionInfo("claude-code", "old", "/p/one", t, t.plusSeconds(180), 2),
                    new SessionInfo("aider", "undated", null, null, null, 1));
            assertThat(store.recentSessions(1)).extracting(SessionInfo::session).containsExactly("new");

            store.delete(newer.id());
            store.delete(oldB.id());
            assertThat(store.recentSessions(10)).containsExactly(
                    new SessionInfo("claude-code", "old", "/p/one", t, t.plusSeconds(60), 1),
                    new SessionInfo("aider", "undated", null, null, null, 1));
            assertThatThrownBy(() -> store.recentSessions(0)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void openCreatesTheDirectoryAndReportsANewStore(@TempDir Path tmp) {
        Path dir = tmp.resolve("a/b/store");
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.created()).isTrue();
            assertThat(report.schemaVersionFound()).isZero();
            assertThat(report.schemaVersion()).isEqualTo(Schema.CURRENT_VERSION);
            assertThat(report.indexRebuilt()).isFalse();
            assertThat(report.summary()).contains("created store");
        }
        assertThat(dir.resolve(SqliteMemoryStore.DATABASE_FILE)).isRegularFile();
        assertThat(index(dir)).doesNotExist(); // no vectors, no graph
    }

    @Test
    void reopeningKeepsEverythingAndAnswersAlike(@TempDir Path dir) {
        List<List<String>> before = createStore(dir);
        assertThat(index(dir)).isRegularFile();
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.created()).isFalse();
            assertThat(report.indexRebuilt()).isFalse();
            assertThat(report.graphVectors()).isEqualTo(corpus.size());
            assertThat(report.freshVectors()).isZero();
            for (Memory m : corpus.all()) {
                assertThat(store.get(m.id())).contains(m);
            }
            assertThat(answers(store)).isEqualTo(before);
            long bytes = 0;
            for (Path f : indexFiles(dir)) {
                bytes += Files.size(f);
            }
            assertThat(store.stats().indexBytes()).isEqualTo(bytes);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void aDeletedIndexFileIsRebuiltAndFindsTheSameHits(@TempDir Path dir) throws IOException {
        List<List<String>> before = createStore(dir);
        Files.delete(index(dir));
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).isTrue();
            assertThat(report.indexReason()).isEqualTo("index manifest missing");
            assertThat(report.graphVectors()).isEqualTo(corpus.size());
            assertThat(answers(store)).isEqualTo(before);
        }
        assertThat(index(dir)).isRegularFile();
    }

    /** Damage at several places: header, id map, graph; truncation; garbage; another format version. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "header,     header checksum mismatch",
            "version,    index format version",
            "id-map,     index file checksum mismatch",
            "graph,      index file checksum mismatch",
            "last-byte,  index file checksum mismatch",
            "truncated,  truncated",
            "garbage,    not a Funes index file",
            "empty,      truncated"})
    void aDamagedIndexFileIsRebuiltNeverTrusted(String damage, String reason, @TempDir Path dir) throws IOException {
        List<List<String>> before = createStore(dir);
        Path file = segment(dir);
        long size = Files.size(file);
        int headerLength;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4);
            ch.read(b, 12); // after the magic and the format version
            headerLength = b.flip().getInt();
        }
        switch (damage) {
            case "header" -> flipByte(file, 30);
            case "version" -> flipByte(file, 11);
            case "id-map" -> flipByte(file, headerLength + 3);
            case "graph" -> flipByte(file, size / 2);
            case "last-byte" -> flipByte(file, size - 1);
            case "truncated" -> truncate(file, size - size / 3);
            case "garbage" -> Files.write(file, "not an index at all, just some text".repeat(100).getBytes());
            case "empty" -> truncate(file, 0);
            default -> throw new IllegalArgumentException(damage);
        }
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).as(report.summary()).isTrue();
            assertThat(report.indexReason()).contains(reason);
            assertThat(answers(store)).isEqualTo(before);
        }
        try (MemoryStore store = open(dir)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse(); // the rewritten file is good
        }
    }

    @Test
    void aSegmentVerifiedInFullIsTrustedWhileUnchangedAnyWriteToItIsCaughtAtOpenAndCheckReadsEveryByte(
            @TempDir Path dir) throws IOException {
        List<List<String>> before = createStore(dir);
        Path file = segment(dir);
        Path indexDir = dir.resolve(StoreIndex.DIR);
        int bodyCrc = IndexManifest.read(index(dir), null).segments().get(0).bodyCrc();

        // Verified before the file settled (its modification time is not 2 s older): not recorded.
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(3600)));
        try (MemoryStore store = open(dir)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse();
        }
        assertThat(VerifiedSegments.read(indexDir).unchanged(file, bodyCrc)).isFalse();

        FileTime settled = FileTime.from(Instant.now().minusSeconds(60));
        Files.setLastModifiedTime(file, settled);
        try (MemoryStore store = open(dir)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse();
        }
        assertThat(VerifiedSegments.read(indexDir).unchanged(file, bodyCrc)).isTrue();

        // Bytes that change behind an unchanged size, time and inode (media decay) are not read
        // again at open; funes check reads every byte and finds them.
        long size = Files.size(file);
        flipByte(file, size / 2); // inside a vector: nothing but the body checksum covers it
        Files.setLastModifiedTime(file, settled);
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).as(report.summary()).isFalse();
        }
        CheckReport check = FunesStore.check(dir, embedder, false);
        assertThat(check.problems()).extracting(CheckReport.Finding::check).containsExactly("ann");
        assertThat(check.problems().get(0).message()).contains("index file checksum mismatch");

        // Any write leaves a new modification time: verified again, found, rebuilt.
        flipByte(file, size / 2 + 8);
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).as(report.summary()).isTrue();
            assertThat(report.indexReason()).contains("index file checksum mismatch");
            assertThat(answers(store)).isEqualTo(before);
        }
    }

    @Test
    void aDamagedManifestIsRebuiltFromSqliteNeverTrusted(@TempDir Path dir) throws IOException {
        List<List<String>> before = createStore(dir);
        flipByte(index(dir), 20);
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).as(report.summary()).isTrue();
            assertThat(report.indexReason()).contains("index manifest corrupt (checksum mismatch)");
            assertThat(report.graphVectors()).isEqualTo(corpus.size());
            assertThat(answers(store)).isEqualTo(before);
        }
        try (MemoryStore store = open(dir)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse(); // the rewritten manifest is good
        }
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.flip();
            b.put(0, (byte) (b.get(0) ^ 0x5A));
            ch.write(b, position);
        }
    }

    private static void truncate(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }

    @Test
    void anIndexOlderThanTheLatestAdditionsIsLoadedAndTheNewVectorsSearchedExactly(@TempDir Path dir,
                                                                                   @TempDir Path saved)
            throws IOException {
        List<Memory> all = corpus.all();
        try (MemoryStore store = open(dir)) {
            store.addAll(all.subList(0, 10));
        }
        copyIndex(dir, saved);
        try (MemoryStore store = open(dir)) {
            store.addAll(all.subList(10, all.size()));
        }
        copyIndex(saved, dir);
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).isFalse();
            assertThat(report.graphVectors()).isEqualTo(10);
            assertThat(report.freshVectors()).isEqualTo(all.size() - 10);
            assertThat(store.search(SearchRequest.of("container killed for using too much memory")).get(0).memory())
                    .isEqualTo(corpus.get("oom-killed"));
        }
    }

    @Test
    void anIndexFromBeforeADeletionKeepsTheDeletedVectorAsATombstone(@TempDir Path dir, @TempDir Path saved)
            throws IOException {
        createStore(dir);
        copyIndex(dir, saved);
        Memory oom = corpus.get("oom-killed");
        try (MemoryStore store = open(dir)) {
            assertThat(store.delete(oom.id())).isTrue();
        }
        copyIndex(saved, dir);
        try (MemoryStore store = open(dir)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).isFalse(); // the segment holds one vector too many: a tombstone
            assertThat(report.graphVectors()).isEqualTo(corpus.size() - 1);
            assertThat(store.search(SearchRequest.of("container killed for using too much memory")))
                    .extracting(h -> h.memory().id()).doesNotContain(oom.id());
        }
    }

    /** The id and stored vector of a memory's embedding. */
    private SegmentedIndex.Entry storedVector(Path dir, String memoryId) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             var ps = c.prepareStatement("SELECT v.id, v.embedding FROM memories m JOIN vectors v ON v.id = m.vector_id"
                     + " WHERE m.id = ?")) {
            ps.setString(1, memoryId);
            try (var rs = ps.executeQuery()) {
                assertThat(rs.next()).isTrue();
                long id = rs.getLong(1);
                return new SegmentedIndex.Entry(id, Rows.vector(rs.getBytes(2), embedder.dimension(), id));
            }
        }
    }

    private static StoreIndex denseIndex(MemoryStore store) {
        return ((SqliteMemoryStore) store).denseIndex();
    }

    @Test
    void anIndexThatAgreesWithSqliteOpensWithoutReadingEveryIdYetVectorsDeletedBehindItsBackAreNeverReturned(
            @TempDir Path dir) throws SQLException {
        createStore(dir);
        Memory oom = corpus.get("oom-killed");
        SegmentedIndex.Entry vector = storedVector(dir, oom.id());
        try (MemoryStore store = open(dir)) {
            StoreIndex.Outcome outcome = denseIndex(store).outcome();
            assertThat(outcome.idsCompared()).isFalse(); // the digests agree
            assertThat(outcome.segmentVectors()).isEqualTo(corpus.size());
            assertThat(denseIndex(store).index().search(vector.vector(), 1, null)).extracting(SegmentedIndex.Hit::id)
                    .containsExactly(vector.id());
        }
        // Another program deletes the memory and its vector while no store is open: the index
        // files still hold the vector, and nothing recorded the deletion but SQLite.
        sql(dir, "DELETE FROM memories WHERE id = '" + oom.id() + "'",
                "DELETE FROM vectors WHERE id NOT IN (SELECT vector_id FROM memories)");
        try (MemoryStore store = open(dir)) {
            StoreIndex.Outcome outcome = denseIndex(store).outcome();
            assertThat(outcome.idsCompared()).isTrue();
            assertThat(outcome.rebuilt()).isFalse();
            assertThat(outcome.segmentVectors()).isEqualTo(corpus.size() - 1);
            assertThat(denseIndex(store).index().search(vector.vector(), 5, null)).extracting(SegmentedIndex.Hit::id)
                    .isNotEmpty().doesNotContain(vector.id());
        }
        try (MemoryStore store = open(dir)) { // the tombstone was written to the manifest at close
            StoreIndex.Outcome outcome = denseIndex(store).outcome();
            assertThat(outcome.idsCompared()).isFalse();
            assertThat(denseIndex(store).index().search(vector.vector(), 5, null)).extracting(SegmentedIndex.Hit::id)
                    .doesNotContain(vector.id());
        }
    }

    @Test
    void aDeletionLeavesTheDenseIndexAtOnceAndTheNextOpenStillTrustsTheDigest(@TempDir Path dir) throws SQLException {
        createStore(dir);
        Memory oom = corpus.get("oom-killed");
        SegmentedIndex.Entry vector = storedVector(dir, oom.id());
        try (MemoryStore store = open(dir)) {
            assertThat(store.delete(oom.id())).isTrue();
            assertThat(denseIndex(store).index().search(vector.vector(), 5, null)).extracting(SegmentedIndex.Hit::id)
                    .isNotEmpty().doesNotContain(vector.id());
        }
        try (MemoryStore store = open(dir)) {
            StoreIndex.Outcome outcome = denseIndex(store).outcome();
            assertThat(outcome.idsCompared()).isFalse();
            assertThat(outcome.segmentVectors()).isEqualTo(corpus.size() - 1);
        }
    }

    @Test
    void vectorsInNoSegmentBelowTheLargestSegmentIdAreIndexedAgainThoughEveryFileValidates(@TempDir Path dir)
            throws IOException, SQLException {
        // As after a crash that lost a memtable while a later one was sealed: a valid manifest
        // whose segments miss committed vectors below their largest id.
        List<Memory> all = corpus.all();
        try (MemoryStore store = open(dir)) {
            store.addAll(all.subList(0, 10));
        }
        try (MemoryStore store = open(dir)) {
            store.addAll(all.subList(10, all.size()));
        }
        IndexManifest both = IndexManifest.read(index(dir), null);
        assertThat(both.segments()).hasSize(2);
        IndexManifest.write(index(dir), new IndexManifest(both.identity(), both.nextSegment(),
                List.of(both.segments().get(1)), new long[0]));
        SegmentedIndex.Entry first = storedVector(dir, all.get(0).id());
        try (MemoryStore store = open(dir)) {
            StoreIndex.Outcome outcome = denseIndex(store).outcome();
            assertThat(outcome.idsCompared()).isTrue();
            assertThat(outcome.rebuilt()).isTrue();
            assertThat(outcome.reason()).contains("index is stale: 10 vectors");
            assertThat(outcome.segmentVectors()).isEqualTo(all.size());
            assertThat(denseIndex(store).index().search(first.vector(), 1, null)).extracting(SegmentedIndex.Hit::id)
                    .containsExactly(first.id());
        }
        try (MemoryStore store = open(dir)) {
            assertThat(denseIndex(store).outcome().idsCompared()).isFalse();
        }
    }

    @Test
    void anIndexOfAnotherStoreIsNotUsed(@TempDir Path tmp) throws IOException {
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        createStore(a);
        List<List<String>> answersOfB = createStore(b);
        copyIndex(a, b);
        try (MemoryStore store = open(b)) {
            assertThat(FunesStore.openReport(store).indexReason()).contains("another store");
            assertThat(answers(store)).isEqualTo(answersOfB);
        }
    }

    @Test
    void manySmallBatchesRebuildTheGraphAsTheyGo(@TempDir Path dir) {
        List<Memory> all = corpus.all();
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().freshLimit(3).build())) {
            for (int i = 0; i < all.size(); i += 2) {
                store.addAll(all.subList(i, Math.min(i + 2, all.size())));
                assertThat(store.search(SearchRequest.of(all.get(i).text())).get(0).memory()).isEqualTo(all.get(i));
            }
            assertThat(((SqliteMemoryStore) store).toString()).contains("graph ");
        }
        try (MemoryStore store = open(dir)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse();
            assertThat(FunesStore.openReport(store).graphVectors()).isEqualTo(all.size());
        }
    }

    @Test
    void aBatchOfAMemtableOrMoreIsBuiltIntoASegmentOfItsOwn(@TempDir Path dir) {
        List<Memory> all = corpus.all();
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().freshLimit(5).build())) {
            store.addAll(all.subList(0, 4)); // under the limit: the memtable
            assertThat(store.toString()).contains("memtable 4").doesNotContain("seg-");
            int rest = all.size() - 4;
            store.addAll(all.subList(4, all.size())); // one batch over the limit: its own segment, at once
            // the four added before it are sealed first, so the segments on disk never skip an id
            assertThat(store.toString()).contains("seg-1.ann[" + rest + "]").contains("seg-2.ann[4]")
                    .contains("memtable 0");
            for (Memory m : all) {
                assertThat(store.search(SearchRequest.of(m.text())).get(0).memory()).isEqualTo(m);
            }
        }
        try (MemoryStore store = open(dir)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse();
            assertThat(FunesStore.openReport(store).graphVectors()).isEqualTo(all.size());
        }
    }

    @Test
    void twoStoresOnOneDirectorySeeEachOthersWrites(@TempDir Path dir) {
        Memory oom = corpus.get("oom-killed");
        Memory tls = corpus.get("tls-port");
        try (MemoryStore first = open(dir); MemoryStore second = open(dir)) {
            first.addAll(corpus.all().stream().filter(m -> !m.equals(oom)).toList());
            List<SearchHit> hits = second.search(SearchRequest.of("container killed for using too much memory"));
            assertThat(hits).extracting(h -> h.memory().id()).doesNotContain(oom.id());
            first.add(oom);
            hits = second.search(SearchRequest.of("container killed for using too much memory"));
            assertThat(hits.get(0).memory()).isEqualTo(oom);
            assertThat(hits.get(0).parts().denseRank()).isEqualTo(1);
            assertThat(second.delete(tls.id())).isTrue();
            assertThat(first.get(tls.id())).isEmpty();
            assertThat(first.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")))
                    .extracting(h -> h.memory().id()).doesNotContain(tls.id());
        }
    }

    @Test
    void theIndexMaintainerBuildsManyVectorsAnotherStoreAddedIntoOneSegment(@TempDir Path dir) {
        StoreOptions small = StoreOptions.builder().freshLimit(5).build();
        try (MemoryStore maintainer = FunesStore.open(dir, embedder, small);
             MemoryStore other = FunesStore.open(dir, embedder, small)) {
            other.addAll(corpus.all()); // not the maintainer: keeps them in memory, cannot seal
            assertThat(other.toString()).doesNotContain("maintainer").doesNotContain("seg-");
            List<SearchHit> hits = maintainer.search(SearchRequest.of("container killed for using too much memory"));
            assertThat(hits.get(0).memory()).isEqualTo(corpus.get("oom-killed"));
            assertThat(maintainer.toString()).contains("seg-1.ann[" + maintainer.stats().vectors() + "]")
                    .contains("memtable 0");
        }
        try (MemoryStore store = open(dir)) {
            assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse();
            assertThat(FunesStore.openReport(store).freshVectors()).isZero();
        }
    }

    @Test
    void twoOpensOfANewDirectoryAtOnceBothSucceed(@TempDir Path tmp) throws Exception {
        for (int round = 0; round < 3; round++) {
            Path dir = tmp.resolve("store-" + round);
            CyclicBarrier start = new CyclicBarrier(2);
            Callable<MemoryStore> opener = () -> {
                start.await();
                return open(dir);
            };
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<MemoryStore> a = pool.submit(opener);
                Future<MemoryStore> b = pool.submit(opener);
                try (MemoryStore first = a.get(1, TimeUnit.MINUTES); MemoryStore second = b.get(1, TimeUnit.MINUTES)) {
                    first.add(corpus.get("ci-branch"));
                    assertThat(second.get(corpus.get("ci-branch").id())).isPresent();
                }
            } finally {
                pool.shutdownNow();
            }
            try (MemoryStore store = open(dir)) {
                assertThat(FunesStore.openReport(store).indexRebuilt()).isFalse(); // one store id, agreed on
            }
        }
    }

    // ------------------------------------------------------------ versions and models

    @Test
    void aStoreBuiltWithAnotherModelIsRefusedWithBothNames(@TempDir Path dir) {
        createStore(dir);
        try (Embedder other = Embedders.bundled(BundledModel.fromId("bge-small-en-v15-q"))) {
            assertThatThrownBy(() -> FunesStore.open(dir, other))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining(embedder.modelId())
                    .hasMessageContaining(other.modelId())
                    .hasMessageContaining("new store");
        }
        try (MemoryStore store = open(dir)) {
            assertThat(store.stats().memories()).isEqualTo(corpus.size()); // nothing was touched
        }
    }

    @Test
    void aStoreWrittenByANewerFunesIsRefused(@TempDir Path dir) throws SQLException {
        createStore(dir);
        sql(dir, "PRAGMA user_version = " + (Schema.CURRENT_VERSION + 1));
        assertThatThrownBy(() -> open(dir))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("newer Funes")
                .hasMessageContaining("version " + (Schema.CURRENT_VERSION + 1));
    }

    @Test
    void aSqliteFileOfSomethingElseIsRefused(@TempDir Path dir) throws SQLException {
        sql(dir, "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
        assertThatThrownBy(() -> open(dir)).isInstanceOf(StoreException.class).hasMessageContaining("not a Funes store");
    }

    @Test
    void aFileThatIsNotSqliteIsRefused(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve(SqliteMemoryStore.DATABASE_FILE), "hello, this is not a database\n".repeat(200));
        assertThatThrownBy(() -> open(dir)).isInstanceOf(StoreException.class).hasMessageContaining(dir.toString());
    }

    private static void sql(Path dir, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    // ------------------------------------------------------------ SQLite specifics

    @Test
    void aBatchThatFailsInsideTheTransactionStoresNothing(@TempDir Path dir) throws SQLException {
        Path log = dir.resolve("session.jsonl");
        SourceState first = new SourceState(log, 100, Instant.parse("2025-01-01T00:00:00Z"), 100, 3, "h", "claude-code",
                Instant.parse("2025-01-02T00:00:00Z"));
        SourceState second = new SourceState(log, 900, Instant.parse("2025-01-03T00:00:00Z"), 900, 9, "h",
                "claude-code", Instant.parse("2025-01-04T00:00:00Z"));
        List<Memory> all = corpus.all();
        try (MemoryStore store = open(dir)) {
            store.checkpoints().orElseThrow().addAll(all.subList(0, 3), first);
        }
        // A trigger makes SQLite itself abort on the last memory of the next batch, after the
        // vectors and the first memories of that batch were inserted.
        Memory poisoned = Memory.builder(MemoryKind.NOTE, "me", "The trigger rejects this poisoned row.").build();
        sql(dir, "CREATE TRIGGER reject BEFORE INSERT ON memories WHEN new.text LIKE '%poisoned%'"
                + " BEGIN SELECT RAISE(ABORT, 'rejected by test trigger'); END");
        List<Memory> batch = new ArrayList<>(all.subList(3, 8));
        batch.add(poisoned);
        try (MemoryStore store = open(dir)) {
            var before = store.stats();
            assertThatThrownBy(() -> store.checkpoints().orElseThrow().addAll(batch, second))
                    .isInstanceOf(StoreException.class)
                    .hasMessageContaining("rejected by test trigger")
                    .hasMessageContaining("nothing of this batch was stored");
            assertThat(store.stats()).usingRecursiveComparison().ignoringFields("databaseBytes", "indexBytes")
                    .isEqualTo(before);
            assertThat(store.checkpoints().orElseThrow().source(log)).contains(first);
            for (Memory m : batch) {
                assertThat(store.get(m.id())).isEmpty();
            }
            assertThat(store.search(SearchRequest.of("ERR_SSL_PROTOCOL_ERROR")))
                    .extracting(h -> h.memory().id()).doesNotContain(corpus.get("tls-port").id());
            assertThat(store.checkpoints().orElseThrow().addAll(batch.subList(0, 5), second).added()).isEqualTo(5);
            assertThat(store.checkpoints().orElseThrow().source(log)).contains(second);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"unbalanced quote", "-leading dash", "col:on", "star*", "*", "NEAR(ci branch)",
            "AND OR NOT", "'; DROP TABLE memories; --", "\"\"\"", "(((", "ERR_SSL_PROTOCOL_ERROR\"^", "-", "  ?  "})
    void queriesWithFtsSyntaxDoNotThrow(String query, @TempDir Path dir) {
        try (MemoryStore store = open(dir)) {
            store.addAll(corpus.all().subList(0, 8));
            assertThatCode(() -> store.search(SearchRequest.of(query))).doesNotThrowAnyException();
            assertThat(store.search(SearchRequest.of(query))).isNotEmpty(); // dense always has candidates
            assertThat(store.stats().memories()).isEqualTo(8);
        }
    }

    @Test
    void openReportRejectsOtherStores() {
        assertThatThrownBy(() -> FunesStore.openReport(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
