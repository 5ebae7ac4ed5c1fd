package dev.funes.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
    void defaultRootsFollowTheAgentsConfigVariables() throws Exception {
        Path claudeHome = Files.createDirectories(home.resolve("claude-config").resolve("projects"));
        Path codexHome = Files.createDirectories(home.resolve("codex-home").resolve("sessions"));
        Path archived = Files.createDirectories(home.resolve("codex-home").resolve("archived_sessions"));
        Files.createDirectories(home.resolve(".codex").resolve("sessions"));

        assertThat(AgentLogs.defaultRoots(java.util.Map.of("CLAUDE_CONFIG_DIR", home.resolve("claude-config").toString(),
                "CODEX_HOME", home.resolve("codex-home").toString()), home)).containsExactly(claudeHome, codexHome, archived);
    }

    @Test
    void defaultRootsHoldEveryAgentsFolderThatExists() throws Exception {
        assertThat(AgentLogs.defaultRoots(java.util.Map.of(), home)).isEmpty();

        Path codex = Files.createDirectories(home.resolve(".codex").resolve("sessions"));
        Path claude = Files.createDirectories(home.resolve(".claude").resolve("projects"));
        Path gemini = Files.createDirectories(home.resolve(".gemini").resolve("tmp"));
        Path cline = Files.createDirectories(home.resolve(".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks"));
        Path roo = Files.createDirectories(home.resolve("Library/Application Support/Cursor/User/globalStorage")
                .resolve("rooveterinaryinc.roo-cline/tasks"));

        assertThat(AgentLogs.defaultRoots(java.util.Map.of(), home)).containsExactly(claude, codex, gemini, cline, roo);
    }

    @Test
    void specificFormatsComeFirstThenPluginsThenTheGenericOne() {
        List<LogFormat> specific = List.of(AgentLogs.claudeCode(), AgentLogs.codex(), AgentLogs.aider(), AgentLogs.gemini(),
                AgentLogs.cline(), AgentLogs.openHands(), AgentLogs.sweAgent());
        List<LogFormat> all = AgentLogs.formats();

        assertThat(all.subList(0, specific.size())).isEqualTo(specific);
        assertThat(all.get(specific.size()).name()).isEqualTo("test-notes");
        assertThat(all.get(all.size() - 1)).isSameAs(AgentLogs.generic());
        assertThat(AgentLogs.formats(ClassLoader.getPlatformClassLoader()))
                .containsExactlyElementsOf(java.util.stream.Stream.concat(specific.stream(), java.util.stream.Stream.of(AgentLogs.generic())).toList());
    }

    @Test
    void problemsPrintAsFileLineMessage() {
        Path file = home.resolve("s.jsonl");

        assertThat(new IndexProblem(file, 12, "malformed JSON")).hasToString(file + ":12: malformed JSON");
        assertThat(new IndexProblem(file, 0, "file not found")).hasToString(file + ": file not found");
    }
}
