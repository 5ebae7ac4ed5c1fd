package dev.funes.cli;

import dev.funes.FunesException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code funes setup AGENT}: registers the Funes MCP server with a coding agent at user scope, in
 * the agent's own config file, and makes its sessions indexed without further thought (a Claude
 * Code hook; for Codex and Gemini CLI a {@code funes watch} user service). Every change is shown
 * as a diff first, each changed file is backed up, a second run changes nothing, and
 * {@code --undo} removes exactly what setup adds. All files are read and checked before any is
 * written, so a file that cannot be read stops the whole run with nothing changed.
 */
@Command(name = "setup", description = {
    "Give a coding agent Funes memory, at user scope: registers 'funes mcp' in the agent's own config and indexes"
        + " its sessions automatically (Claude Code: a SessionEnd hook; Codex, Gemini CLI: a 'funes watch' user service).",
    "Shows each file's diff before writing, keeps a backup of each file it changes, changes nothing when run again;"
        + " --undo removes what it added."})
final class SetupCommand implements Callable<Integer> {

    /** The agents, as named on the command line. */
    static final List<String> AGENTS = List.of("claude-code", "codex", "gemini");
    /** What the Claude Code hook runs after the launcher. */
    static final String HOOK_ARGS = "hook claude-code";
    /** The systemd unit's and the launchd agent's name. */
    static final String SERVICE = "funes-watch.service";
    static final String LAUNCHD_LABEL = "dev.funes.watch";

    private static final Predicate<String> OUR_HOOK =
            command -> command.contains("funes") && Pattern.compile("(^|\\s)hook\\s+claude-code(\\s|$)").matcher(command).find();
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT);

    @Parameters(index = "0", paramLabel = "AGENT", completionCandidates = AgentNames.class,
            description = "claude-code, codex, gemini, or all of them.")
    String agent;

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--dry-run", description = "Show the diffs; write nothing.")
    boolean dryRun;

    @Option(names = "--undo", description = "Remove what setup adds (other servers and settings stay as they are).")
    boolean undo;

    @Option(names = "--launcher", paramLabel = "PATH", description = "The funes command the agents run"
            + " (default: the launcher running this command, else funes on the PATH).")
    Path launcher;

    @Option(names = "--service", paramLabel = "KIND", description = "How 'funes watch' runs for Codex and Gemini CLI:"
            + " systemd, launchd or none (default: systemd on Linux, launchd on macOS, none elsewhere).")
    String service;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** One file's change: {@code null} before is a new file, {@code null} after a removed one. */
    private record Change(String what, Path file, String before, String after) {
        boolean changes() {
            return !Objects.equals(before, after);
        }
    }

    /** The agent names for shell completion. */
    static final class AgentNames extends ArrayList<String> {
        AgentNames() {
            super(List.of("claude-code", "codex", "gemini", "all"));
        }
    }

    @Override
    public Integer call() {
        Set<String> agents = new LinkedHashSet<>();
        if (agent.equals("all")) {
            agents.addAll(AGENTS);
        } else if (AGENTS.contains(agent)) {
            agents.add(agent);
        } else {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "unknown agent '" + agent + "'; one of: claude-code, codex, gemini, all");
        }
        String kind = serviceKind();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Path home = Path.of(System.getProperty("user.home"));
        String command = launcher(err);

        // Everything is read and planned before anything is written.
        List<Change> changes = new ArrayList<>();
        for (String a : agents) {
            changes.addAll(plan(a, home, command));
        }
        if (!kind.equals("none") && (agents.contains("codex") || agents.contains("gemini"))) {
            Path file = serviceFile(kind, home);
            String what = "codex, gemini: 'funes watch' as a " + kind + " user service";
            if (!undo) {
                changes.add(new Change(what, file, read(file), serviceText(kind, home, command)));
            } else if (!otherAgentWatched(agents, home)) {
                changes.add(new Change(what, file, read(file), null));
            }
        }

        boolean changed = false;
        boolean serviceChanged = false;
        String stamp = ZonedDateTime.now(ZoneOffset.UTC).format(STAMP);
        for (Change c : changes) {
            if (!c.changes()) {
                out.println("unchanged " + c.file() + ": " + (undo ? "nothing of Funes in it" : "set up already"));
                continue;
            }
            changed = true;
            serviceChanged |= c.what().contains("service");
            out.println(c.what() + ":");
            out.print(UnifiedDiff.of(c.before(), c.after(), c.file().toString()));
            if (!dryRun) {
                Path backup = write(c, stamp);
                out.println((c.after() == null ? "removed " : "wrote ") + c.file()
                        + (backup == null ? "" : " (backup: " + backup + ")"));
                if (c.after() == null && c.what().contains("service")) {
                    unlinkEnabled(home, out);
                }
            }
        }
        if (dryRun) {
            out.println("dry run: nothing was written");
        } else if (!changed) {
            out.println(undo ? "nothing to undo: Funes is not set up for " + String.join(", ", agents)
                    : "nothing to change: Funes is set up for " + String.join(", ", agents) + " already");
        }
        if (serviceChanged) {
            out.println(serviceAdvice(kind, home));
        }
        if (changed && !undo && !dryRun) {
            out.println("restart the agent" + (agents.size() > 1 ? "s" : "") + " to load the MCP server");
        }
        out.flush();
        return 0;
    }

    /** The changes for one agent. */
    private List<Change> plan(String agent, Path home, String command) {
        List<Change> changes = new ArrayList<>();
        List<String> mcpArgs = withStore(List.of("mcp"));
        switch (agent) {
            case "claude-code" -> {
                Path config = claudeJson(home);
                String text = read(config);
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("type", "stdio");
                entry.put("command", command);
                entry.put("args", mcpArgs);
                entry.put("env", Map.of());
                changes.add(new Change("claude-code: MCP server 'funes' at user scope", config, text,
                        undo ? emptyJsonGone(AgentConfigs.removeServer(text, config))
                                : AgentConfigs.putServer(text, config, entry)));
                Path settings = claudeDir(home).resolve("settings.json");
                String settingsText = read(settings);
                String hook = shellWord(command) + " " + HOOK_ARGS + withStore(List.of()).stream()
                        .map(a -> " " + shellWord(a)).reduce("", String::concat);
                changes.add(new Change("claude-code: SessionEnd hook that indexes each session as it ends", settings,
                        settingsText, undo ? emptyJsonGone(AgentConfigs.removeHook(settingsText, settings, "SessionEnd", OUR_HOOK))
                                : AgentConfigs.putHook(settingsText, settings, "SessionEnd", hook, OUR_HOOK)));
            }
            case "codex" -> {
                Path config = codexHome(home).resolve("config.toml");
                String text = read(config);
                String after = undo ? AgentConfigs.removeCodex(text, config) : AgentConfigs.putCodex(text, config, command, mcpArgs);
                changes.add(new Change("codex: MCP server 'funes'", config, text,
                        undo && after != null && after.isBlank() ? null : after));
            }
            case "gemini" -> {
                Path config = home.resolve(".gemini/settings.json");
                String text = read(config);
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("command", command);
                entry.put("args", mcpArgs);
                changes.add(new Change("gemini: MCP server 'funes' at user scope", config, text,
                        undo ? emptyJsonGone(AgentConfigs.removeServer(text, config))
                                : AgentConfigs.putServer(text, config, entry)));
            }
            default -> throw new IllegalStateException(agent);
        }
        return changes;
    }

    /** On undo, a file left with an empty object only is one setup created: it goes. */
    private static String emptyJsonGone(String text) {
        return text != null && (text.isBlank() || text.strip().equals("{}")) ? null : text;
    }

    /** Whether an agent kept by this undo still has Funes registered, and so still needs the watch. */
    private boolean otherAgentWatched(Set<String> undone, Path home) {
        try {
            if (!undone.contains("codex")) {
                Path config = codexHome(home).resolve("config.toml");
                if (AgentConfigs.hasCodex(read(config), config)) {
                    return true;
                }
            }
            if (!undone.contains("gemini")) {
                Path config = home.resolve(".gemini/settings.json");
                return AgentConfigs.hasServer(read(config), config);
            }
            return false;
        } catch (FunesException e) {
            return true; // cannot tell: keep the service
        }
    }

    /** {@code args} plus {@code --store DIR} when the store is not the default one. */
    private List<String> withStore(List<String> args) {
        Path dir = storeOptions.dir();
        if (dir.equals(Path.of(System.getProperty("user.home"), ".funes"))) {
            return args;
        }
        List<String> with = new ArrayList<>(args);
        with.add("--store");
        with.add(dir.toString());
        return with;
    }

    /** Claude Code's config folder: {@code $CLAUDE_CONFIG_DIR}, else {@code ~/.claude}. */
    static Path claudeDir(Path home) {
        String dir = System.getenv("CLAUDE_CONFIG_DIR");
        return dir != null && !dir.isBlank() ? Path.of(dir) : home.resolve(".claude");
    }

    /**
     * Where Claude Code keeps user-scope MCP servers: {@code ~/.claude.json}, or
     * {@code .claude.json} inside {@code $CLAUDE_CONFIG_DIR} when that is set (where
     * {@code claude mcp add --scope user} writes then).
     */
    static Path claudeJson(Path home) {
        String dir = System.getenv("CLAUDE_CONFIG_DIR");
        return dir != null && !dir.isBlank() ? Path.of(dir).resolve(".claude.json") : home.resolve(".claude.json");
    }

    /** Codex's home: {@code $CODEX_HOME}, else {@code ~/.codex}. */
    static Path codexHome(Path home) {
        String codexHome = System.getenv("CODEX_HOME");
        return codexHome != null && !codexHome.isBlank() ? Path.of(codexHome) : home.resolve(".codex");
    }

    private String serviceKind() {
        if (service == null) {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            return os.contains("linux") ? "systemd" : os.contains("mac") ? "launchd" : "none";
        }
        if (!List.of("systemd", "launchd", "none").contains(service)) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "unknown --service '" + service + "'; one of: systemd, launchd, none");
        }
        return service;
    }

    /**
     * The command agents run: {@code --launcher}; else the launcher that started this JVM (it
     * says so in the {@code funes.launcher} system property); else {@code funes} found on the
     * PATH; else the bare name, with a warning.
     */
    private String launcher(PrintWriter err) {
        if (launcher != null) {
            return launcher.toAbsolutePath().normalize().toString();
        }
        String property = System.getProperty("funes.launcher");
        if (property != null && !property.isBlank() && Files.isRegularFile(Path.of(property))) {
            return Path.of(property).toAbsolutePath().normalize().toString();
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isBlank()) {
                    Path candidate = Path.of(dir, "funes");
                    if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                        return candidate.toAbsolutePath().normalize().toString();
                    }
                }
            }
        }
        err.println("funes setup: cannot tell where the funes launcher is (not started by it, none on the PATH);"
                + " writing the bare name 'funes', which the agents must find on their PATH (or pass --launcher PATH)");
        return "funes";
    }

    static Path serviceFile(String kind, Path home) {
        return kind.equals("systemd") ? home.resolve(".config/systemd/user/" + SERVICE)
                : home.resolve("Library/LaunchAgents/" + LAUNCHD_LABEL + ".plist");
    }

    /**
     * The service file: runs {@code funes watch} at login and again after a failure, with the
     * Java this setup runs on (services do not read the shell's profile, where PATH and
     * JAVA_HOME are usually set).
     */
    private String serviceText(String kind, Path home, String command) {
        List<String> args = new ArrayList<>(List.of(command, "watch"));
        args.addAll(withStore(List.of()));
        String javaHome = System.getProperty("java.home");
        if (kind.equals("systemd")) {
            StringBuilder exec = new StringBuilder();
            args.forEach(a -> exec.append(exec.length() == 0 ? "" : " ").append(systemdWord(a)));
            return "# Written by 'funes setup'; 'funes setup codex --undo' (or gemini, all) removes it.\n"
                    + "[Unit]\n"
                    + "Description=Funes: index coding-agent session logs as agents write them\n"
                    + "\n"
                    + "[Service]\n"
                    + "ExecStart=" + exec + "\n"
                    + "Environment=" + systemdWord("JAVA_HOME=" + javaHome) + "\n"
                    + "Restart=on-failure\n"
                    + "RestartSec=60\n"
                    + "\n"
                    + "[Install]\n"
                    + "WantedBy=default.target\n";
        }
        StringBuilder plist = new StringBuilder();
        plist.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
                .append("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
                .append("<!-- Written by 'funes setup'; 'funes setup codex --undo' (or gemini, all) removes it. -->\n")
                .append("<plist version=\"1.0\">\n<dict>\n")
                .append("  <key>Label</key>\n  <string>").append(LAUNCHD_LABEL).append("</string>\n")
                .append("  <key>ProgramArguments</key>\n  <array>\n");
        args.forEach(a -> plist.append("    <string>").append(xml(a)).append("</string>\n"));
        plist.append("  </array>\n")
                .append("  <key>EnvironmentVariables</key>\n  <dict>\n")
                .append("    <key>JAVA_HOME</key>\n    <string>").append(xml(javaHome)).append("</string>\n")
                .append("  </dict>\n")
                .append("  <key>RunAtLoad</key>\n  <true/>\n")
                .append("  <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>\n")
                .append("  <key>ThrottleInterval</key>\n  <integer>60</integer>\n")
                .append("  <key>StandardErrorPath</key>\n  <string>")
                .append(xml(home.resolve("Library/Logs/funes-watch.log").toString())).append("</string>\n")
                .append("</dict>\n</plist>\n");
        return plist.toString();
    }

    /**
     * The link {@code systemctl --user enable} made to the unit removed: left behind, it would
     * point at nothing and make {@code systemctl} complain at every start.
     */
    private static void unlinkEnabled(Path home, PrintWriter out) {
        Path wants = home.resolve(".config/systemd/user/default.target.wants/" + SERVICE);
        try {
            if (Files.isSymbolicLink(wants)) {
                Files.delete(wants);
                out.println("removed " + wants);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + wants, e);
        }
    }

    /** What the user runs to start (or, after --undo, stop) the service: setup never does. */
    private String serviceAdvice(String kind, Path home) {
        if (kind.equals("systemd")) {
            return undo ? "stop the service: systemctl --user stop " + SERVICE + "; systemctl --user daemon-reload"
                    : "start the service now and at every login: systemctl --user daemon-reload && systemctl --user enable --now " + SERVICE;
        }
        return undo ? "stop the service: launchctl bootout gui/$(id -u)/" + LAUNCHD_LABEL
                : "start the service now and at every login: launchctl bootstrap gui/$(id -u) " + serviceFile(kind, home);
    }

    /** A word for a POSIX shell (hooks run through one): quoted when it holds anything special. */
    static String shellWord(String word) {
        return word.matches("[A-Za-z0-9_@%+=:,./-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
    }

    /** A word for a systemd ExecStart= or Environment= line. */
    private static String systemdWord(String word) {
        String escaped = word.replace("%", "%%").replace("$", "$$");
        return escaped.matches("[A-Za-z0-9_@+=:,./-]+") ? escaped
                : "\"" + escaped.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    /** The file's text, {@code null} when absent. */
    private static String read(Path file) {
        if (!Files.exists(file)) {
            return null;
        }
        try {
            // Strict: a file that is not UTF-8 would not be written back byte for byte.
            return StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            throw new FunesException(file + ": not UTF-8 text; nothing was changed");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * Writes one change: the old file is copied to {@code FILE.funes-backup-STAMP} first, the
     * new text goes to a temporary file beside it that then replaces the file in one step (an
     * interrupted write leaves the old file whole). A link is written through, so the file a
     * dotfile manager links to is the one that changes. Returns the backup, if any.
     */
    private static Path write(Change c, String stamp) {
        try {
            Path target = Files.isSymbolicLink(c.file()) ? c.file().toRealPath() : c.file();
            Path backup = null;
            if (c.before() != null) {
                backup = target.resolveSibling(target.getFileName() + ".funes-backup-" + stamp);
                for (int n = 2; Files.exists(backup); n++) {
                    backup = target.resolveSibling(target.getFileName() + ".funes-backup-" + stamp + "-" + n);
                }
                Files.copy(target, backup, StandardCopyOption.COPY_ATTRIBUTES);
            }
            if (c.after() == null) {
                Files.delete(target);
                return backup;
            }
            Files.createDirectories(target.getParent());
            Path temp = Files.createTempFile(target.getParent(), "." + target.getFileName(), ".funes-tmp");
            try {
                Files.writeString(temp, c.after(), StandardCharsets.UTF_8);
                PosixFileAttributeView view = Files.getFileAttributeView(target, PosixFileAttributeView.class);
                if (Files.exists(target) && view != null) {
                    Files.setPosixFilePermissions(temp, view.readAttributes().permissions());
                } else if (view != null) {
                    // A new file: what a plain create would give (createTempFile makes it owner-only).
                    Files.setPosixFilePermissions(temp, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
                }
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
            return backup;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + c.file(), e);
        }
    }
}
