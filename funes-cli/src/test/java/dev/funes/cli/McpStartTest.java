package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes mcp} opens its store beside the protocol's start: a store that cannot be opened
 * still ends the process with status 1 and the reason on stderr, and nothing on stdout, the
 * protocol's stream.
 */
class McpStartTest {

    @TempDir
    Path tmp;

    @Test
    void aStoreThatCannotBeOpenedEndsTheServerWithStatusOneAndTheReason() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("a-file"), "not a store\n");
        try (FunesProcess mcp = FunesProcess.start("384m", "mcp", "--store", notADirectory.toString())) {
            assertThat(mcp.waitFor(Duration.ofMinutes(3))).as(mcp.describe("exit status")).isEqualTo(1);
            assertThat(mcp.err()).as(mcp.describe("stderr")).contains("funes: ").contains(notADirectory.toString());
            assertThat(mcp.out()).as("stdout carries only the protocol").isEmpty();
        }
    }
}
