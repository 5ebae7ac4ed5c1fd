package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Claude Code hook {@code funes setup claude-code} installs, run as Claude Code runs it: the
 * command written in {@code settings.json}, through a shell, with the hook's JSON input on stdin,
 * in a process whose {@code $HOME} is a temporary folder. It indexes the session's transcript
 * into the default store, where search and stats find it.
 */
class HookCommandTest {

    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final String SESSION = "67a8478e-78dc-44ab-82ea-f65c8ead85f6";

    @Test
    void theInstalledSessionEndHookIndexesTheTranscriptItIsGiven(@TempDir Path home) throws Exception {
        CliTest.assumeFixtures();
        assumeTrue(System.getenv("CODEX_HOME") == null, "skipped: CODEX_HOME is set");
        Path transcript = Files.createDirectories(home.resolve("transcripts")).resolve(SESSION + ".jsonl");
        Files.copy(CliTest.CLAUDE_FIXTURES.resolve("episodic-memory-tiny.jsonl"), transcript);
        Path launcher = launcher(home);

        CliTest.Result setup = SetupCommandTest.funesAt(home, "setup", "claude-code", "--launcher", launcher.toString());
        assertThat(setup.status()).as(setup.err()).isZero();
        String command = HitJson.MAPPER.readTree(Files.readString(home.resolve(".claude/settings.json")))
                .at("/hooks/SessionEnd/0/hooks/0/command").asText();
        assertThat(command).isEqualTo(launcher + " hook claude-code");

        String payload = HitJson.MAPPER.writeValueAsString(HitJson.MAPPER.createObjectNode()
                .put("session_id", SESSION)
                .put("transcript_path", transcript.toString())
                .put("cwd", "/Users/testuser/Documents/GitHub/projects/example-project")
                .put("permission_mode", "default")
                .put("hook_event_name", "SessionEnd")
                .put("reason", "prompt_input_exit"));
        FunesProcess hook = runHook(home, command, payload);
        assertThat(hook.status()).as(hook.describe("the SessionEnd hook")).isZero();
        assertThat(hook.out()).contains("1 file: 1 indexed");

        Path store = home.resolve(".funes");
        CliTest.Result stats = CliTest.funes("stats", "--store", store.toString(), "--json");
        assertThat(stats.status()).as(stats.err()).isZero();
        JsonNode json = stats.json();
        assertThat(json.path("sessions").asInt()).as(stats.out()).isEqualTo(1);
        CliTest.Result search = CliTest.funes("search", "--store", store.toString(), "--retrieval", "lexical", "--json",
                "tentative instructions");
        assertThat(search.status()).as(search.err()).isZero();
        assertThat(search.json().get(0).path("session").asText()).as(search.out()).isEqualTo(SESSION);
        assertThat(search.json().get(0).at("/source/path").asText()).endsWith("transcripts/" + SESSION + ".jsonl");

        // The session ends again after a resume: the log is unchanged, nothing new is stored.
        FunesProcess again = runHook(home, command, payload);
        assertThat(again.status()).as(again.describe("the hook, again")).isZero();
        assertThat(again.out()).contains("1 unchanged");
    }

    @Test
    void inputThatIsNotAHookPayloadIsAClearError(@TempDir Path home) throws Exception {
        Path launcher = launcher(home);
        // The input ends after its first line, in the middle of the object.
        FunesProcess notJson = runHook(home, launcher + " hook claude-code", "{\"session_id\": ");
        assertThat(notJson.status()).isEqualTo(1);
        assertThat(notJson.err()).contains("funes: stdin:2: the hook's input is not JSON");

        FunesProcess noPath = runHook(home, launcher + " hook claude-code", "{\"session_id\": \"s\", \"hook_event_name\": \"Stop\"}");
        assertThat(noPath.status()).isEqualTo(1);
        assertThat(noPath.err()).contains("funes: the hook's input on stdin has no transcript_path");
        assertThat(home.resolve(".funes")).as("no store made for nothing").doesNotExist();
    }

    /** A launcher script in the temporary home that runs this module's {@code funes}, as bin/funes would. */
    private static Path launcher(Path home) throws IOException {
        Path script = Files.createDirectories(home.resolve("bin")).resolve("funes");
        List<String> words = new ArrayList<>();
        FunesProcess.command(Main.class, "384m").forEach(w -> words.add(SetupCommand.shellWord(w)));
        Files.writeString(script, "#!/bin/sh\nexec " + String.join(" ", words) + " \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    /** Runs a hook command as Claude Code does: through a shell, the input on stdin, then stdin closed. */
    private static FunesProcess runHook(Path home, String command, String input) throws Exception {
        FunesProcess process = FunesProcess.startCommand(List.of("env", "-u", "FUNES_HOME", "HOME=" + home, "sh", "-c", command));
        process.send(input);
        process.closeStdin();
        process.waitFor(PATIENCE);
        return process;
    }
}
