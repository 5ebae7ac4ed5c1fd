package dev.funes.cli;

import dev.funes.FunesException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code funes} command line. Command names and options follow the CLI contract
 * ({@code docs/CLI.md}); machine-readable output goes to stdout, logs and progress to stderr.
 *
 * <p>Exit status: 0 success; 1 failure (one-line reason on stderr); 2 bad usage; 3 indexed, but
 * some input was skipped (the summary says what).
 */
@Command(name = "funes",
        // Inherited: every subcommand takes --help/-h and --version/-V (the CLI contract).
        scope = CommandLine.ScopeType.INHERIT,
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Local, owned memory for coding agents, built from their session logs.")
public final class Main implements Callable<Integer> {

    /**
     * Every subcommand by its name, in the order {@code funes --help} lists them; a new command is
     * one line here. Listed rather than put in {@code @Command(subcommands = ...)}: picocli then
     * builds the model of every subcommand by reflection before it reads a word, for any command
     * line; from this list only the command named is built (see {@link #commandLine(PrintWriter,
     * PrintWriter, String[])}). The name must be the one the class's {@code @Command} gives.
     */
    static final List<Map.Entry<String, Class<?>>> SUBCOMMANDS = List.of(
            Map.entry("index", IndexCommand.class),
            Map.entry("watch", WatchCommand.class),
            Map.entry("search", SearchCommand.class),
            Map.entry("why", WhyCommand.class),
            Map.entry("stats", StatsCommand.class),
            Map.entry("demo", DemoCommand.class),
            Map.entry("check", CheckCommand.class),
            Map.entry("mcp", McpCommand.class),
            Map.entry("export", ExportCommand.class),
            Map.entry("import", ImportCommand.class),
            Map.entry("push", SyncCommands.Push.class),
            Map.entry("pull", SyncCommands.Pull.class),
            Map.entry("forget", ForgetCommand.class),
            Map.entry("completion", CompletionCommand.class),
            Map.entry("setup", SetupCommand.class),
            Map.entry("hook", HookCommand.class),
            Map.entry("config", ConfigCommand.class),
            Map.entry("ui", UiCommand.class),
            Map.entry("serve", ServeCommand.class),
            Map.entry("team", TeamCommand.class),
            Map.entry("publish", PublishCommand.class),
            Map.entry("help", CommandLine.HelpCommand.class));

    /** Commands that read the whole command tree: they get every subcommand. */
    private static final Set<String> NEED_EVERY_COMMAND = Set.of("help", "completion");

    /** First words of command lines that never open a store: they need no SQLite library. */
    private static final Set<String> OPEN_NO_STORE = Set.of("--help", "-h", "--version", "-V", "help", "completion");

    /** Exit status when indexing finished but skipped some input. */
    static final int EXIT_PARTIAL = 3;
    /** Options that, first on the line, can only mean {@code funes index}. */
    private static final Set<String> INDEX_FIRST_OPTIONS = Set.of("--index-path", "--vector-db");

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private Main() {
    }

    /**
     * Runs the command line and exits the JVM with its status; a resident {@code funes serve} of
     * the store runs it when one is there for a command it serves ({@link ServeClient}).
     */
    public static void main(String[] args) {
        // First: a client's initialize is answered while the rest of the JVM's start goes on.
        McpEarlyAnswer.startOnStdio(args);
        useHomeOfTheEnvironment();
        java.util.OptionalInt served = ServeClient.ask(args);
        if (served.isPresent()) {
            System.exit(served.getAsInt());
        }
        if (args.length == 0 || !OPEN_NO_STORE.contains(args[0])) {
            KeptSqliteLibrary.use();
        }
        System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /**
     * The JVM reads {@code user.home} from the password database; the shell's {@code $HOME} (set
     * differently for a sandbox, a test or another account's files) is what the user means, for
     * the default store ({@code ~/.funes}) and the agents' default log folders alike.
     */
    private static void useHomeOfTheEnvironment() {
        String home = System.getenv("HOME");
        if (home != null && !home.isBlank()) {
            System.setProperty("user.home", home);
        }
    }

    /**
     * Runs the command line with the given streams and returns its exit status; does not exit.
     *
     * @param args command-line arguments
     * @param out  where results go
     * @param err  where logs, progress and errors go
     */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        if (args.length > 0 && args[0].equals("index")) {
            JVectorLogging.whenLoggingStarts(); // an index of unchanged logs never opens JVector
        } else if (args.length == 0 || !args[0].equals("mcp")) {
            quietJVector(); // before any store opens; mcp's store opens on a thread of its own, which calls it
        }
        if (args.length > 0 && INDEX_FIRST_OPTIONS.contains(args[0].split("=", 2)[0])) {
            // The form older announcements show, `funes --index-path DIR ...`: index is meant.
            err.println("funes: reading this as 'funes index " + String.join(" ", args) + "'");
            String[] index = new String[args.length + 1];
            index[0] = "index";
            System.arraycopy(args, 0, index, 1, args.length);
            args = index;
        }
        int status = commandLine(out, err, args).execute(args);
        out.flush();
        err.flush();
        return status;
    }

    /** The command line with every subcommand, writing to the given streams; not yet run. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        return commandLine(out, err, new String[0]);
    }

    /**
     * The command line that runs {@code args}, writing to the given streams; not yet run. When the
     * first argument names a subcommand, only that one is built: its parsing, help, errors and
     * run are the same as in the whole tree, since a subcommand sees only itself and the options
     * it inherits. Anything else ({@code --help}, {@code --version}, nothing, a mistyped name whose
     * error suggests the names near it, {@code help} and {@code completion}) gets every one.
     */
    static CommandLine commandLine(PrintWriter out, PrintWriter err, String[] args) {
        CommandLine cli = new CommandLine(new Main());
        String first = args.length == 0 || NEED_EVERY_COMMAND.contains(args[0]) ? null : args[0];
        boolean named = false;
        for (Map.Entry<String, Class<?>> command : SUBCOMMANDS) {
            if (command.getKey().equals(first)) {
                cli.addSubcommand(command.getKey(), command.getValue());
                named = true;
            }
        }
        if (!named) {
            for (Map.Entry<String, Class<?>> command : SUBCOMMANDS) {
                cli.addSubcommand(command.getKey(), command.getValue());
            }
        }
        // After the subcommands are added: picocli passes these on only to the subcommands it has.
        cli.setOut(out);
        cli.setErr(err);
        cli.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            commandLine.getErr().println("funes: " + oneLine(ex));
            if (Boolean.getBoolean("funes.debug")) {
                ex.printStackTrace(commandLine.getErr());
            }
            return 1;
        });
        return cli;
    }

    /** JVector's logger set to errors only (see {@link QuietJVector}); to be called before a store opens. */
    static void quietJVector() {
        QuietJVector.LOG.getName();
    }

    /** The user-facing reason for a failure, on one line. */
    static String oneLine(Throwable ex) {
        String message = ex instanceof FunesException || ex.getMessage() != null
                ? ex.getMessage() : ex.getClass().getSimpleName();
        if (!(ex instanceof FunesException) && ex.getCause() != null && ex.getCause().getMessage() != null
                && !message.contains(ex.getCause().getMessage())) {
            message += ": " + ex.getCause().getMessage();
        }
        return message.replace('\n', ' ').strip();
    }

    /** {@code funes} alone names no command: bad usage, so the usage goes to stderr with status 2. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /**
     * JVector logs through java.util.logging: at start-up it explains which vector provider and
     * thread count it chose. The launcher already picks the JVM flags, so only its errors reach
     * the user. Held in a field: java.util.logging keeps loggers only weakly. A class of its own:
     * starting java.util.logging costs tens of milliseconds that a command a resident server
     * answers need not pay.
     */
    private static final class QuietJVector {
        static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger("io.github.jbellis");

        static {
            LOG.setLevel(java.util.logging.Level.SEVERE);
        }
    }

    /** {@code funes VERSION}: the version the build stamped (see {@link FunesVersion}). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"funes " + FunesVersion.current()};
        }
    }
}
