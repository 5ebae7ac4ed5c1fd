package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Models other than the default are optional artifacts: a store built with bge-small (or e5-small)
 * opens with {@code funes-model-bge-small-en-v15-q} (or {@code funes-model-e5-small-v2-q}) on the
 * class path, and without it fails with an error naming that artifact (not a missing resource).
 * Runs the packaged command line, once with every jar of {@code target/lib} and once without the
 * model's jar, as a user's build without the dependency would.
 */
class ModelArtifactIT {

    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final Path JAR = Path.of(System.getProperty("funes.cli.jar", "target/funes-cli.jar"));
    private static final Path LIB = Path.of(System.getProperty("funes.cli.lib", "target/lib"));
    private static final Path DEMO = Path.of("../examples/demo-session").toAbsolutePath().normalize();

    @ParameterizedTest
    @ValueSource(strings = {"bge-small-en-v15-q", "e5-small-v2-q"})
    void aStoreOfAnOptionalModelNeedsItsArtifactAndTheErrorNamesIt(String model, @TempDir Path store)
            throws Exception {
        String withModel = classpath(jar -> true);
        String withoutModel = classpath(jar -> !jar.contains(model));
        assertThat(withoutModel).isNotEqualTo(withModel).doesNotContain(model);

        FunesProcess index = run(withModel, "index", "--index-path", DEMO.toString(), "--store", store.toString(),
                "--model", model);
        assertThat(index.status()).as(index.describe("index with " + model)).isZero();

        FunesProcess missing = run(withoutModel, "search", "--store", store.toString(), "unknown account");
        assertThat(missing.status()).as(missing.describe("search without the " + model + " jar")).isNotZero();
        assertThat(missing.err()).as(missing.describe("the error")).contains("dev.funes:funes-model-" + model)
                .contains(model);

        FunesProcess found = run(withModel, "search", "--store", store.toString(), "--json", "unknown account");
        assertThat(found.status()).as(found.describe("search with the " + model + " jar")).isZero();
        assertThat(found.out()).as(found.describe("hits")).contains("ACC-2231");
    }

    private static FunesProcess run(String classpath, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-cp", classpath, Main.class.getName()));
        command.addAll(List.of(args));
        FunesProcess funes = FunesProcess.startCommand(command);
        funes.closeStdin();
        funes.waitFor(PATIENCE);
        return funes;
    }

    private static String classpath(java.util.function.Predicate<String> keep) throws IOException {
        try (Stream<Path> lib = Files.list(LIB)) {
            return Stream.concat(Stream.of(JAR.toAbsolutePath().toString()),
                    lib.map(p -> p.toAbsolutePath().toString()).filter(keep).sorted())
                    .collect(Collectors.joining(File.pathSeparator));
        }
    }
}
