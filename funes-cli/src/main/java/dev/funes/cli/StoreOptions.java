package dev.funes.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --store DIR} option every command takes. */
final class StoreOptions {

    @Option(names = "--store", paramLabel = "DIR",
            description = "Store directory (default: $FUNES_HOME, else ~/.funes).")
    Path store;

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
