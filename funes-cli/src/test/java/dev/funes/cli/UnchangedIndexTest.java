package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes index} of logs the store holds unchanged opens neither the dense index (no JVector
 * class), nor an {@code ObjectMapper}, nor java.util.logging; a log whose modification time
 * changed is read again, which opens the index, and JVector's start-up messages stay quiet. Real
 * processes, their class-loading logs read.
 */
class UnchangedIndexTest {

    private record Run(String output, String classes) {
    }

    private static Run index(Path tmp, String name, Path store, Path logs) throws Exception {
        Path classes = tmp.resolve(name + "-classes.log");
        List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m",
                "index", "--store", store.toString(), "--index-path", logs.toString()));
        command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + classes);
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        assertThat(out).as("JVector's start-up messages").doesNotContain("jbellis", "Vector API", "PhysicalCoreExecutor");
        return new Run(out, Files.readString(classes));
    }

    @Test
    void unchangedLogsOpenNoDenseIndexNorObjectMapperNorLoggingAndATouchedOneIsReadAgain(@TempDir Path tmp)
            throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Path log = Files.copy(WhyCommandTest.SAMPLE.resolve("sample-session.jsonl"), logs.resolve("session.jsonl"));
        Path store = tmp.resolve("store");

        Run first = index(tmp, "first", store, logs);
        assertThat(first.output()).contains("1 file: 1 indexed, 0 unchanged");
        assertThat(first.classes()).as("vectors were stored: the index opened").contains("io.github.jbellis.");

        Run unchanged = index(tmp, "unchanged", store, logs);
        assertThat(unchanged.output()).contains("1 file: 0 indexed, 1 unchanged");
        assertThat(unchanged.classes()).contains("dev.funes.ingest.Heads ")
                .doesNotContain("io.github.jbellis.")
                .doesNotContain("dev.funes.store.SegmentedIndex ")
                .doesNotContain("com.fasterxml.jackson.databind.ObjectMapper ")
                .doesNotContain("java.util.logging.LogManager ");
        assertThat(linkLine(unchanged.output())).isEqualTo(linkLine(first.output()).replaceAll(
                "[0-9]+ memories scanned; [0-9]+ new links", "0 memories scanned; 0 new links"));

        Files.setLastModifiedTime(log, FileTime.from(Files.getLastModifiedTime(log).toInstant().plusSeconds(1)));
        Run touched = index(tmp, "touched", store, logs);
        assertThat(touched.output()).contains("1 file: 1 indexed (1 resumed").contains(", 0 unchanged, 0 failed; 0 memories added");
        assertThat(touched.classes()).as("a write opens the index").contains("io.github.jbellis.");
    }

    private static String linkLine(String output) {
        return output.lines().filter(l -> l.startsWith("linked: ")).findFirst().orElseThrow();
    }
}
