package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static dev.funes.ingest.Growth.assertSameAsFresh;
import static dev.funes.ingest.Growth.lineBoundary;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reading a grown Aider chat history on from its resume point, on the real histories of the
 * shared fixtures: the memories (derived ones included) must be exactly those of a read of the
 * whole file, only the bytes from the resume point on are read, and a truncated or replaced
 * history is read again from its beginning.
 */
class AiderResumeTest {

    @TempDir
    Path tmp;

    /** Every Aider fixture, cut at a third and two thirds at a line boundary, then grown. */
    @Test
    void aResumedReadGivesWhatAFullReadGivesReadingOnlyFromTheResumePoint() throws IOException {
        List<Path> logs = histories();
        assertThat(logs).hasSizeGreaterThanOrEqualTo(5);
        int resumed = 0;
        for (Path log : logs) {
            byte[] bytes = Files.readAllBytes(log);
            for (int third = 1; third <= 2; third++) {
                resumed += growAndCompare(log, bytes, lineBoundary(bytes, bytes.length * third / 3)).offset() > 0 ? 1 : 0;
            }
        }
        assertThat(resumed).isEqualTo(2 * logs.size());
    }

    /** A line cut in the middle, as Aider leaves it while writing: the rest completes it. */
    @Test
    void aLastLineHalfWrittenIsReadOnceComplete() throws IOException {
        for (Path log : histories()) {
            byte[] bytes = Files.readAllBytes(log);
            int cut = Math.min(bytes.length - 1, lineBoundary(bytes, bytes.length / 2) + 7);
            assertThat(growAndCompare(log, bytes, cut).offset()).as(log.toString()).isPositive();
        }
    }

    /**
     * The exchanges read on from the point carry the session's earlier commits (metadata
     * {@code commits}), and their derived memories are stored again with them.
     */
    @Test
    void commitsAndDerivedMemoriesOfTheSessionSurviveAResume() throws IOException {
        Path log = Logs.fixtures("aider").resolve("monochromatic.aider.chat.history.md");
        byte[] bytes = Files.readAllBytes(log);
        boolean sawCommits = false;
        boolean sawDerived = false;
        for (int i = 1; i <= 9; i++) {
            Growth.Grown g = growAndCompare(log, bytes, lineBoundary(bytes, bytes.length * i / 10));
            assertThat(g.offset()).isPositive();
            for (Memory m : g.store().all()) {
                if (m.provenance().byteStart() >= g.offset()) {
                    sawCommits |= m.metadata().getOrDefault("commits", "").contains(",");
                    sawDerived |= m.kind() != MemoryKind.EXCHANGE;
                }
            }
        }
        assertThat(sawCommits).as("a resumed exchange with two or more earlier commits").isTrue();
        assertThat(sawDerived).as("a derived memory read again after a resume point").isTrue();
    }

    /** Cut back below what was read: read again from the start, and what lay past the cut stays, marked. */
    @Test
    void aTruncatedHistoryIsReadAgainFromTheStart() throws IOException {
        Path log = Logs.fixtures("aider").resolve("mozgoslav.aider.chat.history.md");
        byte[] bytes = Files.readAllBytes(log);
        Path file = Files.write(dir().resolve(AiderFormat.FILE_NAME), bytes).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        assertThat(Growth.hasToken(store.source(file).orElseThrow())).isTrue();
        List<dev.funes.Memory> before = store.all();

        int cut = lineBoundary(bytes, bytes.length / 2);
        Files.write(file, Arrays.copyOf(bytes, cut));
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesResumed()).isZero();
        assertThat(report.bytesRead()).isEqualTo(cut);
        Growth.assertNewGeneration(store, file, before, report);
        assertThat(store.all()).filteredOn(m -> m.provenance().byteEnd() > cut).isNotEmpty()
                .allSatisfy(m -> assertThat(m.metadata()).containsKey(dev.funes.SourceState.CHANGED_KEY));
    }

    /** Another, longer history written over the path: read from the start, beside the old one's memories. */
    @Test
    void aReplacedHistoryIsReadAgainFromTheStart() throws IOException {
        Growth.assertReplacedIsReadAgain(dir().resolve(AiderFormat.FILE_NAME),
                Files.readAllBytes(Logs.fixtures("aider").resolve("coding-aider-history-example2.md")),
                Files.readAllBytes(Logs.fixtures("aider").resolve("doc-processor.aider.chat.history.md")));
    }

    /** A line before the resume point rewritten (the head unchanged): read from the start. */
    @Test
    void aRewrittenHistoryIsReadAgainFromTheStart() throws IOException {
        Path log = Logs.fixtures("aider").resolve("pocketflow-text2sql-gui.aider.chat.history.md");
        byte[] bytes = Files.readAllBytes(log);
        int cut = lineBoundary(bytes, bytes.length / 2);
        Path file = Files.write(dir().resolve(AiderFormat.FILE_NAME), Arrays.copyOf(bytes, cut)).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        List<dev.funes.Memory> before = store.all();
        Resume.Token token = Resume.Token.parse(store.source(file).orElseThrow().resume());
        byte[] changed = bytes.clone();
        int at = (int) token.check().start();
        changed[at] = changed[at] == 'x' ? (byte) 'y' : (byte) 'x';
        Files.write(file, changed);
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesResumed()).isZero();
        assertThat(report.bytesRead()).isEqualTo(changed.length);
        Growth.assertNewGeneration(store, file, before, report);
    }

    // ---- helpers -----------------------------------------------------------------------------

    private Growth.Grown growAndCompare(Path log, byte[] bytes, int cut) throws IOException {
        return Growth.growAndCompare(dir().resolve(AiderFormat.FILE_NAME), bytes, cut);
    }

    private List<Path> histories() throws IOException {
        try (Stream<Path> files = Files.list(Logs.fixtures("aider"))) {
            return files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        }
    }

    private Path dir() throws IOException {
        return Files.createTempDirectory(tmp, "project");
    }
}
