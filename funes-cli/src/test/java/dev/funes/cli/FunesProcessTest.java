package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process harness of the multi-process tests: a child it starts stops on Ctrl-C (SIGINT) even
 * when the build that runs the tests was started with SIGINT ignored, as {@code mvn verify &} in
 * a script is. Without that, {@code funes watch} in {@link BusyStoreTest} and
 * {@link ConcurrentProcessesTest} ignored {@code kill -INT} and the tests waited out their patience.
 */
class FunesProcessTest {

    /** A guard against a hang, not a timing expectation. */
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    @Test
    void aChildStopsOnCtrlCWhenTheBuildIgnoresIt(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/bin/sh")), "skipped: no /bin/sh");
        assumeTrue(FunesProcess.DEFAULT_INTERRUPT,
                "skipped: this system's env has no --default-signal (GNU coreutils 8.31+)");
        // A shell that ignores SIGINT and execs the child, as a background build passes it on.
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "trap '' INT; exec \"$@\"", "sh"));
        command.addAll(FunesProcess.command(LockHolderMain.class, "64m", tmp.toString()));
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            var out = new java.io.BufferedReader(new java.io.InputStreamReader(child.getInputStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("LOCKED"); // the JVM runs: its signal handlers are set up

            Process kill = new ProcessBuilder("kill", "-INT", String.valueOf(child.pid())).inheritIO().start();
            assertThat(kill.waitFor()).isZero();

            assertThat(child.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS))
                    .as("the child exits on SIGINT (it holds the lock until stdin gives a line, which never comes)")
                    .isTrue();
            assertThat(child.exitValue()).as("exit status of a JVM stopped by SIGINT").isEqualTo(130);
        } finally {
            child.destroyForcibly();
            child.waitFor();
        }
    }
}
