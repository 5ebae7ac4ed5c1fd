package dev.funes.cli;

import static dev.funes.cli.CliTest.funes;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * What every command-line tool should do, per the CLI contract: {@code --help}/{@code -h} and
 * {@code --version}/{@code -V} on every command, the real version, usage and status 2 for
 * {@code funes} alone. No store involved.
 */
class CliBasicsTest {

    private static final String VERSION = System.getProperty("funes.project.version");
    /** The contract's command names that exist today; scripts call them, so they stay. */
    private static final List<String> CONTRACT_COMMANDS = List.of("demo", "index", "watch", "search", "why", "stats",
            "check", "export", "import", "push", "pull", "mcp", "forget", "completion");
    /** The short flags, per command: each is another name of the long option beside it. */
    private static final List<List<String>> SHORT_FLAGS = List.of(
            List.of("index", "-s", "--store"), List.of("index", "-i", "--index-path"),
            List.of("watch", "-s", "--store"), List.of("watch", "-i", "--index-path"),
            List.of("search", "-s", "--store"), List.of("search", "-n", "--limit"), List.of("search", "-j", "--json"),
            List.of("search", "-a", "--agent"), List.of("search", "-p", "--project"), List.of("search", "-k", "--kind"),
            List.of("search", "-f", "--file"),
            List.of("why", "-s", "--store"), List.of("why", "-n", "--limit"), List.of("why", "-j", "--json"),
            List.of("stats", "-s", "--store"), List.of("stats", "-j", "--json"),
            List.of("check", "-s", "--store"), List.of("check", "-j", "--json"),
            List.of("demo", "-s", "--store"), List.of("demo", "-n", "--limit"),
            List.of("forget", "-s", "--store"), List.of("forget", "-p", "--project"), List.of("forget", "-f", "--file"),
            List.of("forget", "-y", "--yes"),
            List.of("export", "-s", "--store"), List.of("import", "-s", "--store"), List.of("push", "-s", "--store"),
            List.of("pull", "-s", "--store"), List.of("mcp", "-s", "--store"));

    /** Every subcommand, read from the command line itself so that a new one is covered too. */
    private static Map<String, CommandLine> subcommands() {
        return Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()))
                .getSubcommands();
    }

    @Test
    void versionIsTheProjectVersionEvenFromAClassesFolder() {
        assertThat(VERSION).as("funes.project.version, set by the build").isNotBlank();
        // Tests run from target/classes: no jar manifest, so this is the version the build wrote.
        assertThat(FunesVersion.current()).isEqualTo(VERSION);
        for (String option : List.of("--version", "-V")) {
            CliTest.Result result = funes(option);
            assertThat(result.status()).as(result.err()).isZero();
            assertThat(result.out()).isEqualTo("funes " + VERSION + System.lineSeparator());
        }
    }

    @Test
    void theContractsCommandsAreAllThere() {
        assertThat(subcommands().keySet()).containsAll(CONTRACT_COMMANDS);
    }

    @Test
    void everyCommandShowsItsHelpWithEachOfItsOptionsOnHelpAndH() {
        for (Map.Entry<String, CommandLine> command : subcommands().entrySet()) {
            for (String option : List.of("--help", "-h")) {
                String name = command.getKey();
                CliTest.Result result = funes(name, option);
                assertThat(result.status()).as("funes %s %s: %s", name, option, result.err()).isZero();
                assertThat(result.err()).as("funes %s %s", name, option).isEmpty();
                assertThat(result.out()).as("funes %s %s", name, option).contains("Usage: funes " + name);
                for (OptionSpec spec : command.getValue().getCommandSpec().options()) {
                    if (!spec.hidden()) {
                        assertThat(result.out()).as("funes %s %s", name, option).contains(spec.longestName());
                    }
                }
            }
        }
    }

    @Test
    void everyCommandPrintsTheVersionOnVersionAndV() {
        for (String name : subcommands().keySet()) {
            if (name.equals("help")) {
                continue; // picocli's help command: `funes help X` shows X's help; it has no version
            }
            for (String option : List.of("--version", "-V")) {
                CliTest.Result result = funes(name, option);
                assertThat(result.status()).as("funes %s %s: %s", name, option, result.err()).isZero();
                assertThat(result.out()).as("funes %s %s", name, option)
                        .isEqualTo("funes " + VERSION + System.lineSeparator());
            }
        }
    }

    @Test
    void eachShortFlagIsAnotherNameOfItsLongOption() {
        Map<String, CommandLine> commands = subcommands();
        for (List<String> flag : SHORT_FLAGS) {
            CommandLine.Model.CommandSpec spec = commands.get(flag.get(0)).getCommandSpec();
            assertThat(spec.findOption(flag.get(1))).as("funes %s %s", flag.get(0), flag.get(1)).isNotNull()
                    .isSameAs(spec.findOption(flag.get(2)));
        }
    }

    @Test
    void shortFlagsRunTheCommandsAsTheLongOnesDo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path store) throws Exception {
        String demo = java.nio.file.Path.of("../examples/demo-session").toAbsolutePath().normalize().toString();
        CliTest.Result indexed = funes("index", "-i", demo, "-s", store.toString());
        assertThat(indexed.status()).as(indexed.err()).isZero();
        assertThat(indexed.out()).contains("1 indexed");

        CliTest.Result shortSearch = funes("search", "-s", store.toString(), "-n", "1", "-j", "-a", "claude-code",
                "-k", "exchange", "-p", "/home/dev/projects/ledger-sync", "streaming parser");
        assertThat(shortSearch.status()).as(shortSearch.err()).isZero();
        CliTest.Result longSearch = funes("search", "--store", store.toString(), "--limit", "1", "--json",
                "--agent", "claude-code", "--kind", "exchange", "--project", "/home/dev/projects/ledger-sync", "streaming parser");
        assertThat(shortSearch.json().size()).isEqualTo(1);
        assertThat(shortSearch.json().get(0).get("text")).isEqualTo(longSearch.json().get(0).get("text"));

        CliTest.Result stats = funes("stats", "-s", store.toString(), "-j");
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.json().get("memories").asLong()).isPositive();
    }

    @Test
    void funesAloneIsBadUsageTheUsageGoesToStderrWithStatusTwo() {
        CliTest.Result result = funes();
        assertThat(result.status()).isEqualTo(2);
        assertThat(result.out()).as("stdout is for results only").isEmpty();
        assertThat(result.err()).contains("Usage: funes");
        for (String command : CONTRACT_COMMANDS) {
            assertThat(result.err()).as("the usage lists the commands").contains("  " + command + " ");
        }
    }

    @Test
    void anUnknownOptionOfACommandIsBadUsageWithThatCommandsUsage() {
        CliTest.Result result = funes("index", "--no-such-option");
        assertThat(result.status()).isEqualTo(2);
        assertThat(result.out()).isEmpty();
        assertThat(result.err()).contains("Unknown option: '--no-such-option'").contains("Usage: funes index");
    }

    @Test
    void theAnnouncedIndexLineWorksAndAnotherBackendIsBadUsageNamingTheOne(@org.junit.jupiter.api.io.TempDir java.nio.file.Path store) {
        String demo = java.nio.file.Path.of("../examples/demo-session").toAbsolutePath().normalize().toString();
        CliTest.Result indexed = funes("--index-path", demo, "--vector-db", "local-sqlite", "--store", store.toString());
        assertThat(indexed.status()).as(indexed.err()).isZero();
        assertThat(indexed.err()).contains("reading this as 'funes index --index-path");
        assertThat(indexed.out()).contains("1 indexed");

        CliTest.Result again = funes("index", "--index-path", demo, "--vector-db", "local-sqlite", "--store", store.toString());
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.out()).contains("1 unchanged");

        CliTest.Result other = funes("index", "--index-path", demo, "--vector-db", "chroma", "--store", store.toString());
        assertThat(other.status()).isEqualTo(2);
        assertThat(other.err()).contains("unknown vector database 'chroma'").contains("local-sqlite");
    }
}
