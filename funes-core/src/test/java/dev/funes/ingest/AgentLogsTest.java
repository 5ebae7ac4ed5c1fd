package dev.funes.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class AgentLogsTest {

    @TempDir
    Path home;

    @Test
    void defaultRootsAreTheExistingClaudeProjectsFolderUnderUserHome() throws Exception {
        assumeTrue(System.getenv("CLAUDE_CONFIG_DIR") == null, "CLAUDE_CONFIG_DIR is set; it overrides user.home");
        String saved = System.getProperty("user.home");
        try {
            System.setProperty("user.home", home.toString());
            assertThat(AgentLogs.defaultRoots()).isEmpty();

            Path projects = Files.createDirectories(home.resolve(".claude").resolve("projects"));
            assertThat(AgentLogs.defaultRoots()).containsExactly(projects);
        } finally {
            System.setProperty("user.home", saved);
        }
    }

    @Test
    void builtInFormatComesFirst() {
        assertThat(AgentLogs.formats().get(0)).isSameAs(AgentLogs.claudeCode());
        assertThat(AgentLogs.formats(ClassLoader.getPlatformClassLoader())).containsExactly(AgentLogs.claudeCode());
    }

    @Test
    void problemsPrintAsFileLineMessage() {
        Path file = home.resolve("s.jsonl");

        assertThat(new IndexProblem(file, 12, "malformed JSON")).hasToString(file + ":12: malformed JSON");
        assertThat(new IndexProblem(file, 0, "file not found")).hasToString(file + ": file not found");
    }
}
