package dev.funes.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archives {@code package} builds, as a user gets them: both hold the same files with the
 * same modes (an executable {@code bin/funes}); the launchers name a main class that the packaged
 * jar holds; and the zip, unpacked in a temporary folder, runs {@code bin/funes} with a PATH that
 * holds java and the few POSIX utilities the launcher uses, and no Maven, from outside the
 * repository: {@code --version}, a demo store, {@code stats} on it, and the class-data sharing
 * archive made once in the user's cache and mapped by the next start.
 */
class DistributionIT {

    private static final String VERSION = System.getProperty("funes.project.version");
    private static final Path ZIP = Path.of(System.getProperty("funes.dist.zip"));
    private static final Path TAR = Path.of(System.getProperty("funes.dist.tar"));
    private static final String TOP = "funes-" + VERSION + "/";
    private static final String MAIN = "dev.funes.cli.Main";
    /** What bin/funes runs besides java (its header comment names them). */
    private static final List<String> UTILITIES = List.of("sh", "readlink", "cksum", "grep", "mkdir", "mv", "rm", "touch");

    /** Name to Unix mode (permission bits) of each file in the zip. */
    private static Map<String, Integer> zipFiles() throws IOException {
        Map<String, Integer> files = new TreeMap<>();
        try (ZipFile zip = ZipFile.builder().setPath(ZIP).get()) {
            for (ZipArchiveEntry entry : Collections.list(zip.getEntries())) {
                if (!entry.isDirectory()) {
                    files.put(entry.getName(), entry.getUnixMode() & 0777);
                }
            }
        }
        return files;
    }

    private static Map<String, Integer> tarFiles() throws IOException {
        Map<String, Integer> files = new TreeMap<>();
        try (InputStream in = Files.newInputStream(TAR);
             TarArchiveInputStream tar = new TarArchiveInputStream(new GzipCompressorInputStream(in))) {
            for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
                if (!entry.isDirectory()) {
                    files.put(entry.getName(), entry.getMode() & 0777);
                }
            }
        }
        return files;
    }

    @Test
    void bothArchivesHoldTheLaunchersTheDocumentsAndTheRuntimeJars() throws IOException {
        Map<String, Integer> zip = zipFiles();
        assertThat(tarFiles()).as("the tar.gz holds what the zip holds").isEqualTo(zip);

        assertThat(zip).containsEntry(TOP + "bin/funes", 0755).containsEntry(TOP + "bin/funes.cmd", 0644)
                .containsEntry(TOP + "README.md", 0644).containsEntry(TOP + "LICENSE", 0644)
                .containsEntry(TOP + "NOTICE", 0644);
        List<String> lib = new ArrayList<>();
        for (String name : zip.keySet()) {
            assertThat(name).as("every file under one folder").startsWith(TOP);
            if (name.startsWith(TOP + "lib/")) {
                lib.add(name.substring((TOP + "lib/").length()));
            }
        }
        assertThat(lib).allMatch(n -> n.endsWith(".jar") && !n.contains("/"), "plain jars in lib/")
                .contains("funes-cli-" + VERSION + ".jar", "funes-core-" + VERSION + ".jar",
                        "funes-store-" + VERSION + ".jar", "funes-embed-" + VERSION + ".jar",
                        "funes-git-" + VERSION + ".jar", "funes-model-all-minilm-l6-v2-q-" + VERSION + ".jar",
                        "picocli-4.7.7.jar")
                .anyMatch(n -> n.startsWith("sqlite-jdbc-")).anyMatch(n -> n.startsWith("onnxruntime-"))
                .noneMatch(n -> n.startsWith("junit-") || n.startsWith("assertj-") || n.startsWith("langchain4j-"));
        // One version of each library: two would mean the class path depends on the directory order.
        Map<String, String> byArtifact = new HashMap<>();
        for (String jar : lib) {
            String artifact = jar.replaceFirst("-\\d[^-]*(-SNAPSHOT)?(-r)?\\.jar$", "");
            assertThat(byArtifact.put(artifact, jar)).as("another version of " + jar).isNull();
        }
    }

    @Test
    void bothLaunchersRunTheMainClassOfThePackagedJarFromLib(@TempDir Path tmp) throws IOException {
        Path dist = unzip(tmp);
        String sh = Files.readString(dist.resolve("bin/funes"));
        String cmd = Files.readString(dist.resolve("bin/funes.cmd"));

        assertThat(sh).startsWith("#!/bin/sh\n").doesNotContain("\r").doesNotContain("mvn")
                .contains("cp=\"$dist/lib/*\"", " dev.funes.cli.Main \"$@\"", "dev.funes.cli.CdsTraining");
        // cmd.exe wants CRLF; the launcher finds lib\ beside its own folder, not from the caller's.
        assertThat(cmd.split("\r\n", -1)).as("every line ends in CRLF").allMatch(l -> !l.contains("\n"));
        assertThat(cmd).startsWith("@echo off\r\n").doesNotContain("mvn")
                .contains("set \"FUNES_DIST=%~dp0..\"")
                .contains("-cp \"%FUNES_DIST%\\lib\\*\" " + MAIN + " %*")
                .contains("exit /b %ERRORLEVEL%")
                // FUNES_HOME is the user's store folder: the launcher must not set it.
                .doesNotContain("set \"FUNES_HOME");
        Matcher cmdMain = Pattern.compile("lib\\\\\\*\" ([\\w.]+) %\\*").matcher(cmd);
        assertThat(cmdMain.find()).isTrue();

        try (JarFile jar = new JarFile(dist.resolve("lib/funes-cli-" + VERSION + ".jar").toFile())) {
            for (String main : List.of(cmdMain.group(1), MAIN, "dev.funes.cli.CdsTraining")) {
                assertThat(jar.getJarEntry(main.replace('.', '/') + ".class")).as(main).isNotNull();
            }
        }
    }

    @Test
    void theUnpackedZipRunsWithJavaAloneOutsideTheRepository(@TempDir Path tmp) throws Exception {
        try {
            runTheUnpackedZip(tmp);
        } finally {
            // The links of the PATH: removed here, so that JUnit does not warn on each one.
            if (Files.isDirectory(tmp.resolve("path"))) {
                try (Stream<Path> links = Files.list(tmp.resolve("path"))) {
                    for (Path link : links.toList()) {
                        Files.delete(link);
                    }
                }
            }
        }
    }

    private static void runTheUnpackedZip(Path tmp) throws Exception {
        Path dist = unzip(tmp);
        Path funes = dist.resolve("bin/funes");
        assertThat(funes).isExecutable();
        Path cache = tmp.resolve("cache");

        Run version = run(tmp, funes, Map.of(), "--version");
        assertThat(version.status()).as(version.err()).isZero();
        assertThat(version.out()).isEqualTo("funes " + VERSION + "\n");
        assertThat(version.err()).as("the first start prepares the archive")
                .contains("preparing a faster start-up").doesNotContain("could not");
        List<Path> archives;
        try (Stream<Path> files = Files.list(cache.resolve("funes"))) {
            archives = files.toList();
        }
        // The archive, and the mark that this JDK maps it at its dump address (when it takes the flag).
        assertThat(archives).filteredOn(f -> f.toString().endsWith(".jsa")).hasSize(1);
        assertThat(archives).allMatch(f -> f.toString().endsWith(".jsa") || f.toString().endsWith(".jsa.fixed"));

        Path demo = tmp.resolve("demo");
        Run made = run(tmp, funes, Map.of(), "demo", "--store", demo.toString());
        assertThat(made.status()).as(made.err()).isZero();
        assertThat(made.out()).contains("Indexed the sample session");

        // -Xshare:on: a JVM that cannot map the archive refuses to start.
        Run stats = run(tmp, funes, Map.of("FUNES_JAVA_OPTS", "-Xshare:on"), "stats", "--store",
                demo.resolve("store").toString());
        assertThat(stats.status()).as(stats.err()).isZero();
        assertThat(stats.err()).as("nothing to prepare any more, no JVM warning").isEmpty();
        assertThat(stats.out()).contains("store      " + demo.resolve("store"))
                .containsPattern("memories   [1-9]\\d* in 1 sessions from 1 files");
        // sqlite-jdbc's library, extracted once into the user's cache and loaded from there since.
        assertThat(cache.resolve("funes/native")).isDirectoryContaining("glob:**/libsqlitejdbc-*");
    }

    private record Run(int status, String out, String err) {
    }

    /**
     * {@code bin/funes ARGS} from the temporary folder, with a PATH of links to java and the
     * utilities only (no Maven), no JAVA_HOME (java is found on the PATH) and the cache, HOME and
     * FUNES_HOME inside the temporary folder.
     */
    private static Run run(Path tmp, Path funes, Map<String, String> env, String... args) throws Exception {
        Path bin = tmp.resolve("path");
        if (!Files.isDirectory(bin)) {
            Files.createDirectories(bin);
            link(bin, "java", Path.of(System.getProperty("java.home"), "bin", "java"));
            for (String tool : UTILITIES) {
                link(bin, tool, which(tool));
            }
        }
        List<String> command = new ArrayList<>(List.of(funes.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        Map<String, String> environment = pb.environment();
        environment.keySet().removeAll(Set.of("JAVA_HOME", "FUNES_JAVA_OPTS", "FUNES_CDS", "MAVEN_HOME", "M2_HOME"));
        environment.put("PATH", bin.toString());
        environment.put("HOME", tmp.resolve("home").toString());
        environment.put("FUNES_HOME", tmp.resolve("home/.funes").toString());
        environment.put("XDG_CACHE_HOME", tmp.resolve("cache").toString());
        environment.putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("%s ended within 10 minutes", command).isTrue();
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static void link(Path bin, String name, Path target) throws IOException {
        Files.createSymbolicLink(bin.resolve(name), target);
    }

    private static Path which(String tool) {
        for (String dir : System.getenv("PATH").split(":")) {
            Path candidate = Path.of(dir, tool);
            if (Files.isExecutable(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(tool + " is not on the PATH");
    }

    /** Unpacks the zip as unzip does: each file with the permission bits the archive records. */
    private static Path unzip(Path into) throws IOException {
        try (ZipFile zip = ZipFile.builder().setPath(ZIP).get()) {
            for (ZipArchiveEntry entry : Collections.list(zip.getEntries())) {
                Path target = into.resolve(entry.getName()).normalize();
                assertThat(target.startsWith(into)).as("%s stays inside the folder", entry.getName()).isTrue();
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                    continue;
                }
                Files.createDirectories(target.getParent());
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, target);
                }
                Files.setPosixFilePermissions(target, permissions(entry.getUnixMode() & 0777));
            }
        }
        return into.resolve(TOP);
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        StringBuilder text = new StringBuilder();
        String letters = "rwxrwxrwx";
        for (int bit = 8; bit >= 0; bit--) {
            text.append((mode & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
        }
        return PosixFilePermissions.fromString(text.toString());
    }
}
