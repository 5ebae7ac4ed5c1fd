package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The link tables of schema version 2 on a real store: sha matching either way, merging, clean-up, migration. */
class LinkTablesTest {

    static final String FULL = "4e1c9a7d2b3c4d5e6f708192a3b4c5d6e7f80912";
    static Embedder embedder;

    @BeforeAll
    static void embedder() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    static void close() {
        embedder.close();
    }

    @Test
    void theProjectsAreEachDistinctProjectOnceInOrder(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(FunesStore.links(store).projects()).isEmpty();
            List<Memory> notes = new java.util.ArrayList<>();
            String[] projects = {"/src/b", "/src/a", null, "/src/a", "", "/src/B", "/src/a/sub", "/src/b"};
            for (int i = 0; i < projects.length; i++) {
                notes.add(Memory.builder(MemoryKind.NOTE, "claude-code", "note " + i).project(projects[i]).build());
            }
            store.addAll(notes);
            assertThat(FunesStore.links(store).projects()).containsExactly("", "/src/B", "/src/a", "/src/a/sub", "/src/b");
        }
    }

    @Test
    void abbreviatedAndFullShasFindEachOtherAndCommitsNameTheirRepository(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Memory m = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "User: commit it\n[main 4e1c9a7] Parse twice").build();
            Memory other = Memory.builder(MemoryKind.EXCHANGE, "aider", "User: add a cache").build();
            store.addAll(List.of(m, other));
            LinkTables t = FunesStore.links(store);
            assertThat(t.putLinks(List.of(new LinkTables.Link(m.id(), "4E1C9A7", "commit-output", 0.9, null, "Parse twice"),
                    new LinkTables.Link(other.id(), FULL, "session-head", 0.4, null, null)), 2)).isEqualTo(2);
            assertThat(t.linksTo(FULL)).extracting(LinkTables.Link::memoryId).containsExactlyInAnyOrder(m.id(), other.id());
            assertThat(t.linksTo("4e1c9a7")).hasSize(2);
            assertThat(t.linksTo("4e1c9a8")).isEmpty();
            // The same link again keeps the higher confidence and counts as nothing new.
            assertThat(t.putLinks(List.of(new LinkTables.Link(m.id(), "4e1c9a7", "commit-output", 0.95, null, null)), -1)).isZero();
            assertThat(t.linksFrom(m.id())).singleElement().satisfies(l -> {
                assertThat(l.confidence()).isEqualTo(0.95);
                assertThat(l.detail()).isEqualTo("Parse twice");
                assertThat(l.repo()).isNull();
            });
            assertThat(t.scannedUpTo()).isEqualTo(2);

            Instant time = Instant.parse("2026-03-02T10:38:00Z");
            assertThat(t.putCommits("/src/ledger", List.of(new LinkTables.Commit("/src/ledger", FULL, time, "Dev <d@x>",
                    "Parse twice\n\nbody", List.of(new LinkTables.FileChange("src/Parser.java", "M", null)))), FULL)).isEqualTo(1);
            assertThat(t.linksFrom(m.id()).get(0).repo()).isEqualTo("/src/ledger");
            assertThat(t.commits("4e1c")).singleElement().satisfies(c -> {
                assertThat(c.subject()).isEqualTo("Parse twice");
                assertThat(c.files()).extracting(LinkTables.FileChange::path).containsExactly("src/Parser.java");
            });
            assertThat(t.commitsTouching("/src/ledger", "src/Parser.java", 5)).hasSize(1);
            assertThat(t.commitsBetween("/src/ledger", time, time)).hasSize(1);
            assertThat(t.heads("/src/ledger")).contains(FULL);
            assertThatThrownBy(() -> t.commits("xyz")).isInstanceOf(IllegalArgumentException.class);

            // A deleted memory's links are not counted, and go at the next write.
            store.delete(other.id());
            assertThat(t.linkCounts()).containsExactly(java.util.Map.entry("commit-output", 1L));
            t.putLinks(List.of(), -1);
            assertThat(t.linksTo(FULL)).extracting(LinkTables.Link::memoryId).containsExactly(m.id());
        }
    }

    /**
     * The memories derived from given ones (what {@code why} adds to a commit's exchanges): those
     * whose {@code derivedFrom} names one, in its session or in none, in storage order; 600 ids, so
     * that the lookup runs in two chunks and finds parents in both.
     */
    @Test
    void derivedMemoriesAreFoundByTheirParentsInEveryChunk(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Memory first = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "User: parse the ledger twice").session("s1").build();
            Memory second = Memory.builder(MemoryKind.EXCHANGE, "aider", "User: cache the parsed accounts").session("s2").build();
            Memory loose = Memory.builder(MemoryKind.EXCHANGE, "codex", "User: sign the release jar").build();
            Memory fromFirst = Memory.builder(MemoryKind.DECISION, "claude-code", "Decision: parse in two passes")
                    .session("s1").metadata("derivedFrom", first.id()).build();
            Memory fromSecond = Memory.builder(MemoryKind.CONVENTION, "aider", "Convention: cache by account name")
                    .session("s2").metadata("derivedFrom", second.id()).build();
            Memory fromLoose = Memory.builder(MemoryKind.DECISION, "codex", "Decision: sign with the team key")
                    .metadata("derivedFrom", loose.id()).build();
            Memory unrelated = Memory.builder(MemoryKind.DECISION, "claude-code", "Decision: keep the ledger append-only")
                    .session("s1").metadata("derivedFrom", "someone-else").build();
            store.addAll(List.of(first, second, loose, fromFirst, fromSecond, fromLoose, unrelated));
            LinkTables t = FunesStore.links(store);

            java.util.List<String> ids = new java.util.ArrayList<>();
            ids.add(first.id());
            for (int i = 0; ids.size() < 599; i++) {
                ids.add("absent-" + i);
            }
            ids.add(second.id()); // the second chunk's
            assertThat(t.memoriesDerivedFrom(ids)).extracting(Memory::id).containsExactly(fromFirst.id(), fromSecond.id());
            assertThat(t.memoriesDerivedFrom(List.of(loose.id()))).extracting(Memory::id).containsExactly(fromLoose.id());
            assertThat(t.memoriesDerivedFrom(List.of(fromFirst.id(), "absent"))).isEmpty();
        }
    }

    /**
     * A memory stored after the last memory was deleted (a resumed read replacing the exchange it
     * read before) is past the scan position, so the next link pass reads it.
     */
    @Test
    void aMemoryStoredAfterTheScannedLastOneWasDeletedIsScannedNext(@TempDir Path dir) {
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            Memory first = Memory.builder(MemoryKind.EXCHANGE, "aider", "User: rename the parser").build();
            Memory open = Memory.builder(MemoryKind.EXCHANGE, "aider", "User: add a cache").build();
            store.addAll(List.of(first, open));
            LinkTables t = FunesStore.links(store);
            long scanned = t.memoriesAfter(0, 10).get(1).seq();
            t.putLinks(List.of(), scanned);
            assertThat(t.scannedUpTo()).isEqualTo(scanned);

            store.delete(open.id());
            Memory grown = Memory.builder(MemoryKind.EXCHANGE, "aider", "User: add a cache\n[commit] 5e6f7a8 add a cache").build();
            store.add(grown);
            assertThat(t.memoriesAfter(t.scannedUpTo(), 10)).extracting(s -> s.memory().id()).containsExactly(grown.id());
        }
    }

    @Test
    void aVersionOneStoreIsMigratedAndKeepsItsMemories(@TempDir Path dir) throws Exception {
        Memory m = Memory.builder(MemoryKind.NOTE, "me", "CI checks out the default branch").build();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.add(m);
        }
        // Back to what version 1 wrote.
        OldStores.downgradeToVersion1(dir);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(FunesStore.openReport(store).schemaVersionFound()).isEqualTo(1);
            assertThat(FunesStore.openReport(store).schemaVersion()).isEqualTo(Schema.CURRENT_VERSION);
            assertThat(store.get(m.id())).contains(m);
            assertThat(FunesStore.links(store).linkCounts()).isEmpty();
            assertThat(FunesStore.links(store).memoriesAfter(0, 10)).extracting(s -> s.memory().id()).containsExactly(m.id());
        }
    }
}
