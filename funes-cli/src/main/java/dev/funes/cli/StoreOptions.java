package dev.funes.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --store DIR} option every command takes, and the name of its one backend. */
final class StoreOptions {

    /** The one backend: SQLite with FTS5 and JVector files, in the store directory. */
    static final String LOCAL_SQLITE = "local-sqlite";

    @Option(names = {"-s", "--store"}, paramLabel = "DIR",
            description = "Store directory (default: $FUNES_HOME, else 'store' in ~/.config/funes/config.toml, else ~/.funes).")
    Path store;

    @Option(names = "--vector-db", paramLabel = "NAME", converter = OptionValues.VectorDb.class,
            description = "The store's backend; one exists: " + LOCAL_SQLITE + " (the default).")
    String vectorDb;

    /** The store directory: the option, else {@code $FUNES_HOME}, else the user's config, else {@code ~/.funes}. */
    Path dir() {
        return dirSetting().value();
    }

    /**
     * {@link #dir()} and where it came from.
     *
     * @throws dev.funes.FunesException naming the file and line when the user's config is malformed
     */
    FunesConfig.Setting<Path> dirSetting() {
        if (store != null) {
            return new FunesConfig.Setting<>(ServeWire.workingDirectory().resolve(store).normalize(), "--store");
        }
        String home = System.getenv("FUNES_HOME");
        if (home != null && !home.isBlank()) {
            return new FunesConfig.Setting<>(ServeWire.workingDirectory().resolve(home).normalize(), "$FUNES_HOME");
        }
        return FunesConfig.userStore().orElseGet(() ->
                new FunesConfig.Setting<>(Path.of(System.getProperty("user.home"), ".funes"), "default"));
    }
}
