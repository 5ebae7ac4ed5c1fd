package dev.funes.cli;

import dev.funes.FunesException;
import java.io.PrintWriter;
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
        description = "Local, owned memory for coding agents, built from their session logs.",
        subcommands = {
            IndexCommand.class, WatchCommand.class, SearchCommand.class, WhyCommand.class, StatsCommand.class, DemoCommand.class,
            CheckCommand.class, McpCommand.class, ExportCommand.class, ImportCommand.class,
            SyncCommands.Push.class, SyncCommands.Pull.class, ForgetCommand.class, CompletionCommand.class,
            SetupCommand.class, HookCommand.class, ConfigCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Callable<Integer> {

    /** Exit status when indexing finished but skipped some input. */
    static final int EXIT_PARTIAL = 3;
    /** Options that, first on the line, can only mean {@code funes index}. */
    private static final java.util.Set<String> INDEX_FIRST_OPTIONS = java.util.Set.of("--index-path", "--vector-db");

    /*
     * JVector logs through java.util.logging: at start-up it explains which vector provider and
     * thread count it chose. The launcher already picks the JVM flags, so only its errors reach
     * the user. Held in a field: java.util.logging keeps loggers only weakly.
     */
    private static final java.util.logging.Logger JVECTOR_LOG = java.util.logging.Logger.getLogger("io.github.jbellis");

    static {
        JVECTOR_LOG.setLevel(java.util.logging.Level.SEVERE);
    }

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    private Main() {
    }

    /** Runs the command line and exits the JVM with its status. */
    public static void main(String[] args) {
        useHomeOfTheEnvironment();
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
        if (args.length > 0 && INDEX_FIRST_OPTIONS.contains(args[0].split("=", 2)[0])) {
            // The form older announcements show, `funes --index-path DIR ...`: index is meant.
            err.println("funes: reading this as 'funes index " + String.join(" ", args) + "'");
            String[] index = new String[args.length + 1];
            index[0] = "index";
            System.arraycopy(args, 0, index, 1, args.length);
            args = index;
        }
        int status = commandLine(out, err).execute(args);
        out.flush();
        err.flush();
        return status;
    }

    /** The command line with its subcommands, writing to the given streams; not yet run. */
    static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new Main());
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

    /** {@code funes VERSION}: the version the build stamped (see {@link FunesVersion}). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"funes " + FunesVersion.current()};
        }
    }
}
