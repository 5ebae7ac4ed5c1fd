package dev.funes.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --store DIR} option every command takes, and the name of its one backend. */
final class StoreOptions {

    /** The one backend: SQLite with FTS5 and JVector files, in the store directory. */
    static final String LOCAL_SQLITE = "local-sqlite";

    @Option(names = {"-s", "--store"}, paramLabel = "DIR",
            description = "Store directory (default: $FUNES_HOME, else ~/.funes).")
    Path store;

    @Option(names = "--vector-db", paramLabel = "NAME", converter = OptionValues.VectorDb.class,
            description = "The store's backend; one exists: " + LOCAL_SQLITE + " (the default).")
    String vectorDb;

    /** The store directory: the option, else {@code $FUNES_HOME}, else {@code ~/.funes}. */
    Path dir() {
        if (store != null) {
            return store.toAbsolutePath().normalize();
        }
        String home = System.getenv("FUNES_HOME");
        if (home != null && !home.isBlank()) {
            return Path.of(home).toAbsolutePath().normalize();
        }
        return Path.of(System.getProperty("user.home"), ".funes");
    }
}
