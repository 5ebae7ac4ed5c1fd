package dev.funes.cli;

import dev.funes.FunesException;
import dev.funes.embed.BundledModel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The settings of the config files: the user's ({@code $XDG_CONFIG_HOME/funes/config.toml}, else
 * {@code ~/.config/funes/config.toml}) and the store's ({@code <store>/config.toml}). A flag
 * overrides the environment, which overrides the store's file, which overrides the user's, which
 * overrides the built-in default. The store's file cannot name the store. Paths may start with
 * {@code ~}; relative paths are relative to the file's folder. docs/CLI.md lists the keys.
 */
final class FunesConfig {

    /** The file name, in the user's config folder and in a store. */
    static final String FILE_NAME = "config.toml";
    static final String STORE = "store";
    static final String INDEX_PATHS = "index-paths";
    static final String MODEL = "model";
    static final String REDACTION_RULES = "redaction-rules";
    static final String TEAM = "team";

    /** The keys, each with whether its value is an array, in the order {@code funes config} shows them. */
    private static final Map<String, Boolean> KEYS = keys();

    /**
     * A value and where it came from.
     *
     * @param value  the value
     * @param source a flag, a variable, {@code FILE:LINE}, or {@code default}
     */
    record Setting<T>(T value, String source) {
    }

    private final Path userFile;
    private final Optional<ConfigFile> user;
    private final Path storeFile;
    private final Optional<ConfigFile> store;

    private FunesConfig(Path userFile, Optional<ConfigFile> user, Path storeFile, Optional<ConfigFile> store) {
        this.userFile = userFile;
        this.user = user;
        this.storeFile = storeFile;
        this.store = store;
    }

    private static Map<String, Boolean> keys() {
        Map<String, Boolean> keys = new LinkedHashMap<>();
        keys.put(STORE, false);
        keys.put(INDEX_PATHS, true);
        keys.put(MODEL, false);
        keys.put(REDACTION_RULES, false);
        keys.put(TEAM, false);
        return keys;
    }

    /** The user's config file, whether or not it exists. */
    static Path userFile() {
        String xdg = System.getenv("XDG_CONFIG_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()
                ? Path.of(xdg) : home().resolve(".config");
        return base.resolve("funes").resolve(FILE_NAME).toAbsolutePath().normalize();
    }

    /**
     * The store the user's config names, if it does.
     *
     * @throws FunesException naming the file and line when the file is malformed
     */
    static Optional<Setting<Path>> userStore() {
        Path file = userFile();
        return ConfigFile.read(file, KEYS).flatMap(c -> c.entry(STORE)).map(e -> new Setting<>(path(e), e.where()));
    }

    /**
     * The user's and the store's config files.
     *
     * @throws FunesException naming the file and line when one is malformed
     */
    static FunesConfig of(Path storeDir) {
        Path userFile = userFile();
        Path storeFile = storeDir.resolve(FILE_NAME).toAbsolutePath().normalize();
        Optional<ConfigFile> store = ConfigFile.read(storeFile, KEYS);
        store.flatMap(c -> c.entry(STORE)).ifPresent(e -> {
            throw new FunesException(e.where() + ": a store's own config cannot name the store; set 'store' in " + userFile);
        });
        return new FunesConfig(userFile, ConfigFile.read(userFile, KEYS), storeFile, store);
    }

    /** The folders and files {@code index} and {@code watch} read when no {@code --index-path} is given. */
    Optional<Setting<List<Path>>> indexPaths() {
        return entry(INDEX_PATHS).map(e -> {
            List<Path> paths = new ArrayList<>();
            for (String value : e.values()) {
                paths.add(path(value, e));
            }
            return new Setting<>(List.copyOf(paths), e.where());
        });
    }

    /**
     * What {@code index} and {@code watch} read without {@code --index-path}: the config's
     * {@code index-paths}, else the supported agents' log folders that exist.
     */
    Setting<List<Path>> roots() {
        return indexPaths().orElseGet(() -> new Setting<>(dev.funes.ingest.AgentLogs.defaultRoots(),
                "default: the agents' log folders that exist"));
    }

    /**
     * The model of a new store, checked against the bundled models.
     *
     * @throws FunesException naming the file and line of an unknown model
     */
    Optional<Setting<String>> model() {
        return entry(MODEL).map(e -> {
            try {
                return new Setting<>(BundledModel.fromId(e.values().get(0)).id(), e.where());
            } catch (IllegalArgumentException ex) {
                throw new FunesException(e.where() + ": " + ex.getMessage());
            }
        });
    }

    /** A redaction rules file to add to the built-in rules (and the store's own rules file). */
    Optional<Setting<Path>> redactionRules() {
        return entry(REDACTION_RULES).map(e -> new Setting<>(path(e), e.where()));
    }

    /**
     * The team collection the MCP server's {@code search_memory} also asks (docs/TEAM.md).
     *
     * @throws FunesException naming the file and line of a value that is not a team URL
     */
    Optional<Setting<dev.funes.solr.TeamUrl>> team() {
        return entry(TEAM).map(e -> {
            try {
                return new Setting<>(dev.funes.solr.TeamUrl.parse(e.values().get(0)), e.where());
            } catch (IllegalArgumentException ex) {
                throw new FunesException(e.where() + ": " + ex.getMessage());
            }
        });
    }

    /** The user's config file and whether it exists. */
    Setting<Path> userFileState() {
        return new Setting<>(userFile, user.isPresent() ? "read" : "absent");
    }

    /** The store's config file and whether it exists. */
    Setting<Path> storeFileState() {
        return new Setting<>(storeFile, store.isPresent() ? "read" : "absent");
    }

    /** The store's entry for {@code key}, else the user's. */
    private Optional<ConfigFile.Entry> entry(String key) {
        Optional<ConfigFile.Entry> own = store.flatMap(c -> c.entry(key));
        return own.isPresent() ? own : user.flatMap(c -> c.entry(key));
    }

    private static Path path(ConfigFile.Entry entry) {
        return path(entry.values().get(0), entry);
    }

    /** {@code ~} is the home folder; a relative path is relative to the config file's folder. */
    private static Path path(String value, ConfigFile.Entry entry) {
        if (value.isBlank()) {
            throw new FunesException(entry.where() + ": '" + entry.key() + "' is empty");
        }
        Path path;
        if (value.equals("~")) {
            path = home();
        } else if (value.startsWith("~/") || value.startsWith("~\\")) {
            path = home().resolve(value.substring(2));
        } else {
            try {
                path = Path.of(value);
            } catch (java.nio.file.InvalidPathException e) {
                throw new FunesException(entry.where() + ": not a path: " + value);
            }
            if (!path.isAbsolute()) {
                path = entry.file().getParent().resolve(path);
            }
        }
        return path.toAbsolutePath().normalize();
    }

    private static Path home() {
        return Path.of(System.getProperty("user.home"));
    }
}
