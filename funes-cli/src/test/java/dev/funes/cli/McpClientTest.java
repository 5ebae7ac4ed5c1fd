package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes mcp} driven by a client Funes did not write: the official MCP TypeScript SDK, through
 * {@code src/test/mcp-client/check.mjs}, which starts the server as a separate JVM on this module's
 * classes and checks every tool. Skipped, visibly, where Node.js or npm is not installed.
 */
class McpClientTest {

    static final Path CLIENT = Path.of("src/test/mcp-client");

    @Test
    void theOfficialTypeScriptClientCallsEveryToolAndGetsTheExpectedAnswers(@TempDir Path tmp)
            throws IOException, InterruptedException {
        assumeTrue(works("node", "--version") && works("npm", "--version"),
                "skipped: node and npm are needed to run the MCP TypeScript SDK client (src/test/mcp-client)");
        if (!Files.isDirectory(CLIENT.resolve("node_modules/@modelcontextprotocol/sdk"))) {
            Run install = run(tmp, List.of("npm", "ci", "--no-audit", "--no-fund", "--prefix", CLIENT.toString()));
            assertThat(install.status()).as("npm ci in %s:%n%s", CLIENT, install.output()).isZero();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Run check = run(tmp, List.of("node", CLIENT.resolve("check.mjs").toString(),
                "--java", java, "--classpath", testClasspath(),
                "--store", tmp.resolve("store").toString(), "--sample", "../examples/demo-session"));
        System.out.println(check.output());
        assertThat(check.status()).as("MCP client check transcript:%n%s", check.output()).isZero();
        assertThat(check.output()).contains("MCP client check: all passed").doesNotContain("FAIL");
    }

    /** This module's classes and dependencies, as surefire gives them to the test JVM. */
    private static String testClasspath() {
        String classpath = System.getProperty("java.class.path");
        if (classpath.contains("surefirebooter")) {
            classpath = System.getProperty("surefire.test.class.path", classpath);
        }
        assertThat(classpath).as("the test classpath names the CLI's classes").contains("funes-cli");
        return classpath;
    }

    record Run(int status, String output) {
    }

    private static Run run(Path tmp, List<String> command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(tmp, "run", ".log");
        Process process = new ProcessBuilder(new ArrayList<>(command))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        process.getOutputStream().close();
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
        return new Run(process.waitFor(), Files.readString(log, StandardCharsets.UTF_8));
    }

    private static boolean works(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            return process.waitFor() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
