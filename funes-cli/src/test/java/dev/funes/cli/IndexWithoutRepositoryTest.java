package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes index} of logs whose project folder is not on this machine (the sample session's)
 * links nothing and never loads JGit, whose signed jar the JVM verifies as it opens it; a real
 * process, its class-loading log read.
 */
class IndexWithoutRepositoryTest {

    @Test
    void indexingLogsOfAProjectWithNoRepositoryHereLoadsNoJGit(@TempDir Path tmp) throws Exception {
        assertThat(Path.of("/home/dev/projects/ledger-sync")).as("the sample session's project, absent here").doesNotExist();
        String store = tmp.resolve("store").toString();
        for (int run = 0; run < 2; run++) { // the first indexes the session, the second finds it unchanged
            Path classes = tmp.resolve("classes-" + run + ".log");
            List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m",
                    "index", "--store", store, "--index-path", WhyCommandTest.SAMPLE.toString()));
            command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + classes);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
            assertThat(process.exitValue()).as(out).isZero();
            assertThat(out).contains("linked: 0 repositories");
            String log = Files.readString(classes);
            assertThat(log).as("run %d indexed", run).contains("dev.funes.why.Linker ");
            assertThat(log).as("run %d loaded no JGit", run).doesNotContain("org.eclipse.jgit.").doesNotContain("dev.funes.why.GitHistory ");
        }
    }
}
