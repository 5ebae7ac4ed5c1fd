package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code funes} launcher at the repository root, after {@code package}: its first run makes
 * the class-data sharing archive of this build, later runs map it (with {@code -Xshare:on}, a
 * JVM that cannot map it refuses to start, so passing proves it is used), and search, lexical
 * search and why answer exactly the same with the archive and without it ({@code FUNES_CDS=0}).
 */
class CdsLauncherIT {

    private static final Path LAUNCHER = LauncherRun.LAUNCHER;
    private static final Path TARGET = Path.of(System.getProperty("funes.cli.jar", "target/funes-cli.jar"))
            .toAbsolutePath().getParent();

    private static LauncherRun launch(Path tmp, Map<String, String> env, String... args) throws IOException, InterruptedException {
        return LauncherRun.of(tmp, env, args);
    }

    private static List<Path> archives() throws IOException {
        try (Stream<Path> files = Files.list(TARGET)) {
            return files.filter(f -> f.getFileName().toString().startsWith("funes-cds-")).toList();
        }
    }

    @Test
    void theFirstRunMakesTheArchiveAndAnswersAreTheSameWithAndWithoutIt(@TempDir Path tmp) throws Exception {
        assertThat(LAUNCHER).isExecutable();
        for (Path old : archives()) {
            Files.delete(old);
        }
        String store = tmp.resolve("store").toString();
        CliTest.Result index = CliTest.funes("index", "--store", store, "--index-path", "../examples/demo-session");
        assertThat(index.status()).as(index.err()).isZero();

        LauncherRun first = launch(tmp, Map.of(), "stats", "--store", store);
        assertThat(first.status()).as(first.err()).isZero();
        assertThat(first.err()).contains("preparing a faster start-up").doesNotContain("could not");
        // The archive, and the mark that this JDK maps it at its dump address (when it takes the flag).
        assertThat(archives()).filteredOn(f -> f.toString().endsWith(".jsa")).hasSize(1);
        assertThat(archives()).allMatch(f -> f.toString().endsWith(".jsa") || f.toString().endsWith(".jsa.fixed"));

        List<String[]> commands = List.of(
                new String[] {"search", "--json", "--store", store, "two-pass parser"},
                new String[] {"search", "--json", "--retrieval", "lexical", "--store", store, "ledger"},
                new String[] {"why", "--json", "--store", store, "4e1c9a7"});
        for (String[] command : commands) {
            LauncherRun shared = launch(tmp, Map.of("FUNES_JAVA_OPTS", "-Xshare:on"), command);
            LauncherRun plain = launch(tmp, Map.of("FUNES_CDS", "0"), command);
            assertThat(shared.status()).as(shared.err()).isZero();
            assertThat(plain.status()).as(plain.err()).isZero();
            assertThat(shared.err()).as("nothing to prepare any more, no JVM warning").isEmpty();
            assertThat(shared.out()).as(String.join(" ", command)).contains("\"agent\" : \"claude-code\"")
                    .isEqualTo(plain.out());
        }
        servedWithTheArchiveAnswerAsAloneWithout(tmp, store, commands);
    }

    /**
     * With a {@code funes serve} the launcher started: a client mapping the archive (its client
     * classes, the fixed mapping address and the named selector provider included) is answered by
     * the server without building its own command line, and prints what a process alone without
     * the archive prints.
     */
    private static void servedWithTheArchiveAnswerAsAloneWithout(Path tmp, String store, List<String[]> commands)
            throws Exception {
        Path serverErr = tmp.resolve("serve.err");
        ProcessBuilder pb = new ProcessBuilder(LAUNCHER.toString(), "serve", "--store", store, "--idle", "600")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(serverErr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("FUNES_JAVA_OPTS");
        Process server = pb.start();
        try {
            Path socket = Path.of(store).resolve(ServeWire.SOCKET);
            for (int i = 0; i < 6000 && server.isAlive() && !Files.readString(serverErr).contains("funes: serving "); i++) {
                Thread.sleep(50); // waits for the server's line, not for a time
            }
            assertThat(Files.readString(serverErr)).contains("funes: serving ");
            assertThat(socket).exists();
            List<String[]> served = new ArrayList<>(commands);
            served.add(new String[] {"stats", "--json", "--store", store});
            served.add(new String[] {"check", "--quick", "--store", store});
            for (String[] command : served) {
                Path classes = Files.createTempFile(tmp, "classes", ".log");
                LauncherRun client = launch(tmp, Map.of("FUNES_SERVE", "1",
                        "FUNES_JAVA_OPTS", "-Xshare:on -Xlog:class+load=info:file=" + classes), command);
                LauncherRun alone = launch(tmp, Map.of("FUNES_CDS", "0", "FUNES_SERVE", "0"), command);
                assertThat(client.status()).as(client.err()).isZero();
                assertThat(alone.status()).as(alone.err()).isZero();
                assertThat(Files.readString(classes)).as("%s is answered by the server", String.join(" ", command))
                        .doesNotContain(" picocli.CommandLine ").contains("dev.funes.cli.ServeClient source: shared objects file");
                assertThat(client.out()).as(String.join(" ", command)).isNotEmpty().isEqualTo(alone.out());
                assertThat(client.err()).isEqualTo(alone.err());
            }
        } finally {
            server.destroy();
            server.waitFor(1, TimeUnit.MINUTES);
        }
    }
}
