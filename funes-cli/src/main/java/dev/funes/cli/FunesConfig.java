package dev.funes.cli;

import dev.funes.FunesException;
import dev.funes.embed.BundledModel;
import dev.funes.store.FusionOptions;
import dev.funes.store.RerankOptions;
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
    static final String DENSE_WEIGHT = "dense-weight";
    static final String NEIGHBOUR_WEIGHT = "neighbour-weight";

    /** The keys, each with what its value is, in the order {@code funes config} shows them. */
    private static final Map<String, ConfigFile.Type> KEYS = keys();

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

    private static Map<String, ConfigFile.Type> keys() {
        Map<String, ConfigFile.Type> keys = new LinkedHashMap<>();
        keys.put(STORE, ConfigFile.Type.STRING);
        keys.put(INDEX_PATHS, ConfigFile.Type.STRINGS);
        keys.put(MODEL, ConfigFile.Type.STRING);
        keys.put(REDACTION_RULES, ConfigFile.Type.STRING);
        keys.put(TEAM, ConfigFile.Type.STRING);
        keys.put(DENSE_WEIGHT, ConfigFile.Type.NUMBER);
        keys.put(NEIGHBOUR_WEIGHT, ConfigFile.Type.NUMBER);
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

    /**
     * The dense side's weight in the fusion of a search, from 0 to 1; the lexical side's is 1 minus
     * it (the default is {@link FusionOptions#MINMAX}'s 0.4).
     *
     * @throws FunesException naming the file and line of a value out of range
     */
    Optional<Setting<Double>> denseWeight() {
        return number(DENSE_WEIGHT, 1);
    }

    /**
     * The share of its better neighbour's score an exchange gains in a search, at least 0
     * ({@link dev.funes.store.RerankOptions#neighbourWeight()}; the default is 0).
     *
     * @throws FunesException naming the file and line of a negative value
     */
    Optional<Setting<Double>> neighbourWeight() {
        return number(NEIGHBOUR_WEIGHT, Double.MAX_VALUE);
    }

    /**
     * The search options the files set, on top of the store's defaults: the fusion's weights and
     * the neighbours' share.
     */
    dev.funes.store.StoreOptions.Builder searchOptions(dev.funes.store.StoreOptions.Builder builder) {
        denseWeight().ifPresent(w -> builder.fusion(new FusionOptions(FusionOptions.Method.MINMAX, w.value(),
                1 - w.value(), FusionOptions.DEFAULT_RRF_K)));
        neighbourWeight().ifPresent(w -> builder.rerank(RerankOptions.DEFAULT.withNeighbourWeight(w.value())));
        return builder;
    }

    private Optional<Setting<Double>> number(String key, double max) {
        return entry(key).map(e -> {
            double value = Double.parseDouble(e.values().get(0));
            if (!(value >= 0 && value <= max) || Double.isInfinite(value)) {
                throw new FunesException(e.where() + ": '" + key + "' must be " + (max == 1 ? "from 0 to 1" : "at least 0")
                        + ", was " + e.values().get(0));
            }
            return new Setting<>(value, e.where());
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
