package dev.funes.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The project version this command line was built as, for {@code --version} and the MCP server
 * info. The jar's manifest ({@code Implementation-Version}) says it when running from the built
 * jar; run from a classes folder (tests, an IDE) there is no manifest, so the build also writes
 * the version into a resource.
 */
final class FunesVersion {

    private FunesVersion() {
    }

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}. */
    static String current() {
        String packaged = FunesVersion.class.getPackage().getImplementationVersion();
        return packaged != null ? packaged : fromResource();
    }

    private static String fromResource() {
        try (InputStream in = FunesVersion.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("dev/funes/cli/version.properties is missing: build with Maven");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read dev/funes/cli/version.properties", e);
        }
    }
}
