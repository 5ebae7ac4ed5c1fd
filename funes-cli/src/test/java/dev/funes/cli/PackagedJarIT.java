package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as the launcher runs it, after {@code package}: {@code funes-cli.jar} and the
 * jars of {@code target/lib}. Their manifests carry the project version and a module name, and the
 * packaged {@code funes} reports that version (not a placeholder) on {@code --version} and in the
 * MCP server info.
 */
class PackagedJarIT {

    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final String VERSION = System.getProperty("funes.project.version");
    private static final Path JAR = Path.of(System.getProperty("funes.cli.jar", "target/funes-cli.jar"));
    private static final Path LIB = Path.of(System.getProperty("funes.cli.lib", "target/lib"));
    /** The project's jars the launcher loads, by module name. */
    private static final Set<String> FUNES_MODULES =
            Set.of("dev.funes.core", "dev.funes.embed", "dev.funes.store", "dev.funes.git", "dev.funes.cli");

    @Test
    void theCliJarsManifestNamesTheProjectVersionTitleAndModule() throws IOException {
        assertThat(VERSION).as("funes.project.version, set by the build").isNotBlank();
        try (JarFile jar = new JarFile(JAR.toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertThat(main.getValue("Implementation-Version")).isEqualTo(VERSION);
            assertThat(main.getValue("Implementation-Title")).isEqualTo("Funes command line");
            assertThat(main.getValue("Automatic-Module-Name")).isEqualTo("dev.funes.cli");
        }
    }

    @Test
    void everyFunesJarTheLauncherLoadsIsANamedModuleOfThisVersion() throws IOException {
        List<Path> jars = new ArrayList<>(List.of(JAR));
        try (Stream<Path> lib = Files.list(LIB)) {
            lib.filter(p -> p.getFileName().toString().startsWith("funes-")).sorted().forEach(jars::add);
        }
        List<String> names = new ArrayList<>();
        for (Path jar : jars) {
            // What the module system makes of the jar, as `jar --describe-module --file JAR` shows it.
            Set<ModuleReference> found = ModuleFinder.of(jar).findAll();
            assertThat(found).as(jar.toString()).hasSize(1);
            ModuleDescriptor module = found.iterator().next().descriptor();
            assertThat(module.isAutomatic()).as(jar + " is an automatic module").isTrue();
            names.add(module.name());
            try (JarFile file = new JarFile(jar.toFile())) {
                assertThat(file.getManifest().getMainAttributes().getValue("Implementation-Version"))
                        .as("the version in the manifest of %s", jar).isEqualTo(VERSION);
            }
        }
        assertThat(names).containsExactlyInAnyOrderElementsOf(FUNES_MODULES);
    }

    @Test
    void thePackagedCommandLinePrintsTheProjectVersion() throws Exception {
        for (String option : List.of("--version", "-V")) {
            try (FunesProcess funes = FunesProcess.startCommand(packaged(option))) {
                funes.closeStdin();
                assertThat(funes.waitFor(PATIENCE)).as(funes.describe("exit status")).isZero();
                assertThat(funes.out()).as(funes.describe(option)).isEqualTo("funes " + VERSION + "\n");
            }
        }
    }

    @Test
    void thePackagedMcpServerReportsTheProjectVersion(@TempDir Path store) throws Exception {
        try (FunesProcess mcp = FunesProcess.startCommand(packaged("mcp", "--store", store.toString()))) {
            JsonNode info = new McpStdioClient(mcp, PATIENCE).initialize().path("serverInfo");
            assertThat(info.path("name").asText()).isEqualTo("funes");
            assertThat(info.path("version").asText()).as(info.toString()).isEqualTo(VERSION);
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
        }
    }

    /** {@code funes ARGS} the way the launcher starts it: the CLI jar and every jar of lib. */
    private static List<String> packaged(String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
                "-cp", JAR.toAbsolutePath() + File.pathSeparator + LIB.toAbsolutePath().resolve("*"),
                Main.class.getName()));
        command.addAll(List.of(args));
        return command;
    }
}
