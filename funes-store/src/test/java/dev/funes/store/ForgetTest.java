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

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link FunesStore#forget} on a real store and model: rows, full-text, vectors, tombstones, index files. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ForgetTest {

    private final Embedder embedder = TestModel.shared();

    private static Memory exchange() {
        return Memory.builder(MemoryKind.EXCHANGE, "claude-code",
                "the zeppelin migration renames the quokka column before the backfill runs").session("s1").build();
    }

    @Test
    void aForgottenMemoryAndItsPassagesLeaveRowsTextVectorsAndIndexFilesAndLeaveTombstones(@TempDir Path dir)
            throws SQLException {
        Memory parent = exchange();
        Memory p1 = TestCorpus.passage(parent, "zeppelin migration: rename the quokka column first");
        Memory p2 = TestCorpus.passage(parent, "the quokka backfill runs after the rename");
        Memory other = Memory.builder(MemoryKind.NOTE, "api", "the release job signs the jar with the team key").build();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(store.addAll(List.of(parent, p1, p2, other)).added()).isEqualTo(4);
        }
        // Reopened: closing sealed the vectors into an index segment, which forgetting must rewrite.
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            SegmentedIndex index = ((SqliteMemoryStore) store).denseIndex().index();
            assertThat(index.stats().segmentVectors()).isEqualTo(4);

            ForgetReport report = FunesStore.forget(store, List.of(parent.id(), "no-such-id"));

            assertThat(report.memories()).isEqualTo(1);
            assertThat(report.passages()).isEqualTo(2);
            assertThat(report.vectorsExpunged()).isEqualTo(3);
            for (Memory m : List.of(parent, p1, p2)) {
                assertThat(store.get(m.id())).as(m.text()).isEmpty();
            }
            assertThat(store.get(other.id())).isPresent();
            for (Retrieval r : Retrieval.values()) {
                List<SearchHit> hits = store.search(SearchRequest.builder("zeppelin quokka column rename").retrieval(r).build());
                assertThat(hits).as(r.toString()).extracting(h -> h.memory().id())
                        .doesNotContain(parent.id(), p1.id(), p2.id());
            }
            assertThat(index.stats().tombstones()).isZero();
            assertThat(index.stats().segmentVectors()).isEqualTo(1);
            assertThat(store.stats().memories()).isEqualTo(1);
        }
        assertThat(rows(dir, "SELECT id FROM tombstones ORDER BY id"))
                .containsExactlyInAnyOrder(parent.id(), p1.id(), p2.id());
        assertThat(rows(dir, "SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'quokka'")).isEmpty();
        assertThat(rows(dir, "SELECT id FROM vectors")).hasSize(1);
        CheckReport check = FunesStore.check(dir, embedder, false);
        assertThat(check.healthy()).as(check.summary() + " " + check.problems()).isTrue();
    }

    @Test
    void aPassageNamedAloneGoesAloneAndNothingNamedDeletesNothing(@TempDir Path dir) {
        Memory parent = exchange();
        Memory p1 = TestCorpus.passage(parent, "zeppelin migration: rename the quokka column first");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(List.of(parent, p1));
            assertThat(FunesStore.forget(store, List.of())).isEqualTo(new ForgetReport(0, 0, 0));
            ForgetReport report = FunesStore.forget(store, List.of(p1.id()));
            assertThat(report.memories()).isZero();
            assertThat(report.passages()).isEqualTo(1);
            assertThat(store.get(parent.id())).isPresent();
            assertThat(store.get(p1.id())).isEmpty();
        }
    }

    @Test
    void toForgetCountsTheSelectedMemoriesWithTheirPassagesAndALonePassageAlone(@TempDir Path dir) {
        Memory parent = exchange();
        Memory p1 = TestCorpus.passage(parent, "zeppelin migration: rename the quokka column first");
        Memory p2 = TestCorpus.passage(parent, "the quokka backfill runs after the rename");
        Memory other = Memory.builder(MemoryKind.NOTE, "api", "the release job signs the jar with the team key").build();
        Memory otherPassage = TestCorpus.passage(other, "the team key lives in the release vault");
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.addAll(List.of(parent, p1, p2, other, otherPassage));

            ForgetSelection selection = FunesStore.toForget(store, List.of(parent, parent, otherPassage));

            assertThat(selection.memories()).extracting(Memory::id).containsExactly(parent.id());
            assertThat(selection.passages()).containsExactlyInAnyOrder(p1.id(), p2.id(), otherPassage.id());
            assertThat(selection.ids()).startsWith(parent.id()).hasSize(4);
            assertThat(selection.describe()).isEqualTo("1 memory (and 3 passages)");
            assertThat(FunesStore.toForget(store, List.of(other)).describe()).isEqualTo("1 memory (and 1 passage)");
            ForgetSelection none = FunesStore.toForget(store, List.of());
            assertThat(none.isEmpty()).isTrue();
            assertThat(none.describe()).isEqualTo("0 memories");

            ForgetReport report = FunesStore.forget(store, selection.ids());
            assertThat(report.memories()).isEqualTo(1);
            assertThat(report.passages()).isEqualTo(3);
            assertThat(store.get(other.id())).isPresent();
        }
    }

    private static List<String> rows(Path dir, String sql) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(SqliteMemoryStore.DATABASE_FILE));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
