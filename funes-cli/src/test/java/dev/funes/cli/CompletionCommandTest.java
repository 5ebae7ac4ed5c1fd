package dev.funes.cli;

import static dev.funes.cli.CliTest.funes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code funes completion bash|zsh|fish}: each script is loaded by the real shell and asked for
 * completions, as the shell would ask while someone types. A shell that is not installed is
 * skipped with a message (bash always runs).
 */
class CompletionCommandTest {

    @TempDir
    Path tmp;

    private static Map<String, CommandLine> subcommands() {
        return Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter())).getSubcommands();
    }

    private Path script(String shell) throws IOException {
        CliTest.Result r = funes("completion", shell);
        assertThat(r.status()).as(r.err()).isZero();
        assertThat(r.err()).isEmpty();
        Path file = tmp.resolve("funes." + shell);
        Files.writeString(file, r.out(), StandardCharsets.UTF_8);
        return file;
    }

    private static boolean installed(String shell) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, shell))) {
                return true;
            }
        }
        return false;
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    /**
     * What bash completes for a command line ending in the word being typed. Run as bash runs a
     * completion function; its {@code compopt} call (only valid inside a real completion) fails
     * quietly on stderr.
     */
    private static List<String> bashCompletes(Path script, String line) throws IOException, InterruptedException {
        String out = run("bash", "-c", "source \"$1\"; fn=$(complete -p funes | sed -E 's/.* -F ([^ ]+) .*/\\1/');"
                + " COMP_LINE=\"$2\"; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< \"$2\";"
                + " case \"$2\" in *' ') COMP_WORDS+=('');; esac; COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ));"
                + " \"$fn\" funes \"${COMP_WORDS[$COMP_CWORD]}\" \"${COMP_WORDS[$COMP_CWORD-1]}\" 2>/dev/null;"
                + " printf '%s\\n' \"${COMPREPLY[@]}\"", "bash", script.toString(), line);
        return out.lines().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** What fish completes for a command line: each candidate, without its description. */
    private static List<String> fishCompletes(Path script, String line) throws IOException, InterruptedException {
        String out = run("fish", "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script.toString(), line);
        return out.lines().map(l -> l.split("\t", 2)[0].strip()).filter(s -> !s.isEmpty()).toList();
    }

    @Test
    void bashCompletesEveryCommandAndEveryOptionOfEachCommand() throws Exception {
        assumeTrue(installed("bash"), "skipped: bash is not installed");
        Path script = script("bash");
        assertThat(bashCompletes(script, "funes fo")).contains("forget");
        assertThat(bashCompletes(script, "funes ")).containsAll(subcommands().keySet());
        assertThat(bashCompletes(script, "funes search --li")).containsExactly("--limit");
        assertThat(bashCompletes(script, "funes completion ")).containsExactlyInAnyOrder("bash", "zsh", "fish");
        assertThat(bashCompletes(script, "funes search --retrieval ")).containsExactlyInAnyOrder("hybrid", "dense", "lexical");
        assertThat(bashCompletes(script, "funes index --model ")).contains("all-minilm-l6-v2-q", "bge-small-en-v15-q");
        for (Map.Entry<String, CommandLine> command : subcommands().entrySet()) {
            if (command.getKey().equals("help")) {
                continue;
            }
            List<String> offered = bashCompletes(script, "funes " + command.getKey() + " -");
            for (OptionSpec option : command.getValue().getCommandSpec().options()) {
                assertThat(offered).as("funes %s -", command.getKey()).contains(option.names());
            }
        }
    }

    @Test
    void zshLoadsTheScriptAndRegistersTheCompletion() throws Exception {
        assumeTrue(installed("zsh"), "skipped: zsh is not installed");
        Path script = script("zsh");
        String out = run("zsh", "-f", "-c", "autoload -U compinit && compinit -u -D && source $1 && print -r -- ${_comps[funes]}",
                "zsh", script.toString());
        assertThat(out.strip()).as("the completion zsh calls for funes").isNotEmpty();
    }

    @Test
    void fishCompletesEveryCommandAndEveryOptionOfEachCommand() throws Exception {
        Path script = script("fish");
        String text = Files.readString(script);
        for (Map.Entry<String, CommandLine> command : subcommands().entrySet()) {
            assertThat(text).contains("-n __fish_use_subcommand -a '" + command.getKey() + "'");
        }
        assumeTrue(installed("fish"), "skipped: fish is not installed (the script's text was checked)");
        assertThat(fishCompletes(script, "funes fo")).contains("forget");
        assertThat(fishCompletes(script, "funes ")).containsAll(subcommands().keySet());
        assertThat(fishCompletes(script, "funes search --li")).containsExactly("--limit");
        assertThat(fishCompletes(script, "funes completion ")).containsExactlyInAnyOrder("bash", "zsh", "fish");
        assertThat(fishCompletes(script, "funes help ")).containsAll(subcommands().keySet());
        assertThat(fishCompletes(script, "funes search --retrieval ")).containsExactlyInAnyOrder("hybrid", "dense", "lexical");
        List<String> dirs = fishCompletes(script, "funes index --index-path " + tmp + "/");
        assertThat(dirs).as("a path option completes file names").contains(tmp + "/funes.fish");
        for (Map.Entry<String, CommandLine> command : subcommands().entrySet()) {
            if (command.getKey().equals("help")) {
                continue;
            }
            List<String> offered = new ArrayList<>(fishCompletes(script, "funes " + command.getKey() + " --"));
            offered.addAll(fishCompletes(script, "funes " + command.getKey() + " -"));
            for (OptionSpec option : command.getValue().getCommandSpec().options()) {
                assertThat(offered).as("funes %s -", command.getKey()).contains(option.names());
            }
        }
    }

    @Test
    void anotherShellIsBadUsageNamingTheThree() {
        CliTest.Result r = funes("completion", "tcsh");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("tcsh").contains("bash, zsh, fish");
    }
}
