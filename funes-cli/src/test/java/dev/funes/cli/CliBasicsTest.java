package dev.funes.cli;

import static dev.funes.cli.CliTest.funes;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What every command line tool should do: version, help, usage. No store involved. */
class CliBasicsTest {

    private static final String VERSION = System.getProperty("funes.project.version");

    @Test
    void versionIsTheProjectVersionEvenFromAClassesFolder() {
        assertThat(VERSION).as("funes.project.version, set by the build").isNotBlank();
        // Tests run from target/classes: no jar manifest, so this is the version the build wrote.
        assertThat(FunesVersion.current()).isEqualTo(VERSION);
        CliTest.Result result = funes("--version");
        assertThat(result.status()).as(result.err()).isZero();
        assertThat(result.out()).isEqualTo("funes " + VERSION + System.lineSeparator());
    }
}
