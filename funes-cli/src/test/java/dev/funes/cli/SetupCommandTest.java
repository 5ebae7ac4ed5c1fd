package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes setup} against temporary homes holding the agents' config files in their real
 * formats, with other MCP servers and settings already there: only Funes's entries are added,
 * every other byte stays, the diff is shown, a second run and a dry run write nothing, and
 * {@code --undo} gives back the original bytes.
 */
class SetupCommandTest {

    static final String LAUNCHER = "/opt/funes/bin/funes";

    /** A ~/.claude.json as Claude Code writes it (JSON.stringify, two spaces), one user-scope server. */
    static final String CLAUDE_JSON = """
            {
              "numStartups": 42,
              "installMethod": "native",
              "autoUpdates": true,
              "theme": "dark",
              "projects": {
                "/home/dev/ledger-sync": {
                  "allowedTools": [],
                  "mcpServers": {},
                  "hasTrustDialogAccepted": true
                }
              },
              "mcpServers": {
                "context7": {
                  "type": "stdio",
                  "command": "npx",
                  "args": [
                    "-y",
                    "@upstash/context7-mcp"
                  ],
                  "env": {}
                }
              },
              "userID": "5be1d0c6a3f04e8f"
            }""";

    static final String CLAUDE_JSON_AFTER = """
            {
              "numStartups": 42,
              "installMethod": "native",
              "autoUpdates": true,
              "theme": "dark",
              "projects": {
                "/home/dev/ledger-sync": {
                  "allowedTools": [],
                  "mcpServers": {},
                  "hasTrustDialogAccepted": true
                }
              },
              "mcpServers": {
                "context7": {
                  "type": "stdio",
                  "command": "npx",
                  "args": [
                    "-y",
                    "@upstash/context7-mcp"
                  ],
                  "env": {}
                },
                "funes": {
                  "type": "stdio",
                  "command": "/opt/funes/bin/funes",
                  "args": [
                    "mcp"
                  ],
                  "env": {}
                }
              },
              "userID": "5be1d0c6a3f04e8f"
            }""";

    /** ~/.claude/settings.json with permissions and a hook of the user's own. */
    static final String CLAUDE_SETTINGS = """
            {
              "permissions": {
                "allow": ["Bash(npm run test:*)", "Read(~/notes/**)"]
              },
              "hooks": {
                "PreToolUse": [
                  {
                    "matcher": "Bash",
                    "hooks": [
                      { "type": "command", "command": "~/.claude/guard.sh" }
                    ]
                  }
                ]
              },
              "model": "opus"
            }
            """;

    static final String CLAUDE_SETTINGS_AFTER = """
            {
              "permissions": {
                "allow": ["Bash(npm run test:*)", "Read(~/notes/**)"]
              },
              "hooks": {
                "PreToolUse": [
                  {
                    "matcher": "Bash",
                    "hooks": [
                      { "type": "command", "command": "~/.claude/guard.sh" }
                    ]
                  }
                ],
                "SessionEnd": [
                  {
                    "hooks": [
                      {
                        "type": "command",
                        "command": "/opt/funes/bin/funes hook claude-code"
                      }
                    ]
                  }
                ]
              },
              "model": "opus"
            }
            """;

    /** ~/.codex/config.toml with a stdio server, an HTTP server and a trusted project. */
    static final String CODEX_TOML = """
            model = "gpt-5-codex"
            approval_policy = "on-request"   # ask before leaving the sandbox

            [mcp_servers.context7]
            command = "npx"
            args = ["-y", "@upstash/context7-mcp"]

            [mcp_servers.figma]
            url = "https://mcp.figma.com/mcp"
            bearer_token_env_var = "FIGMA_OAUTH_TOKEN"

            [projects."/home/dev/ledger-sync"]
            trust_level = "trusted"
            """;

    static final String CODEX_TOML_AFTER = CODEX_TOML + """

            [mcp_servers.funes]
            command = "/opt/funes/bin/funes"
            args = ["mcp"]
            """;

    /** ~/.gemini/settings.json: Gemini CLI strips comments from it, so it may hold some. */
    static final String GEMINI_SETTINGS = """
            {
                "theme": "GitHub",
                "selectedAuthType": "gemini-api-key",
                // servers shared with the team
                "mcpServers": {
                    "github": {
                        "httpUrl": "https://api.githubcopilot.com/mcp/",
                        "headers": { "Authorization": "Bearer $GITHUB_PAT" }
                    }
                }
            }
            """;

    static final String GEMINI_SETTINGS_AFTER = """
            {
                "theme": "GitHub",
                "selectedAuthType": "gemini-api-key",
                // servers shared with the team
                "mcpServers": {
                    "github": {
                        "httpUrl": "https://api.githubcopilot.com/mcp/",
                        "headers": { "Authorization": "Bearer $GITHUB_PAT" }
                    },
                    "funes": {
                        "command": "/opt/funes/bin/funes",
                        "args": [
                            "mcp"
                        ]
                    }
                }
            }
            """;

    @TempDir
    Path home;

    @BeforeEach
    void noOverridingEnvironment() {
        // These would point setup at the account's real files, or add --store to every entry.
        assumeTrue(System.getenv("CODEX_HOME") == null, "skipped: CODEX_HOME is set");
        assumeTrue(System.getenv("CLAUDE_CONFIG_DIR") == null, "skipped: CLAUDE_CONFIG_DIR is set");
        assumeTrue(System.getenv("FUNES_HOME") == null, "skipped: FUNES_HOME is set");
    }

    @Test
    void setupAllAddsOnlyFunesEntriesShowsTheDiffAndUndoRestoresTheBytes() throws IOException {
        writeAgentConfigs();
        Map<Path, String> original = snapshot();

        CliTest.Result setup = setup("all");
        assertThat(setup.status()).as(setup.err()).isZero();
        assertThat(read(".claude.json")).isEqualTo(CLAUDE_JSON_AFTER);
        assertThat(read(".claude/settings.json")).isEqualTo(CLAUDE_SETTINGS_AFTER);
        assertThat(read(".codex/config.toml")).isEqualTo(CODEX_TOML_AFTER);
        assertThat(read(".gemini/settings.json")).isEqualTo(GEMINI_SETTINGS_AFTER);
        String unit = read(".config/systemd/user/funes-watch.service");
        assertThat(unit).contains("\nExecStart=/opt/funes/bin/funes watch\n", "\nWantedBy=default.target\n",
                "\nEnvironment=JAVA_HOME=" + System.getProperty("java.home") + "\n");

        // The diff of each file, before it is written.
        assertThat(setup.out()).contains(
                "--- " + home.resolve(".claude.json") + "\n+++ " + home.resolve(".claude.json") + "\n",
                "+    \"funes\": {\n+      \"type\": \"stdio\",\n+      \"command\": \"/opt/funes/bin/funes\",\n",
                "+            \"command\": \"/opt/funes/bin/funes hook claude-code\"\n",
                "+[mcp_servers.funes]\n+command = \"/opt/funes/bin/funes\"\n+args = [\"mcp\"]\n",
                "--- /dev/null\n+++ " + home.resolve(".config/systemd/user/funes-watch.service") + "\n",
                "systemctl --user daemon-reload && systemctl --user enable --now funes-watch.service");
        // A backup of each file that was there, with its original bytes.
        for (Map.Entry<Path, String> e : original.entrySet()) {
            List<Path> backups = backups(e.getKey());
            assertThat(backups).as("backup of " + e.getKey()).hasSize(1);
            assertThat(Files.readString(backups.get(0))).isEqualTo(e.getValue());
        }

        Map<Path, String> setUp = snapshot();
        CliTest.Result again = setup("all");
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.out()).contains("nothing to change: Funes is set up for claude-code, codex, gemini already")
                .doesNotContain("+++");
        assertThat(snapshot()).as("a second run writes nothing, not even a backup").isEqualTo(setUp);

        CliTest.Result undo = setup("all", "--undo");
        assertThat(undo.status()).as(undo.err()).isZero();
        assertThat(undo.out()).contains("-    \"funes\": {", "systemctl --user stop funes-watch.service");
        for (Map.Entry<Path, String> e : original.entrySet()) {
            assertThat(Files.readString(e.getKey())).as("after --undo: " + e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(home.resolve(".config/systemd/user/funes-watch.service")).doesNotExist();

        CliTest.Result undoAgain = setup("all", "--undo");
        assertThat(undoAgain.out()).contains("nothing to undo");
    }

    @Test
    void dryRunShowsTheDiffsAndWritesNothing() throws IOException {
        writeAgentConfigs();
        Map<Path, String> before = snapshot();

        CliTest.Result dry = setup("all", "--dry-run");
        assertThat(dry.status()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("+    \"funes\": {", "+[mcp_servers.funes]", "dry run: nothing was written");
        assertThat(dry.out()).doesNotContain("restart the agent");
        assertThat(snapshot()).as("no file written, no backup").isEqualTo(before);
        assertThat(home.resolve(".config/systemd/user/funes-watch.service")).doesNotExist();
    }

    @Test
    void anEmptyHomeGetsNewFilesThatTheAgentsCanReadAndUndoRemovesThem() throws IOException {
        CliTest.Result setup = setup("all");
        assertThat(setup.status()).as(setup.err()).isZero();

        JsonNode claude = HitJson.MAPPER.readTree(read(".claude.json"));
        assertThat(claude.at("/mcpServers/funes").toString())
                .isEqualTo("{\"type\":\"stdio\",\"command\":\"/opt/funes/bin/funes\",\"args\":[\"mcp\"],\"env\":{}}");
        JsonNode hooks = HitJson.MAPPER.readTree(read(".claude/settings.json"));
        assertThat(hooks.at("/hooks/SessionEnd/0/hooks/0/command").asText()).isEqualTo("/opt/funes/bin/funes hook claude-code");
        assertThat(hooks.at("/hooks/SessionEnd/0/hooks/0/type").asText()).isEqualTo("command");
        JsonNode gemini = HitJson.MAPPER.readTree(read(".gemini/settings.json"));
        assertThat(gemini.at("/mcpServers/funes").toString()).isEqualTo("{\"command\":\"/opt/funes/bin/funes\",\"args\":[\"mcp\"]}");
        assertThat(read(".codex/config.toml")).isEqualTo("[mcp_servers.funes]\ncommand = \"/opt/funes/bin/funes\"\nargs = [\"mcp\"]\n");
        assertThat(setup.out()).contains("--- /dev/null\n+++ " + home.resolve(".claude.json"));

        CliTest.Result undo = setup("all", "--undo");
        assertThat(undo.status()).as(undo.err()).isZero();
        for (String file : List.of(".claude.json", ".claude/settings.json", ".codex/config.toml", ".gemini/settings.json",
                ".config/systemd/user/funes-watch.service")) {
            assertThat(home.resolve(file)).as("created by setup, removed by --undo").doesNotExist();
        }
    }

    @Test
    void aMalformedSettingsFileIsNamedWithItsLineAndNothingIsWritten() throws IOException {
        writeAgentConfigs();
        String broken = "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\",]\n  }\n}\n";
        Files.writeString(home.resolve(".claude/settings.json"), broken);
        Map<Path, String> before = snapshot();

        CliTest.Result setup = setup("all");
        assertThat(setup.status()).isEqualTo(1);
        assertThat(setup.err()).contains("funes: " + home.resolve(".claude/settings.json") + ":3:", "not valid JSON");
        assertThat(snapshot()).as("no file of any agent written").isEqualTo(before);
        assertThat(Files.readString(home.resolve(".claude/settings.json"))).isEqualTo(broken);
    }

    @Test
    void aMalformedCodexConfigIsNamedWithItsLine() throws IOException {
        Path config = Files.createDirectories(home.resolve(".codex")).resolve("config.toml");
        String broken = "model = \"o3\"\n\n[mcp_servers.context7\ncommand = \"npx\"\n";
        Files.writeString(config, broken);

        CliTest.Result setup = setup("codex");
        assertThat(setup.status()).isEqualTo(1);
        assertThat(setup.err()).contains(config + ":3: not valid TOML");
        assertThat(Files.readString(config)).isEqualTo(broken);
        assertThat(backups(config)).isEmpty();
    }

    @Test
    void aNewLauncherPathReplacesOnlyTheCommandInEachFile() throws IOException {
        writeAgentConfigs();
        assertThat(setup("all").status()).isZero();

        CliTest.Result moved = funesAt(home, "setup", "all", "--launcher", "/usr/local/bin/funes", "--service", "systemd");
        assertThat(moved.status()).as(moved.err()).isZero();
        assertThat(read(".claude.json")).isEqualTo(CLAUDE_JSON_AFTER.replace(LAUNCHER, "/usr/local/bin/funes"));
        assertThat(read(".claude/settings.json")).isEqualTo(CLAUDE_SETTINGS_AFTER.replace(LAUNCHER, "/usr/local/bin/funes"));
        assertThat(read(".codex/config.toml")).isEqualTo(CODEX_TOML_AFTER.replace(LAUNCHER, "/usr/local/bin/funes"));
        assertThat(read(".gemini/settings.json")).isEqualTo(GEMINI_SETTINGS_AFTER.replace(LAUNCHER, "/usr/local/bin/funes"));
        assertThat(moved.out()).contains("-command = \"/opt/funes/bin/funes\"\n+command = \"/usr/local/bin/funes\"\n");
    }

    @Test
    void undoingOneAgentKeepsTheWatchServiceAnotherStillUses() throws IOException {
        assertThat(setup("codex").status()).isZero();
        assertThat(setup("gemini").status()).isZero();
        Path unit = home.resolve(".config/systemd/user/funes-watch.service");

        CliTest.Result undoCodex = setup("codex", "--undo");
        assertThat(undoCodex.status()).as(undoCodex.err()).isZero();
        assertThat(home.resolve(".codex/config.toml")).doesNotExist();
        assertThat(unit).as("Gemini CLI is still set up and needs the watch").exists();

        CliTest.Result undoGemini = setup("gemini", "--undo");
        assertThat(undoGemini.status()).as(undoGemini.err()).isZero();
        assertThat(unit).doesNotExist();
    }

    @Test
    void onMacOsTheWatchIsALaunchAgent() throws IOException {
        CliTest.Result setup = funesAt(home, "setup", "codex", "--launcher", LAUNCHER, "--service", "launchd");
        assertThat(setup.status()).as(setup.err()).isZero();
        String plist = read("Library/LaunchAgents/dev.funes.watch.plist");
        assertThat(plist).contains("<key>Label</key>\n  <string>dev.funes.watch</string>",
                "<array>\n    <string>/opt/funes/bin/funes</string>\n    <string>watch</string>\n  </array>",
                "<key>RunAtLoad</key>\n  <true/>");
        assertThat(setup.out()).contains("launchctl bootstrap gui/$(id -u) " + home.resolve("Library/LaunchAgents/dev.funes.watch.plist"));
        assertThat(home.resolve(".config/systemd")).doesNotExist();
    }

    @Test
    void aStoreOtherThanTheDefaultIsPassedToEveryCommand() throws IOException {
        Path store = home.resolve("memory store");
        CliTest.Result setup = funesAt(home, "setup", "claude-code", "--launcher", LAUNCHER, "--store", store.toString());
        assertThat(setup.status()).as(setup.err()).isZero();
        assertThat(HitJson.MAPPER.readTree(read(".claude.json")).at("/mcpServers/funes/args").toString())
                .isEqualTo("[\"mcp\",\"--store\",\"" + store + "\"]");
        assertThat(HitJson.MAPPER.readTree(read(".claude/settings.json")).at("/hooks/SessionEnd/0/hooks/0/command").asText())
                .isEqualTo("/opt/funes/bin/funes hook claude-code --store '" + store + "'");
    }

    @Test
    void claudeConfigDirDecidesWhereClaudeCodesFilesAre() throws Exception {
        Path claudeDir = Files.createDirectories(home.resolve("claude-work"));
        Files.writeString(claudeDir.resolve(".claude.json"), CLAUDE_JSON);
        List<String> command = new ArrayList<>(List.of("env", "-u", "FUNES_HOME", "HOME=" + home,
                "CLAUDE_CONFIG_DIR=" + claudeDir));
        command.addAll(FunesProcess.command(Main.class, "256m", "setup", "claude-code", "--launcher", LAUNCHER));
        FunesProcess setup = FunesProcess.startCommand(command);
        setup.closeStdin();
        setup.waitFor(java.time.Duration.ofMinutes(2));
        assertThat(setup.status()).as(setup.describe("setup claude-code with CLAUDE_CONFIG_DIR")).isZero();
        assertThat(Files.readString(claudeDir.resolve(".claude.json"))).isEqualTo(CLAUDE_JSON_AFTER);
        assertThat(Files.readString(claudeDir.resolve("settings.json"))).contains("/opt/funes/bin/funes hook claude-code");
        assertThat(home.resolve(".claude.json")).as("the default place is left alone").doesNotExist();
        assertThat(home.resolve(".claude")).doesNotExist();
    }

    @Test
    void anUnknownAgentIsBadUsage() {
        CliTest.Result setup = funesAt(home, "setup", "cursor");
        assertThat(setup.status()).isEqualTo(2);
        assertThat(setup.err()).contains("unknown agent 'cursor'; one of: claude-code, codex, gemini, all");
    }

    private CliTest.Result setup(String... args) {
        List<String> all = new ArrayList<>(List.of("setup"));
        all.addAll(List.of(args));
        all.addAll(List.of("--launcher", LAUNCHER, "--service", "systemd"));
        return funesAt(home, all.toArray(String[]::new));
    }

    /**
     * {@code funes ARGS} in this JVM with {@code user.home} at {@code home}, as {@code Main}
     * sets it from {@code $HOME}; tests of this module run one at a time.
     */
    static CliTest.Result funesAt(Path home, String... args) {
        String saved = System.getProperty("user.home");
        System.setProperty("user.home", home.toString());
        try {
            return CliTest.funes(args);
        } finally {
            System.setProperty("user.home", saved);
        }
    }

    private void writeAgentConfigs() throws IOException {
        Files.writeString(home.resolve(".claude.json"), CLAUDE_JSON);
        Files.writeString(Files.createDirectories(home.resolve(".claude")).resolve("settings.json"), CLAUDE_SETTINGS);
        Files.writeString(Files.createDirectories(home.resolve(".codex")).resolve("config.toml"), CODEX_TOML);
        Files.writeString(Files.createDirectories(home.resolve(".gemini")).resolve("settings.json"), GEMINI_SETTINGS);
    }

    private String read(String file) throws IOException {
        return Files.readString(home.resolve(file), StandardCharsets.UTF_8);
    }

    /** Every file under the home and its text. */
    private Map<Path, String> snapshot() throws IOException {
        Map<Path, String> files = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(home)) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                files.put(p, Files.readString(p));
            }
        }
        return files;
    }

    private static List<Path> backups(Path file) throws IOException {
        try (Stream<Path> list = Files.list(file.getParent())) {
            return list.filter(p -> p.getFileName().toString().startsWith(file.getFileName() + ".funes-backup-")).toList();
        }
    }
}
