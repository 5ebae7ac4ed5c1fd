package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.NodeList;

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
            Set.of("dev.funes.core", "dev.funes.embed", "dev.funes.store", "dev.funes.git", "dev.funes.ui", "dev.funes.solr",
                    "dev.funes.cli",
                    "dev.funes.model.minilmq", "dev.funes.model.minilm", "dev.funes.model.bge",
                    "dev.funes.model.e5");

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
        List<Path> jars = funesJars();
        List<String> names = new ArrayList<>();
        for (Path jar : jars) {
            // What the module system makes of the jar, as `jar --describe-module --file JAR` shows it.
            Set<ModuleReference> found = ModuleFinder.of(jar).findAll();
            assertThat(found).as(jar.toString()).hasSize(1);
            ModuleDescriptor module = found.iterator().next().descriptor();
            // funes-core and funes-embed have a module-info; the others name themselves in the manifest.
            assertThat(module.isAutomatic()).as(jar + " is an automatic module")
                    .isEqualTo(!Set.of("dev.funes.core", "dev.funes.embed").contains(module.name()));
            names.add(module.name());
            try (JarFile file = new JarFile(jar.toFile())) {
                assertThat(file.getManifest().getMainAttributes().getValue("Implementation-Version"))
                        .as("the version in the manifest of %s", jar).isEqualTo(VERSION);
            }
        }
        assertThat(names).containsExactlyInAnyOrderElementsOf(FUNES_MODULES);
    }

    @Test
    void everyFunesJarCarriesTheLicenceAndNotice() throws IOException {
        for (Path jar : funesJars()) {
            try (JarFile file = new JarFile(jar.toFile())) {
                for (String entry : List.of("META-INF/LICENSE", "META-INF/NOTICE")) {
                    assertThat(file.getJarEntry(entry)).as("%s in %s", entry, jar).isNotNull();
                }
                String licence = new String(file.getInputStream(file.getJarEntry("META-INF/LICENSE")).readAllBytes(),
                        StandardCharsets.UTF_8);
                assertThat(licence).as(jar.toString()).contains("Apache License", "Version 2.0, January 2004");
            }
        }
    }

    /**
     * The BOM is the one pom without the parent (so it pins Funes artifacts only); this keeps it
     * from drifting: same version as the project, and exactly the published modules.
     */
    @Test
    void theBomPinsEveryPublishedModuleAtTheProjectVersion() throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Set<String> published = new TreeSet<>(texts(pom(root.resolve("pom.xml")), "/project/modules/module"));
        published.removeAll(Set.of("funes-bom", "funes-benchmarks", "funes-dist", "examples"));
        assertThat(published).as("the parent's modules").contains("funes-core", "funes-store", "funes-cli");

        Document bom = pom(root.resolve("funes-bom/pom.xml"));
        assertThat(texts(bom, "/project/version")).containsExactly(VERSION);
        assertThat(texts(bom, "/project/parent")).as("the BOM has no parent").isEmpty();
        assertThat(new TreeSet<>(texts(bom, "/project/dependencyManagement/dependencies/dependency/artifactId")))
                .isEqualTo(published);
        assertThat(texts(bom, "/project/dependencyManagement/dependencies/dependency/version"))
                .containsOnly("${project.version}");
        assertThat(texts(bom, "/project/licenses/license/name")).containsExactly("Apache-2.0");
    }

    private static List<Path> funesJars() throws IOException {
        List<Path> jars = new ArrayList<>(List.of(JAR));
        try (Stream<Path> lib = Files.list(LIB)) {
            lib.filter(p -> p.getFileName().toString().startsWith("funes-")).sorted().forEach(jars::add);
        }
        return jars;
    }

    private static Document pom(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    private static List<String> texts(Document doc, String path) throws Exception {
        NodeList nodes = (NodeList) XPathFactory.newInstance().newXPath().evaluate(path, doc, XPathConstants.NODESET);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent().trim());
        }
        return texts;
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
