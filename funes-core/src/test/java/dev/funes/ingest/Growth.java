package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.SourceState;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** What the resume tests share: a log that grows, a log that is replaced, and the fresh-index oracle. */
final class Growth {

    private Growth() {
    }

    /** A grown log's store and the offset its second read resumed at (-1: it was read from the start). */
    record Grown(InMemoryStore store, long offset) {
    }

    /**
     * Writes {@code bytes[0, cut)} to {@code file}, indexes it, appends the rest, indexes again,
     * and checks the result against an index of the whole file from scratch: only what follows the
     * resume point is read, the point starts a line, and a third run reads nothing.
     */
    static Grown growAndCompare(Path file, byte[] bytes, int cut) throws IOException {
        String what = file.getFileName() + " cut at " + cut;
        file = Files.write(file, Arrays.copyOf(bytes, cut)).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        IndexReport first = indexer.index(List.of(file));
        assertThat(first.filesIndexed()).as(what).isEqualTo(1);
        assertThat(first.bytesRead()).isEqualTo(cut);
        SourceState before = store.source(file).orElseThrow();

        Files.write(file, Arrays.copyOfRange(bytes, cut, bytes.length), StandardOpenOption.APPEND);
        IndexReport second = indexer.index(List.of(file));

        assertSameAsFresh(store, file);
        assertThat(store.source(file).orElseThrow().indexedBytes()).isEqualTo(bytes.length);
        if (!hasToken(before)) {
            assertThat(second.filesResumed()).isZero();
            assertThat(second.bytesRead()).isEqualTo(bytes.length);
            return new Grown(store, -1);
        }
        long offset = Resume.Token.parse(before.resume()).point().offset();
        assertThat(second.filesResumed()).as(what).isEqualTo(1);
        // Only what follows the resume point is read: the exchange still open at the cut, and what was appended.
        assertThat(second.bytesRead()).as(what).isEqualTo(bytes.length - offset);
        assertThat(offset).isPositive().isLessThanOrEqualTo(before.indexedBytes());
        assertThat(bytes[(int) offset - 1]).as("the resume point starts a line").isEqualTo((byte) '\n');
        IndexReport third = indexer.index(List.of(file));
        assertThat(third.filesUnchanged()).isEqualTo(1);
        assertThat(third.bytesRead()).isZero();
        return new Grown(store, offset);
    }

    /** Whether the checkpoint holds a resume point (rather than nothing or a {@link Continuation}). */
    static boolean hasToken(SourceState state) {
        return !state.resume().isEmpty() && !Continuation.isOne(state.resume());
    }

    /**
     * Indexes {@code first} written at {@code file}, writes {@code second} over it in place (same
     * inode) and indexes again: although the first read left a resume point, the file is read
     * from the start, as a new generation: its old memories stay beside the new ones.
     */
    static void assertReplacedIsReadAgain(Path file, byte[] first, byte[] second) throws IOException {
        file = Files.write(file, first).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        assertThat(hasToken(store.source(file).orElseThrow())).as("a resume point the new content must not use").isTrue();
        List<Memory> old = store.all();
        assertThat(old).isNotEmpty();

        Files.write(file, second);
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesResumed()).isZero();
        assertThat(report.bytesRead()).isEqualTo(second.length);
        assertNewGeneration(store, file, old, report);
    }

    /**
     * After {@code report}'s read of {@code file}, a new generation of the log whose store held
     * {@code before}: the store holds exactly what an index of the file as it is now into an
     * empty store gives, plus every memory of {@code before} the file no longer gives, unchanged
     * but for the {@link SourceState#CHANGED_KEY} mark; the report names the file and counts
     * those; nothing was removed.
     */
    static void assertNewGeneration(InMemoryStore store, Path file, List<Memory> before, IndexReport report) {
        long newlyMarked = assertKept(store, file, before);
        assertThat(newlyMarked).as("memories the changed file no longer gives").isPositive();
        assertThat(report.earlierMemoriesKept()).isEqualTo(newlyMarked);
        assertThat(report.changedFiles()).containsExactly(file);
        assertThat(report.memoriesReplaced()).isZero();
        assertThat(report.summary()).contains("1 file changed since it was read, its " + newlyMarked
                + (newlyMarked == 1 ? " earlier memory kept: " : " earlier memories kept: ") + file);
    }

    /**
     * That {@code store} holds exactly what an index of {@code file} as it is now into an empty
     * store gives, plus every memory of {@code before} the file no longer gives, unchanged but for
     * the {@link SourceState#CHANGED_KEY} mark; returns how many of those were not marked before.
     */
    static long assertKept(InMemoryStore store, Path file, List<Memory> before) {
        InMemoryStore fresh = new InMemoryStore();
        Indexer.builder(fresh).build().index(List.of(file));
        java.util.Set<String> now = new java.util.HashSet<>(fresh.all().stream().map(Memory::id).toList());
        List<Memory> gone = before.stream().filter(m -> !now.contains(m.id())).toList();
        assertThat(store.all()).as("the file as it is now").containsAll(fresh.all());
        for (Memory m : gone) {
            Memory kept = store.get(m.id()).orElseThrow(() -> new AssertionError("lost: " + m.id() + " " + m.provenance()));
            assertThat(kept.metadata()).containsKey(SourceState.CHANGED_KEY);
            assertThat(unmarked(kept)).isEqualTo(unmarked(m));
        }
        assertThat(store.all()).hasSize(fresh.all().size() + gone.size());
        return gone.stream().filter(m -> !m.metadata().containsKey(SourceState.CHANGED_KEY)).count();
    }

    /** {@code m} without the {@link SourceState#CHANGED_KEY} mark. */
    static Memory unmarked(Memory m) {
        java.util.Map<String, String> metadata = new java.util.TreeMap<>(m.metadata());
        metadata.remove(SourceState.CHANGED_KEY);
        return new Memory(m.id(), m.kind(), m.text(), m.startedAt(), m.endedAt(), m.agent(), m.project(), m.session(),
                m.provenance(), metadata);
    }

    /**
     * The memories in {@code store} cited from {@code file} are exactly those an index of the
     * file as it is now into an empty store gives: same ids, texts, line and byte ranges, metadata.
     */
    static void assertSameAsFresh(InMemoryStore store, Path file) {
        InMemoryStore fresh = new InMemoryStore();
        Indexer.builder(fresh).build().index(List.of(file));
        assertThat(fresh.all()).isNotEmpty();
        assertThat(store.all()).as(file.toString()).containsExactlyInAnyOrderElementsOf(fresh.all());
    }

    /** The offset just past the first newline at or after {@code at} (the end of the file if none). */
    static int lineBoundary(byte[] bytes, int at) {
        for (int i = Math.max(at, 0); i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                return i + 1;
            }
        }
        return bytes.length;
    }
}
