package dev.funes.cli;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * A fish completion script for a command line with one level of subcommands: one
 * {@code complete} line per subcommand and per option, read from the picocli model, so that the
 * script names exactly the options the command accepts.
 */
final class FishCompletion {

    private FishCompletion() {
    }

    /** The script for {@code root} and its subcommands. */
    static String script(CommandLine root) {
        String name = root.getCommandName();
        StringBuilder out = new StringBuilder();
        out.append("# fish completion for ").append(name).append(", written by '").append(name)
                .append(" completion fish'\n");
        out.append("complete -c ").append(name).append(" -f\n");
        String noSubcommand = "__fish_use_subcommand";
        for (OptionSpec option : root.getCommandSpec().options()) {
            out.append(option(name, noSubcommand, option));
        }
        for (Map.Entry<String, CommandLine> sub : root.getSubcommands().entrySet()) {
            CommandSpec spec = sub.getValue().getCommandSpec();
            out.append("complete -c ").append(name).append(" -n ").append(noSubcommand)
                    .append(" -a ").append(quote(sub.getKey())).append(" -d ").append(quote(summary(spec))).append('\n');
        }
        for (Map.Entry<String, CommandLine> sub : root.getSubcommands().entrySet()) {
            CommandSpec spec = sub.getValue().getCommandSpec();
            String condition = quote("__fish_seen_subcommand_from " + sub.getKey());
            for (OptionSpec option : spec.options()) {
                if (!option.hidden()) {
                    out.append(option(name, condition, option));
                }
            }
            if (spec.helpCommand()) {
                // `funes help COMMAND`: the names of the commands
                out.append("complete -c ").append(name).append(" -n ").append(condition).append(" -a ")
                        .append(quote(String.join(" ", root.getSubcommands().keySet()))).append('\n');
            }
            for (PositionalParamSpec positional : spec.positionalParameters()) {
                if (!positional.hidden()) {
                    out.append("complete -c ").append(name).append(" -n ").append(condition)
                            .append(values(positional)).append('\n');
                }
            }
        }
        return out.toString();
    }

    private static String option(String command, String condition, OptionSpec option) {
        StringBuilder line = new StringBuilder("complete -c ").append(command).append(" -n ").append(condition);
        for (String n : option.names()) {
            if (n.startsWith("--")) {
                line.append(" -l ").append(n.substring(2));
            } else if (n.startsWith("-") && n.length() == 2) {
                line.append(" -s ").append(n.substring(1));
            } else {
                line.append(" -o ").append(n.substring(1)); // a single-dash long name
            }
        }
        if (option.arity().max() > 0 && !option.type().equals(boolean.class) && !option.type().equals(Boolean.class)) {
            line.append(values(option));
        }
        String description = String.join(" ", option.description()).strip();
        if (!description.isEmpty()) {
            line.append(" -d ").append(quote(firstSentence(description)));
        }
        return line.append('\n').toString();
    }

    /** What may follow: fixed candidates, file names for paths, else any word (no file names). */
    private static String values(ArgSpec arg) {
        List<String> candidates = new ArrayList<>();
        if (arg.completionCandidates() != null) {
            arg.completionCandidates().forEach(candidates::add);
        }
        if (!candidates.isEmpty()) {
            return " -x -a " + quote(String.join(" ", candidates));
        }
        Class<?> type = arg.auxiliaryTypes().length > 0 ? arg.auxiliaryTypes()[0] : arg.type();
        if (Path.class.isAssignableFrom(type) || File.class.isAssignableFrom(type)) {
            return " -r -F";
        }
        return " -x";
    }

    private static String summary(CommandSpec spec) {
        String[] description = spec.usageMessage().description();
        return description.length == 0 ? "" : firstSentence(description[0]);
    }

    /** The first sentence, without picocli's markup and its default-value variables. */
    private static String firstSentence(String text) {
        String plain = text.replaceAll("\\$\\{[^}]*}", "").replaceAll("@\\|\\S+ ([^|]*)\\|@", "$1");
        int end = plain.indexOf(". ");
        return (end > 0 ? plain.substring(0, end + 1) : plain).strip();
    }

    /** A fish single-quoted string: only backslash and single quote are special in it. */
    static String quote(String s) {
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
    }
}
