package dev.funes.ingest;


import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static dev.funes.ingest.Growth.assertSameAsFresh;
import static dev.funes.ingest.Growth.lineBoundary;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reading a grown log on from its resume point, on the real logs of the shared fixtures: the
 * memories must be exactly those of a read of the whole file (same ids, same line and byte
 * ranges), only the bytes from the resume point on are read, and a truncated, replaced or
 * rewritten file is read again from its beginning as a new generation of the log: what it gave
 * before stays, marked, beside what it gives now.
 */
class ResumeTest {

    @TempDir
    Path tmp;

    /** Every Claude Code and Codex fixture, cut at a third and two thirds of its lines, then grown. */
    @Test
    void aResumedReadGivesWhatAFullReadGivesReadingOnlyFromTheResumePoint() throws IOException {
        List<Path> logs = new ArrayList<>();
        logs.addAll(jsonl(Logs.fixtures("claude-code")));
        logs.addAll(jsonl(Logs.fixtures("codex")));
        assertThat(logs).hasSizeGreaterThanOrEqualTo(10);
        int resumed = 0;
        for (Path log : logs) {
            byte[] bytes = Files.readAllBytes(log);
            for (int third = 1; third <= 2; third++) {
                int cut = lineBoundary(bytes, bytes.length * third / 3);
                resumed += growAndCompare(log, bytes, cut) ? 1 : 0;
            }
        }
        // Some short logs have no exchange ended before the cut: those are read from the start.
        assertThat(resumed).isGreaterThanOrEqualTo(logs.size());
    }

    /** A record cut in the middle, as an agent leaves it while writing: the rest completes it. */
    @Test
    void aLastRecordHalfWrittenIsReadOnceComplete() throws IOException {
        for (Path log : List.of(Logs.fixtures("claude-code").resolve("episodic-memory-large.jsonl"),
                Logs.fixtures("codex").resolve("rtchess-realtime-chess.jsonl"))) {
            byte[] bytes = Files.readAllBytes(log);
            int cut = lineBoundary(bytes, bytes.length / 2) + 40;
            assertThat(growAndCompare(log, bytes, cut)).as(log.toString()).isTrue();
        }
    }

    /** The project's generic JSON Lines sample resumes too. */
    @Test
    void aGenericLogResumes() throws IOException {
        Path log = Logs.resource("generic/acme-bot-chat.jsonl");
        byte[] bytes = Files.readAllBytes(log);
        assertThat(growAndCompare(log, bytes, lineBoundary(bytes, bytes.length * 2 / 3))).isTrue();
    }

    /** The bytes read on a resume are exactly those from the resume point: the last open exchange and the appended records. */
    @Test
    void theBytesReadAreTheOpenExchangeAndTheAppendedBytes() throws IOException {
        Path log = Logs.fixtures("claude-code").resolve("episodic-memory-large.jsonl");
        byte[] bytes = Files.readAllBytes(log);
        int cut = lineBoundary(bytes, bytes.length / 2);
        Path file = tmp.resolve("session.jsonl");
        Files.write(file, Arrays.copyOf(bytes, cut));
        file = file.toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        long offset = Resume.Token.parse(store.source(file).orElseThrow().resume()).point().offset();
        // Of the first half of a large log, the part read again is small.
        assertThat(offset).isGreaterThan(cut / 2);

        // A second append of only a few records reads those and the open exchange again: nothing earlier.
        int more = lineBoundary(bytes, cut + 1);
        more = lineBoundary(bytes, more + 1);
        Files.write(file, Arrays.copyOfRange(bytes, cut, more), StandardOpenOption.APPEND);
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesResumed()).isEqualTo(1);
        assertThat(report.bytesRead()).isEqualTo(more - offset).isLessThan(bytes.length / 4);
    }

    /** Cut back below what was read: the file is read again from the start, and what lay past the cut stays, marked. */
    @Test
    void aTruncatedLogIsReadAgainFromTheStart() throws IOException {
        Path log = Logs.fixtures("codex").resolve("rtchess-realtime-chess.jsonl");
        byte[] bytes = Files.readAllBytes(log);
        Path file = Files.write(tmp.resolve("rollout.jsonl"), bytes).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        assertThat(Growth.hasToken(store.source(file).orElseThrow())).isTrue();
        List<dev.funes.Memory> before = store.all();

        int cut = lineBoundary(bytes, bytes.length / 2);
        Files.write(file, Arrays.copyOf(bytes, cut));
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(report.filesResumed()).isZero();
        assertThat(report.bytesRead()).isEqualTo(cut);
        Growth.assertNewGeneration(store, file, before, report);
        // What lay past the cut is kept, marked; the memories of the part kept are those of before.
        assertThat(store.all()).filteredOn(m -> m.provenance().byteEnd() > cut).isNotEmpty()
                .allSatisfy(m -> assertThat(m.metadata()).containsKey(dev.funes.SourceState.CHANGED_KEY));
        assertThat(store.all()).filteredOn(m -> m.provenance().byteEnd() < cut / 2).isNotEmpty()
                .allSatisfy(m -> assertThat(before).contains(m));
    }

    /** Another log written at the same path (a rotated or replaced file): read from the start, beside the old one's memories. */
    @Test
    void aReplacedLogIsReadAgainFromTheStart() throws IOException {
        Path a = Logs.fixtures("claude-code").resolve("episodic-memory-short.jsonl");
        Path b = Logs.fixtures("claude-code").resolve("episodic-memory-long.jsonl");
        assertThat(Files.size(b)).isGreaterThan(Files.size(a));
        // Written in place (same inode): the first bytes tell.
        Growth.assertReplacedIsReadAgain(tmp.resolve("session.jsonl"), Files.readAllBytes(a), Files.readAllBytes(b));
    }

    /**
     * The same first bytes but another file moved over the path (log rotation), or the same file
     * with a record rewritten before the resume point: both are read from the start, as new
     * generations (the rotated file might hold anything: what it no longer gives is kept).
     */
    @Test
    void aRotatedOrRewrittenLogWithTheSameBeginningIsReadAgainFromTheStart() throws IOException {
        Path log = Logs.fixtures("claude-code").resolve("episodic-memory-large.jsonl");
        byte[] bytes = Files.readAllBytes(log);
        int cut = lineBoundary(bytes, bytes.length / 2);
        Path file = Files.write(tmp.resolve("session.jsonl"), Arrays.copyOf(bytes, cut)).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        assertThat(Growth.hasToken(store.source(file).orElseThrow())).isTrue();
        List<dev.funes.Memory> before = store.all();

        // Rotation: a new file (new inode) with the whole log is moved over the old one.
        Path rotated = Files.write(tmp.resolve("rotated.tmp"), bytes);
        Files.move(rotated, file, StandardCopyOption.REPLACE_EXISTING);
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesResumed()).isZero();
        // Another file: nothing of what was read is replaced. Its content only extends the old
        // one's, so what it no longer gives (the exchange open at the cut, if it grew) is kept, marked.
        long kept = Growth.assertKept(store, file, before);
        assertThat(report.earlierMemoriesKept()).isEqualTo(kept);
        assertThat(report.changedFiles()).hasSize(kept > 0 ? 1 : 0);
        assertThat(report.memoriesReplaced()).isZero();

        // Rewritten in place: the last record read before (line ending at cut) changes, the head does not.
        Files.write(file, Arrays.copyOf(bytes, cut));
        indexer.index(List.of(file));
        assertThat(Growth.hasToken(store.source(file).orElseThrow())).isTrue();
        before = store.all();
        byte[] changed = bytes.clone();
        for (int i = previousLine(bytes, cut); i < cut - 1; i++) {
            if (changed[i] == 'a') {
                changed[i] = 'b';
                break;
            }
        }
        Files.write(file, changed);
        report = indexer.index(List.of(file));
        assertThat(report.filesResumed()).isZero();
        assertThat(report.bytesRead()).isEqualTo(changed.length);
        kept = Growth.assertKept(store, file, before);
        assertThat(report.earlierMemoriesKept()).isEqualTo(kept);
        assertThat(report.memoriesReplaced()).isZero();
    }

    /**
     * A directive written into the part before the resume point (the first 4 KiB unchanged): the
     * rewritten file is looked at again from its start, and skipped.
     */
    @Test
    void aDirectiveRewrittenBeforeTheResumePointIsStillHeard() throws IOException {
        String longFirst = Records.request(1, "Summarise this design: " + "the cache evicts least recently used entries. ".repeat(120));
        List<String> lines = new ArrayList<>(List.of(longFirst, Records.answer(2, "msg_1", "Done."),
                Records.request(3, "Rename the cache class"), Records.answer(4, "msg_2", "Renamed."),
                Records.request(5, "Now add a test"), Records.answer(6, "msg_3", "Added.")));
        Path file = Records.write(tmp.resolve("p/s.jsonl"), lines).toRealPath();
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).build();
        indexer.index(List.of(file));
        assertThat(Resume.Token.parse(store.source(file).orElseThrow().resume()).point().line()).isEqualTo(5);

        lines.set(2, Records.request(3, "funes:ignore"));
        lines.add(Records.request(7, "And document it"));
        Records.write(file, lines);
        IndexReport report = indexer.index(List.of(file));
        assertThat(report.filesSkippedByRequest()).isEqualTo(1);
        assertThat(store.all()).isEmpty();
    }

    // ---- helpers -----------------------------------------------------------------------------

    /** Grows a copy of {@code log} from {@code cut} bytes ({@link Growth#growAndCompare}); whether it resumed. */
    private boolean growAndCompare(Path log, byte[] bytes, int cut) throws IOException {
        Path dir = Files.createTempDirectory(tmp, "grow");
        return Growth.growAndCompare(dir.resolve(log.getFileName().toString()), bytes, cut).offset() > 0;
    }

    private static List<Path> jsonl(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList();
        }
    }

    /** The start of the line that ends just before {@code end}. */
    private static int previousLine(byte[] bytes, int end) {
        int i = end - 2;
        while (i >= 0 && bytes[i] != '\n') {
            i--;
        }
        return i + 1;
    }
}
