package dev.funes.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.AddResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IndexListener#progress}: a big log tells the bytes read of it, and the memories it gave,
 * while it is read, step by step, not only when it ends; the figures of all the files add the
 * files looked at before; a file not read again counts whole.
 */
class IndexProgressTest {

    @TempDir
    Path dir;

    /** Progress and finished files, in the order the listener heard them. */
    private static final class Heard implements IndexListener {
        final List<Object> events = new ArrayList<>();

        @Override
        public void progress(Progress progress) {
            events.add(progress);
        }

        @Override
        public void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
            events.add(outcome + " " + file.getFileName() + " " + memories);
        }

        List<Progress> progress(Path file) {
            return events.stream().filter(e -> e instanceof Progress p && p.file().equals(file))
                    .map(Progress.class::cast).toList();
        }
    }

    /** A generic JSON Lines chat of {@code exchanges} question-and-answer pairs, each about 1.2 KB. */
    private Path chat(String name, int exchanges) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < exchanges; i++) {
            String words = ("exchange " + i + " looks at the parser, the ledger and the build; ").repeat(8);
            lines.add("{\"role\":\"user\",\"content\":\"Question " + i + ": " + words + "\"}");
            lines.add("{\"role\":\"assistant\",\"content\":\"Answer " + i + ": " + words + "\"}");
        }
        return Records.write(dir.resolve(name), lines);
    }

    @Test
    void aBigLogTellsTheBytesReadAndMemoriesGivenAsItIsReadNotOnlyAtItsEnd() throws IOException {
        Path big = chat("big.jsonl", 2500);
        Path small = chat("small.jsonl", 3);
        long bigSize = Files.size(big);
        long smallSize = Files.size(small);
        assertThat(bigSize).as("several progress steps").isGreaterThan(8 * Resume.PROGRESS_STEP);

        Heard heard = new Heard();
        IndexReport report = Indexer.builder(new InMemoryStore()).passages(false).listener(heard).build()
                .index(List.of(big, small));
        assertThat(report.filesIndexed()).isEqualTo(2);

        List<IndexListener.Progress> first = heard.progress(big);
        List<IndexListener.Progress> reading = first.stream().filter(p -> p.filePosition() < bigSize).toList();
        assertThat(reading).as("told before the file's end").hasSizeGreaterThanOrEqualTo(
                (int) (bigSize / Resume.PROGRESS_STEP) - 1);
        for (int i = 1; i < first.size(); i++) {
            IndexListener.Progress before = first.get(i - 1);
            IndexListener.Progress after = first.get(i);
            assertThat(after.filePosition()).as("bytes read grow").isGreaterThan(before.filePosition());
            assertThat(after.filePosition() - before.filePosition()).isLessThanOrEqualTo(Resume.PROGRESS_STEP + 4096);
            assertThat(after.memories()).as("memories given never shrink").isGreaterThanOrEqualTo(before.memories());
        }
        assertThat(reading.get(reading.size() / 2).memories()).as("memories given while the file is read")
                .isPositive().isLessThan(2500);
        // Which files are sorted first is the walk's business: the files' figures add in that order.
        IndexListener.Progress doneBig = first.get(first.size() - 1);
        List<IndexListener.Progress> second = heard.progress(small);
        IndexListener.Progress doneSmall = second.get(second.size() - 1);
        assertThat(doneBig.filePosition()).isEqualTo(bigSize);
        assertThat(doneBig.fileSize()).isEqualTo(bigSize);
        assertThat(doneSmall.filePosition()).isEqualTo(smallSize);
        assertThat(first).allMatch(p -> p.size() == bigSize + smallSize);
        assertThat(Math.max(doneBig.position(), doneSmall.position())).isEqualTo(bigSize + smallSize);
        assertThat(Math.max(doneBig.memories(), doneSmall.memories())).isEqualTo(2503);
        assertThat(heard.events).as("the big file's progress comes before it is told finished")
                .containsSubsequence(reading.get(0), doneBig, "INDEXED big.jsonl 2500");

        // Read again: nothing changed, each file counts whole as it is looked at, no memory is given.
        Heard again = new Heard();
        InMemoryStore store = new InMemoryStore();
        Indexer.builder(store).passages(false).build().index(List.of(big, small));
        Indexer.builder(store).passages(false).listener(again).build().index(List.of(big, small));
        assertThat(again.progress(big)).singleElement().satisfies(p -> {
            assertThat(p.filePosition()).isEqualTo(bigSize);
            assertThat(p.memories()).isZero();
        });
    }

    @Test
    void aListenerThatThrowsWhileALogIsReadEndsTheIndexingWithItsException() {
        Path big = chat("big.jsonl", 1000);
        IllegalStateException stop = new IllegalStateException("stop here");
        IndexListener throwing = new IndexListener() {
            @Override
            public void progress(Progress progress) {
                if (progress.filePosition() < progress.fileSize()) {
                    throw stop;
                }
            }
        };
        assertThatThrownBy(() -> Indexer.builder(new InMemoryStore()).passages(false).listener(throwing).build()
                .index(List.of(big))).isSameAs(stop);
    }
}
