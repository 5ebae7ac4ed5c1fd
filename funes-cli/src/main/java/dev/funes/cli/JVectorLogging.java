package dev.funes.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.LogManager;

/**
 * java.util.logging's configuration for a command that may never load JVector ({@code index} of
 * logs that did not change never opens the dense index): the JDK's own configuration plus
 * JVector's loggers at errors only, what {@link Main#quietJVector()} sets, applied when
 * java.util.logging starts rather than started for it (tens of milliseconds of a cold process,
 * docs/BENCHMARKS.md, "Cold start"). Named by the system property
 * {@value #PROPERTY}; {@link LogManager} instantiates it, hence public.
 */
public final class JVectorLogging {

    /** The system property {@link LogManager} reads its configuration class from. */
    static final String PROPERTY = "java.util.logging.config.class";

    /** Reads the JDK's configuration file, with JVector's level added, as java.util.logging's configuration. */
    public JVectorLogging() throws IOException {
        ByteArrayOutputStream config = new ByteArrayOutputStream();
        Path jdk = Path.of(System.getProperty("java.home"), "conf", "logging.properties");
        if (Files.isRegularFile(jdk)) {
            config.write(Files.readAllBytes(jdk));
        }
        config.write("\nio.github.jbellis.level = SEVERE\n".getBytes(StandardCharsets.ISO_8859_1));
        LogManager.getLogManager().readConfiguration(new ByteArrayInputStream(config.toByteArray()));
    }

    /**
     * Makes this class java.util.logging's configuration, unless the user named a configuration
     * (a file or a class): then JVector's level is set at once, as for other commands.
     */
    static void whenLoggingStarts() {
        if (System.getProperty(PROPERTY) == null && System.getProperty("java.util.logging.config.file") == null) {
            System.setProperty(PROPERTY, JVectorLogging.class.getName());
        } else {
            Main.quietJVector();
        }
    }
}
