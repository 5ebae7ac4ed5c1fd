package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * A command line naming a subcommand builds only that one ({@link Main#SUBCOMMANDS}), and says,
 * parses and fails exactly as the whole command tree does.
 */
class LazySubcommandsTest {

    private static final List<String> NAMES = Main.SUBCOMMANDS.stream().map(Map.Entry::getKey).collect(Collectors.toList());

    /** Runs {@code args} on the whole tree, as every command line did before it was lazy. */
    private static CliTest.Result wholeTree(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
        return new CliTest.Result(status, out.toString(), err.toString());
    }

    @Test
    void eachListedNameIsTheOneItsCommandGivesItself() {
        for (Map.Entry<String, Class<?>> command : Main.SUBCOMMANDS) {
            CommandLine.Command annotation = command.getValue().getAnnotation(CommandLine.Command.class);
            assertThat(annotation).as(command.getValue().getName()).isNotNull();
            assertThat(annotation.name()).as(command.getValue().getName()).isEqualTo(command.getKey());
        }
        assertThat(NAMES).doesNotHaveDuplicates();
    }

    @Test
    void aNamedCommandBuildsOnlyItselfAnythingElseEveryCommand() {
        PrintWriter sink = new PrintWriter(new StringWriter());
        for (String name : NAMES) {
            if (!name.equals("help") && !name.equals("completion")) {
                assertThat(Main.commandLine(sink, sink, new String[] {name, "--help"}).getSubcommands().keySet())
                        .as(name).containsExactly(name);
            }
        }
        for (List<String> args : List.of(List.<String>of(), List.of("--help"), List.of("-V"), List.of("help", "stats"),
                List.of("completion", "bash"), List.of("stat"), List.of("--store", "x", "stats"))) {
            assertThat(Main.commandLine(sink, sink, args.toArray(String[]::new)).getSubcommands().keySet())
                    .as("%s", args).containsExactlyElementsOf(NAMES);
        }
    }

    @Test
    void helpVersionAndBadUsageOfEachCommandAreTheWholeTreesWord() {
        for (String name : NAMES) {
            for (List<String> args : List.of(List.of(name, "--help"), List.of(name, "-h"), List.of(name, "--version"),
                    List.of(name, "--no-such-option"), List.of(name, "--store"))) {
                String[] line = args.toArray(String[]::new);
                CliTest.Result lazy = CliTest.funes(line);
                CliTest.Result whole = wholeTree(line);
                assertThat(lazy.status()).as("%s", args).isEqualTo(whole.status());
                assertThat(lazy.out()).as("%s", args).isEqualTo(whole.out());
                assertThat(lazy.err()).as("%s", args).isEqualTo(whole.err());
            }
        }
    }

    @Test
    void theTopLevelHelpListsEveryCommandInTheListsOrder() {
        CliTest.Result help = CliTest.funes("--help");
        assertThat(help.status()).isZero();
        assertThat(help.out()).isEqualTo(wholeTree("--help").out());
        int from = 0;
        for (String name : NAMES) {
            int at = help.out().indexOf(System.lineSeparator() + "  " + name + " ", from);
            assertThat(at).as("%s listed after the one before it in:%n%s", name, help.out()).isGreaterThanOrEqualTo(0);
            from = at + 1;
        }
        CliTest.Result misspelt = CliTest.funes("stat");
        assertThat(misspelt.status()).isEqualTo(2);
        assertThat(misspelt.err()).contains("stats");
    }
}
