package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
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
            FunesProcess.ClassLog index = FunesProcess.runLoggingClasses(tmp.resolve("classes-" + run + ".log"),
                    "index", "--store", store, "--index-path", WhyCommandTest.SAMPLE.toString());
            assertThat(index.output()).contains("linked: 0 repositories");
            String log = index.classes();
            assertThat(log).as("run %d indexed", run).contains("dev.funes.why.Linker ");
            assertThat(log).as("run %d loaded no JGit", run).doesNotContain("org.eclipse.jgit.").doesNotContain("dev.funes.why.GitHistory ");
        }
    }
}
