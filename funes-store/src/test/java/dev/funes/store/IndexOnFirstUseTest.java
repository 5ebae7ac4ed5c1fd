package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StoreOptions#indexOnFirstUse()} on a real store and model: reads that need no vector
 * leave the dense index unopened and its files untouched; a search, a write, stats and the open
 * report open it, and then find, count and store exactly what a store that opened it at once does.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IndexOnFirstUseTest {

    private static final StoreOptions ON_FIRST_USE = StoreOptions.builder().indexOnFirstUse(true).build();

    private final Embedder embedder = TestModel.shared();

    private static Memory note(String text) {
        return Memory.builder(MemoryKind.NOTE, "claude-code", text).session("s1").project("/work/alpha").build();
    }

    private static final List<Memory> NOTES = List.of(
            note("the zeppelin migration renames the quokka column before the backfill runs"),
            note("the release job signs the jar with the team key"),
            note("CI caches the maven repository between builds"));

    /** A store holding {@link #NOTES}, closed: its vectors sealed into a segment. */
    private void build(Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(store.addAll(NOTES).added()).isEqualTo(NOTES.size());
        }
    }

    private static StoreIndex index(MemoryStore store) {
        return ((SqliteMemoryStore) store).denseIndex();
    }

    @Test
    void readsThatNeedNoVectorLeaveTheIndexUnopenedAndItsFilesAsTheyWere(@TempDir Path dir) throws IOException {
        build(dir);
        Map<String, String> files = files(dir.resolve(StoreIndex.DIR));
        try (MemoryStore store = FunesStore.open(dir, embedder, ON_FIRST_USE)) {
            assertThat(store.get(NOTES.get(0).id())).isPresent();
            assertThat(store.checkpoints().orElseThrow().source(dir.resolve("no-such.jsonl"))).isEmpty();
            assertThat(store.search(SearchRequest.builder("zeppelin quokka").retrieval(Retrieval.LEXICAL).build()))
                    .extracting(h -> h.memory().id()).first().isEqualTo(NOTES.get(0).id());
            assertThat(FunesStore.links(store).linkCounts()).isEmpty();
            assertThat(index(store).isOpen()).isFalse();
            assertThat(index(store).toString()).contains("not opened yet");
        }
        assertThat(files(dir.resolve(StoreIndex.DIR))).isEqualTo(files);
    }

    @Test
    void aSearchOpensItAndFindsWhatAStoreThatOpenedItAtOnceFinds(@TempDir Path dir) {
        build(dir);
        for (Retrieval r : List.of(Retrieval.HYBRID, Retrieval.DENSE)) {
            SearchRequest request = SearchRequest.builder("which column does the migration rename?").retrieval(r).build();
            List<SearchHit> atOnce;
            try (MemoryStore store = FunesStore.open(dir, embedder)) {
                assertThat(index(store).isOpen()).isTrue();
                atOnce = store.search(request);
            }
            try (MemoryStore store = FunesStore.open(dir, embedder, ON_FIRST_USE)) {
                assertThat(index(store).isOpen()).isFalse();
                List<SearchHit> onFirstUse = store.search(request);
                assertThat(index(store).isOpen()).isTrue();
                assertThat(onFirstUse).as(r.toString()).isEqualTo(atOnce);
            }
        }
    }

    @Test
    void writesOpenItAndEveryVectorIsIndexedOnce(@TempDir Path dir) {
        build(dir);
        Memory added = note("the nightly job prunes docker images older than a week");
        Memory put = note("the staging database is restored from the Sunday snapshot");
        try (MemoryStore store = FunesStore.open(dir, embedder, ON_FIRST_USE)) {
            assertThat(store.addAll(List.of(added)).added()).isEqualTo(1);
            assertThat(index(store).isOpen()).isTrue();
        }
        try (MemoryStore store = FunesStore.open(dir, embedder, ON_FIRST_USE)) {
            // Vectors the caller computed are stored in a transaction that ends before the index
            // hears of them: opened only then, it reads them from SQLite, and must not add them twice.
            FunesStore.vectors(store).put(List.of(put), embedder.embedDocuments(List.of(put.text())));
            assertThat(index(store).isOpen()).isTrue();
            SegmentedIndex.Stats stats = index(store).index().stats();
            assertThat(stats.segments().stream().mapToInt(SegmentedIndex.SegmentStats::vectors).sum()
                    + stats.memtableVectors() - stats.tombstones()).isEqualTo(NOTES.size() + 2);
            assertThat(store.search(SearchRequest.builder("docker image pruning").retrieval(Retrieval.DENSE).build()))
                    .extracting(h -> h.memory().id()).first().isEqualTo(added.id());
        }
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(report.indexRebuilt()).as(report.summary()).isFalse();
            assertThat(report.graphVectors() + report.freshVectors()).isEqualTo(NOTES.size() + 2);
            assertThat(store.stats().vectors()).isEqualTo(NOTES.size() + 2);
        }
        CheckReport check = FunesStore.check(dir, embedder, false);
        assertThat(check.healthy()).as(check.summary() + " " + check.problems()).isTrue();
    }

    @Test
    void statsAndTheOpenReportOpenItAndTellWhatAnOpenAtOnceTells(@TempDir Path dir) {
        build(dir);
        OpenReport atOnce;
        long bytesAtOnce;
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            atOnce = FunesStore.openReport(store);
            bytesAtOnce = store.stats().indexBytes();
        }
        try (MemoryStore store = FunesStore.open(dir, embedder, ON_FIRST_USE)) {
            assertThat(store.stats().indexBytes()).isEqualTo(bytesAtOnce).isPositive();
            assertThat(index(store).isOpen()).isTrue();
        }
        try (MemoryStore store = FunesStore.open(dir, embedder, ON_FIRST_USE)) {
            OpenReport report = FunesStore.openReport(store);
            assertThat(index(store).isOpen()).isTrue();
            assertThat(report.created()).isFalse();
            assertThat(report.schemaVersion()).isEqualTo(atOnce.schemaVersion());
            assertThat(report.indexRebuilt()).isFalse();
            assertThat(report.graphVectors()).isEqualTo(atOnce.graphVectors()).isEqualTo(NOTES.size());
            assertThat(report.freshVectors()).isEqualTo(atOnce.freshVectors());
        }
    }

    /** Each file of the folder: its size, modification time and content. */
    private static Map<String, String> files(Path folder) throws IOException {
        Map<String, String> files = new TreeMap<>();
        try (Stream<Path> list = Files.list(folder)) {
            for (Path f : list.toList()) {
                files.put(f.getFileName().toString(), Files.size(f) + " " + Files.getLastModifiedTime(f) + " "
                        + java.util.Arrays.hashCode(Files.readAllBytes(f)));
            }
        }
        return files;
    }
}
