package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes index} of logs the store holds unchanged opens neither the dense index (no JVector
 * class), nor an {@code ObjectMapper}, nor java.util.logging; a log whose modification time
 * changed is read again, which opens the index, and JVector's start-up messages stay quiet. Real
 * processes, their class-loading logs read.
 */
class UnchangedIndexTest {

    private static FunesProcess.ClassLog index(Path tmp, String name, Path store, Path logs) throws Exception {
        FunesProcess.ClassLog run = FunesProcess.runLoggingClasses(tmp.resolve(name + "-classes.log"),
                "index", "--store", store.toString(), "--index-path", logs.toString());
        assertThat(run.output()).as("JVector's start-up messages").doesNotContain("jbellis", "Vector API", "PhysicalCoreExecutor");
        return run;
    }

    @Test
    void unchangedLogsOpenNoDenseIndexNorObjectMapperNorLoggingAndATouchedOneIsReadAgain(@TempDir Path tmp)
            throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path log = Files.copy(WhyCommandTest.SAMPLE.resolve("sample-session.jsonl"), logs.resolve("session.jsonl"));
        Path store = tmp.resolve("store");

        FunesProcess.ClassLog first = index(tmp, "first", store, logs);
        assertThat(first.output()).contains("1 file: 1 indexed, 0 unchanged");
        assertThat(first.classes()).as("vectors were stored: the index opened").contains("io.github.jbellis.");

        FunesProcess.ClassLog unchanged = index(tmp, "unchanged", store, logs);
        assertThat(unchanged.output()).contains("1 file: 0 indexed, 1 unchanged");
        assertThat(unchanged.classes()).contains("dev.funes.ingest.Heads ")
                .doesNotContain("io.github.jbellis.")
                .doesNotContain("dev.funes.store.SegmentedIndex ")
                .doesNotContain("com.fasterxml.jackson.databind.ObjectMapper ")
                .doesNotContain("java.util.logging.LogManager ");
        assertThat(linkLine(unchanged.output())).isEqualTo(linkLine(first.output()).replaceAll(
                "[0-9]+ memories scanned; [0-9]+ new links", "0 memories scanned; 0 new links"));

        Files.setLastModifiedTime(log, FileTime.from(Files.getLastModifiedTime(log).toInstant().plusSeconds(1)));
        FunesProcess.ClassLog touched = index(tmp, "touched", store, logs);
        assertThat(touched.output()).contains("1 file: 1 indexed (1 resumed").contains(", 0 unchanged, 0 failed; 0 memories added");
        assertThat(touched.classes()).as("a write opens the index").contains("io.github.jbellis.");
    }

    private static String linkLine(String output) {
        return output.lines().filter(l -> l.startsWith("linked: ")).findFirst().orElseThrow();
    }
}
