package dev.funes.ingest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/**
 * Where coding agents keep their session logs, and the formats that read them.
 */
public final class AgentLogs {

    private static final Logger LOG = LoggerFactory.getLogger(AgentLogs.class);

    /** Editors whose global storage may hold Cline's or Roo Code's tasks. */
    private static final List<String> EDITORS = List.of("Code", "Code - Insiders", "Cursor", "VSCodium", "Windsurf");
    private static final List<String> CLINE_EXTENSIONS = List.of("saoudrizwan.claude-dev", "rooveterinaryinc.roo-cline");

    private AgentLogs() {
    }

    /**
     * The default log folders that exist on this machine, for {@link Indexer#index}, where
     * {@code ~} is the system property {@code user.home} (tests may override it):
     * <ul>
     *   <li>Claude Code: {@code $CLAUDE_CONFIG_DIR/projects} when that variable is set, else
     *       {@code ~/.claude/projects};</li>
     *   <li>Codex: {@code $CODEX_HOME/sessions} and {@code $CODEX_HOME/archived_sessions} when
     *       that variable is set, else the same under {@code ~/.codex};</li>
     *   <li>Gemini CLI: {@code ~/.gemini/tmp} (its {@code <project>/chats} folders);</li>
     *   <li>Cline and Roo Code: the {@code tasks} folder of the extension's global storage in VS Code,
     *       Code - Insiders, Cursor, VSCodium and Windsurf ({@code ~/.config/<editor>/User/globalStorage/
     *       saoudrizwan.claude-dev/tasks}, or under {@code ~/Library/Application Support} or
     *       {@code $APPDATA}), and {@code ~/.cline/data/tasks}.</li>
     * </ul>
     * Folders that do not exist are left out.
     */
    public static List<Path> defaultRoots() {
        return defaultRoots(System.getenv(), Path.of(System.getProperty("user.home")));
    }

    /** {@link #defaultRoots()} for the given environment variables and home folder. */
    static List<Path> defaultRoots(Map<String, String> env, Path home) {
        List<Path> candidates = new ArrayList<>();
        Path claude = configDir(env, "CLAUDE_CONFIG_DIR", home.resolve(".claude"));
        candidates.add(claude.resolve("projects"));
        Path codex = configDir(env, "CODEX_HOME", home.resolve(".codex"));
        candidates.add(codex.resolve("sessions"));
        candidates.add(codex.resolve("archived_sessions"));
        candidates.add(home.resolve(".gemini").resolve("tmp"));
        List<Path> editorConfigs = new ArrayList<>(List.of(home.resolve(".config"),
                home.resolve("Library").resolve("Application Support")));
        String appData = env.get("APPDATA");
        if (appData != null && !appData.isBlank()) {
            editorConfigs.add(Path.of(appData));
        }
        for (Path config : editorConfigs) {
            for (String editor : EDITORS) {
                for (String extension : CLINE_EXTENSIONS) {
                    candidates.add(config.resolve(editor).resolve("User").resolve("globalStorage").resolve(extension)
                            .resolve("tasks"));
                }
            }
        }
        candidates.add(home.resolve(".cline").resolve("data").resolve("tasks"));
        List<Path> roots = new ArrayList<>();
        for (Path candidate : candidates) {
            Path root = candidate.toAbsolutePath().normalize();
            if (Files.isDirectory(root) && !roots.contains(root)) {
                roots.add(root);
            }
        }
        return List.copyOf(roots);
    }

    private static Path configDir(Map<String, String> env, String variable, Path fallback) {
        String value = env.get(variable);
        return value != null && !value.isBlank() ? Path.of(value) : fallback;
    }

    /** The Claude Code format ({@code claude-code}): {@code ~/.claude/projects/<project>/<session>.jsonl}. */
    public static LogFormat claudeCode() {
        return ClaudeCodeFormat.INSTANCE;
    }

    /** The OpenAI Codex CLI format ({@code codex}): {@code ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl}. */
    public static LogFormat codex() {
        return CodexFormat.INSTANCE;
    }

    /**
     * The Aider format ({@code aider}): {@code .aider.chat.history.md} in each project's root. Aider
     * keeps no central folder, so {@link #defaultRoots()} cannot list these files: give the
     * projects (or the files) as roots.
     */
    public static LogFormat aider() {
        return AiderFormat.INSTANCE;
    }

    /**
     * The Gemini CLI format ({@code gemini}): {@code ~/.gemini/tmp/<project>/chats/session-*.json}
     * and {@code session-*.jsonl}.
     */
    public static LogFormat gemini() {
        return GeminiFormat.INSTANCE;
    }

    /**
     * The Cline format ({@code cline}), also written by Roo Code: the
     * {@code api_conversation_history.json} of each task folder,
     * {@code .../globalStorage/saoudrizwan.claude-dev/tasks/<task id>/}.
     */
    public static LogFormat cline() {
        return ClineFormat.INSTANCE;
    }

    /**
     * The OpenHands format ({@code openhands}): a trajectory saved or exported as a JSON array of
     * events. OpenHands keeps no such files in a fixed place: give them as roots.
     */
    public static LogFormat openHands() {
        return OpenHandsFormat.INSTANCE;
    }

    /**
     * The SWE-agent format ({@code swe-agent}): {@code <instance>.traj} under a run's
     * {@code trajectories} folder: give that folder as a root.
     */
    public static LogFormat sweAgent() {
        return SweAgentFormat.INSTANCE;
    }

    /**
     * The generic format ({@code generic}): a {@code .jsonl} chat log of OpenAI-style
     * {@code {role, content}} messages, for agents without a parser of their own; memories are
     * named after the log's {@code agent} field when it has one. Tried after every other format.
     */
    public static LogFormat generic() {
        return GenericFormat.INSTANCE;
    }

    /** The built-in formats recognised by records only their agent writes, in the order they are tried. */
    static List<LogFormat> specificBuiltIns() {
        return List.of(ClaudeCodeFormat.INSTANCE, CodexFormat.INSTANCE, AiderFormat.INSTANCE, GeminiFormat.INSTANCE,
                ClineFormat.INSTANCE, OpenHandsFormat.INSTANCE, SweAgentFormat.INSTANCE);
    }

    /** The built-in formats and the plug-ins visible to the class loader of this library. */
    public static List<LogFormat> formats() {
        return formats(AgentLogs.class.getClassLoader());
    }

    /**
     * The formats in the order the {@link Indexer} tries them: the built-in formats of specific
     * agents, then the {@link LogFormat} plug-ins that {@link ServiceLoader} finds through
     * {@code loader}, then {@link #generic()}, last so that it never takes a file a specific
     * format reads. A plug-in that fails to load, or whose name is already taken, is left out
     * with a warning in the log.
     */
    public static List<LogFormat> formats(ClassLoader loader) {
        Map<String, LogFormat> byName = new LinkedHashMap<>();
        for (LogFormat builtIn : specificBuiltIns()) {
            byName.put(builtIn.name(), builtIn);
        }

        Iterator<LogFormat> plugins = ServiceLoader.load(LogFormat.class, loader).iterator();
        // Bounded: a provider whose loading keeps failing must not hang the caller.
        for (int attempt = 0; attempt < 1000; attempt++) {
            LogFormat format;
            try {
                if (!plugins.hasNext()) {
                    break;
                }
                format = plugins.next();
            } catch (ServiceConfigurationError e) {
                LOG.warn("A log format plug-in could not be loaded and is ignored: {}", e.getMessage());
                continue;
            }
            LogFormat taken = GenericFormat.NAME.equals(format.name()) ? GenericFormat.INSTANCE
                    : byName.putIfAbsent(format.name(), format);
            if (taken != null && taken != format) {
                LOG.warn("Log format plug-in {} is ignored: the name '{}' is already used by {}",
                        format.getClass().getName(), format.name(), taken.getClass().getName());
            }
        }
        byName.put(GenericFormat.NAME, GenericFormat.INSTANCE);
        return List.copyOf(byName.values());
    }
}
