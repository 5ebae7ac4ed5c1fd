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

    private AgentLogs() {
    }

    /**
     * The default log folders that exist on this machine, for {@link Indexer#index}:
     * Claude Code's {@code projects} folder, {@code $CLAUDE_CONFIG_DIR/projects} when that
     * variable is set, else {@code ~/.claude/projects}, where {@code ~} is the system property
     * {@code user.home} (tests may override it). Folders that do not exist are left out.
     */
    public static List<Path> defaultRoots() {
        List<Path> roots = new ArrayList<>();
        String configDir = System.getenv("CLAUDE_CONFIG_DIR");
        Path claude = configDir != null && !configDir.isBlank()
                ? Path.of(configDir)
                : Path.of(System.getProperty("user.home"), ".claude");
        Path projects = claude.resolve("projects").toAbsolutePath().normalize();
        if (Files.isDirectory(projects)) {
            roots.add(projects);
        }
        return List.copyOf(roots);
    }

    /** The Claude Code format ({@code claude-code}): {@code ~/.claude/projects/<project>/<session>.jsonl}. */
    public static LogFormat claudeCode() {
        return ClaudeCodeFormat.INSTANCE;
    }

    /** The built-in formats and the plug-ins visible to the class loader of this library. */
    public static List<LogFormat> formats() {
        return formats(AgentLogs.class.getClassLoader());
    }

    /**
     * The built-in formats followed by the {@link LogFormat} plug-ins that {@link ServiceLoader}
     * finds through {@code loader}. A plug-in that fails to load, or whose name is already taken,
     * is left out with a warning in the log.
     */
    public static List<LogFormat> formats(ClassLoader loader) {
        Map<String, LogFormat> byName = new LinkedHashMap<>();
        byName.put(ClaudeCodeFormat.INSTANCE.name(), ClaudeCodeFormat.INSTANCE);
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
            LogFormat taken = byName.putIfAbsent(format.name(), format);
            if (taken != null && taken != format) {
                LOG.warn("Log format plug-in {} is ignored: the name '{}' is already used by {}",
                        format.getClass().getName(), format.name(), taken.getClass().getName());
            }
        }
        return List.copyOf(byName.values());
    }
}
