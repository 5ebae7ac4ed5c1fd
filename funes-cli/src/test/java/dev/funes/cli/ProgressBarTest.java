package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.ingest.IndexListener.Progress;
import dev.funes.ingest.IndexProblem;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What {@code funes index} writes on stderr as it reads, driven by the indexer's progress events
 * and a clock the test sets: plain lines when stderr is not a terminal (one per tenth of the bytes
 * read, at least five seconds apart, none for a short run), a redrawn line on a terminal.
 */
class ProgressBarTest {

    private static final long MIB = 1 << 20;
    private static final Path BIG = Path.of("/logs/big.jsonl");
    private static final Path SMALL = Path.of("/logs/small.jsonl");

    private final StringWriter text = new StringWriter();
    private long now = 1_000_000_000_000L;

    private ProgressBar bar(boolean terminal) {
        return new ProgressBar(new PrintWriter(text), terminal, () -> now);
    }

    private void at(double seconds) {
        now = 1_000_000_000_000L + (long) (seconds * 1e9);
    }

    @Test
    void withoutATerminalALineNowAndThenWithBytesRateAndTimeLeft() {
        try (ProgressBar bar = bar(false)) {
            at(1);
            bar.progress(new Progress(SMALL, 512, 512, 512, 10 * MIB + 512, 2));
            at(2);
            bar.progress(new Progress(BIG, 4 * MIB, 10 * MIB, 4 * MIB + 512, 10 * MIB + 512, 60));
            at(6);
            bar.progress(new Progress(BIG, 5 * MIB, 10 * MIB, 5 * MIB + 512, 10 * MIB + 512, 110));
            at(8);
            bar.progress(new Progress(BIG, 5 * MIB + 100_000, 10 * MIB, 5 * MIB + 100_512, 10 * MIB + 512, 115));
            bar.problem(new IndexProblem(BIG, 1234, "malformed JSON"));
            at(9);
            bar.progress(new Progress(BIG, 7 * MIB, 10 * MIB, 7 * MIB + 512, 10 * MIB + 512, 150));
            at(20);
            bar.progress(new Progress(BIG, 10 * MIB, 10 * MIB, 10 * MIB + 512, 10 * MIB + 512, 202));
        }
        assertThat(text.toString()).isEqualTo(String.join("\n",
                "indexing: 50% of 10.0 MiB, big.jsonl 5.0 MiB of 10.0 MiB, 110 memories (18/s), 6s left",
                "warning: " + BIG + ":1234: malformed JSON",
                "indexing: 100% of 10.0 MiB, big.jsonl 10.0 MiB of 10.0 MiB, 202 memories (10/s)",
                ""));
    }

    @Test
    void withoutATerminalAShortRunPrintsOnlyItsProblems() {
        try (ProgressBar bar = bar(false)) {
            at(0.5);
            bar.progress(new Progress(BIG, MIB, 2 * MIB, MIB, 2 * MIB, 10));
            bar.problem(new IndexProblem(BIG, 7, "not an object"));
            at(3);
            bar.progress(new Progress(BIG, 2 * MIB, 2 * MIB, 2 * MIB, 2 * MIB, 20));
        }
        assertThat(text.toString()).isEqualTo("warning: " + BIG + ":7: not an object\n");
    }

    @Test
    void onATerminalOneLineRedrawnAtMostTenTimesASecondAndClearedForProblemsAndAtTheEnd() {
        try (ProgressBar bar = bar(true)) {
            at(2);
            bar.progress(new Progress(BIG, 3 * MIB, 10 * MIB, 3 * MIB, 10 * MIB, 30));
            at(2.05);
            bar.progress(new Progress(BIG, 3 * MIB + 1, 10 * MIB, 3 * MIB + 1, 10 * MIB, 31)); // too soon: not drawn
            bar.problem(new IndexProblem(BIG, 9, "line too long"));
            at(4);
            bar.progress(new Progress(BIG, 6 * MIB, 10 * MIB, 6 * MIB, 10 * MIB, 61));
        }
        assertThat(text.toString()).isEqualTo(
                "\r\033[K[######..............] 30% of 10.0 MiB · big.jsonl 3.0 MiB/10.0 MiB · 30 memories (15/s) · 5s left"
                        + "\r\033[Kwarning: " + BIG + ":9: line too long\n"
                        + "\r\033[K[############........] 60% of 10.0 MiB · big.jsonl 6.0 MiB/10.0 MiB · 61 memories (15/s) · 3s left"
                        + "\r\033[K");
    }

    @Test
    void sizesAndDurationsRead() {
        assertThat(ProgressBar.bytes(512)).isEqualTo("0.5 KiB");
        assertThat(ProgressBar.bytes(1536 * 1024)).isEqualTo("1.5 MiB");
        assertThat(ProgressBar.bytes(1L << 30)).isEqualTo("1024.0 MiB");
        assertThat(ProgressBar.duration(Duration.ofSeconds(42))).isEqualTo("42s");
        assertThat(ProgressBar.duration(Duration.ofSeconds(185))).isEqualTo("3m05s");
        assertThat(ProgressBar.duration(Duration.ofSeconds(7620))).isEqualTo("2h07m");
    }
}
