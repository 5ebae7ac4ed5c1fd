package dev.funes.bench.ann;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Library versions as their jars record them, for the benchmark's report. */
final class Versions {

    private Versions() {
    }

    /** The version in the jar's Maven {@code pom.properties}, or {@code ?} if it has none. */
    static String of(String groupId, String artifactId) {
        String name = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Versions.class.getResourceAsStream(name)) {
            if (in == null) {
                return "?";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "?");
        } catch (IOException e) {
            return "?";
        }
    }
}
