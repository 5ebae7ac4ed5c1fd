package dev.funes.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code funes completion bash|zsh|fish}: prints a completion script for the shell, built from
 * the command line itself, so every command and option is in it.
 */
@Command(name = "completion", description = {
    "Print a shell completion script: bash and zsh: source <(funes completion bash); "
        + "fish: funes completion fish > ~/.config/fish/completions/funes.fish"})
final class CompletionCommand implements Callable<Integer> {

    /** The shells a script is written for. */
    enum Shell { bash, zsh, fish }

    @Parameters(paramLabel = "SHELL", description = "bash, zsh or fish.")
    Shell shell;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine root = spec.root().commandLine();
        String script = switch (shell) {
            // picocli's bash script runs under zsh too: it loads zsh's bash-completion layer itself.
            case bash, zsh -> AutoComplete.bash(root.getCommandName(), root);
            case fish -> FishCompletion.script(root);
        };
        spec.commandLine().getOut().print(script);
        return 0;
    }
}
