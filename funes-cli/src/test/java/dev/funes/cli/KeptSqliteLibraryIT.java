package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code funes} launcher at the repository root loads sqlite-jdbc's native library from the
 * copy kept in {@code funes-cli/target/native} ({@link KeptSqliteLibrary}). Proof that the copy is
 * what the process loads: the commands run with a {@code java.io.tmpdir} that does not exist,
 * where sqlite-jdbc's own extraction cannot write, and succeed; the same command without the
 * copy fails there. Answers are the same bytes as without the copy; a damaged, replaced or
 * missing copy is extracted again without a word; a copy in a folder others can write is never
 * loaded.
 */
class KeptSqliteLibraryIT {

    private static final Path TARGET = Path.of(System.getProperty("funes.cli.jar", "target/funes-cli.jar"))
            .toAbsolutePath().getParent();
    private static final String RESOURCE = "org/sqlite/native/Linux/x86_64/libsqlitejdbc.so";

    @TempDir
    static Path tmp;
    static String store;
    static String noTmp;

    @BeforeAll
    static void indexTheSampleSession() {
        store = tmp.resolve("store").toString();
        noTmp = "-Djava.io.tmpdir=" + tmp.resolve("no-such-folder");
        CliTest.Result index = CliTest.funes("index", "--store", store, "--index-path", "../examples/demo-session");
        assertThat(index.status()).as(index.err()).isZero();
    }

    /** The launcher without the archive (its training run would add a minute), with FUNES_JAVA_OPTS last. */
    private static LauncherRun launch(String javaOpts, String... args) throws IOException, InterruptedException {
        return LauncherRun.of(tmp, Map.of("FUNES_CDS", "0", "FUNES_JAVA_OPTS", javaOpts), args);
    }

    private static String[] why() {
        return new String[] {"why", "--json", "--store", store, "4e1c9a7"};
    }

    /** The one library of this machine's kind in the jar, read from the test's class path. */
    private static byte[] jarLibrary() throws IOException {
        try (InputStream in = KeptSqliteLibraryIT.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            assertThat(in).as("this test knows Linux on x86_64").isNotNull();
            return in.readAllBytes();
        }
    }

    private static Path copyIn(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder)) {
            List<Path> copies = files.filter(f -> f.getFileName().toString().startsWith("libsqlitejdbc-")).toList();
            assertThat(copies).hasSize(1);
            return copies.get(0);
        }
    }

    @Test
    void theLauncherLoadsTheCopyItKeepsAndAnswersAsWithout() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                KeptSqliteLibraryIT.class.getClassLoader().getResource(RESOURCE) != null
                        && "amd64".equals(System.getProperty("os.arch")), "Linux x86_64 only");
        Path kept = TARGET.resolve("native");
        if (Files.isDirectory(kept)) {
            try (Stream<Path> files = Files.walk(kept)) { // ONNX Runtime's and the model's copies in folders
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    if (!f.equals(kept)) {
                        Files.delete(f);
                    }
                }
            }
        }

        LauncherRun without = launch(noTmp + " -Dfunes.native.dir=", why());
        assertThat(without.status()).as("sqlite-jdbc alone needs the temporary folder").isNotZero();

        LauncherRun first = launch(noTmp, why());
        assertThat(first.status()).as(first.err()).isZero();
        assertThat(first.err()).isEmpty();
        Path copy = copyIn(kept);
        assertThat(Files.readAllBytes(copy)).isEqualTo(jarLibrary());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(kept))).isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(copy))).isEqualTo("r-x------");
        FileTime made = Files.getLastModifiedTime(copy);

        List<String[]> commands = List.of(why(),
                new String[] {"search", "--json", "--retrieval", "lexical", "--store", store, "ledger"},
                new String[] {"stats", "--json", "--store", store});
        for (String[] command : commands) {
            LauncherRun kept1 = launch(noTmp, command);
            LauncherRun plain = launch("-Dfunes.native.dir=", command);
            assertThat(kept1.status()).as(kept1.err()).isZero();
            assertThat(plain.status()).as(plain.err()).isZero();
            assertThat(kept1.err()).isEmpty();
            assertThat(kept1.out()).as(String.join(" ", command)).isNotEmpty().isEqualTo(plain.out());
        }
        assertThat(copyIn(kept)).as("extracted once").isEqualTo(copy);
        assertThat(Files.getLastModifiedTime(copy)).isEqualTo(made);
        assertThat(first.out()).contains("\"agent\" : \"claude-code\"");
    }

    @Test
    void aDamagedOrMissingCopyIsExtractedAgainAndAFolderOthersMayWriteIsNeverUsed() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                KeptSqliteLibraryIT.class.getClassLoader().getResource(RESOURCE) != null
                        && "amd64".equals(System.getProperty("os.arch")), "Linux x86_64 only");
        Path folder = tmp.resolve("own-native");
        String own = " -Dfunes.native.dir=" + folder;
        LauncherRun made = launch(noTmp + own, why());
        assertThat(made.status()).as(made.err()).isZero();
        String answer = made.out();
        assertThat(answer).contains("4e1c9a7");
        byte[] library = jarLibrary();

        // Cut short (the loader would refuse it, loudly), then the same size with one byte changed.
        Path copy = copyIn(folder);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-------"));
        Files.write(copy, java.util.Arrays.copyOf(library, library.length / 2));
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("r-x------"));
        LauncherRun shortened = launch(noTmp + own, why());
        assertThat(shortened.status()).as(shortened.err()).isZero();
        assertThat(shortened.err()).isEmpty();
        assertThat(shortened.out()).isEqualTo(answer);
        assertThat(Files.readAllBytes(copyIn(folder))).isEqualTo(library);

        copy = copyIn(folder);
        byte[] changed = library.clone();
        changed[changed.length / 2] ^= 0x5a;
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-------"));
        Files.write(copy, changed);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("r-x------"));
        LauncherRun flipped = launch(noTmp + own, why());
        assertThat(flipped.status()).as(flipped.err()).isZero();
        assertThat(flipped.err()).isEmpty();
        assertThat(flipped.out()).isEqualTo(answer);
        assertThat(Files.readAllBytes(copyIn(folder))).isEqualTo(library);

        Files.delete(copyIn(folder));
        LauncherRun missing = launch(noTmp + own, why());
        assertThat(missing.status()).as(missing.err()).isZero();
        assertThat(missing.err()).isEmpty();
        assertThat(missing.out()).isEqualTo(answer);
        assertThat(Files.readAllBytes(copyIn(folder))).isEqualTo(library);

        // Others may write the folder: the copy there is not loaded (sqlite-jdbc's own extraction,
        // with no temporary folder, then fails) and sqlite-jdbc's own works as ever.
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
        LauncherRun refused = launch(noTmp + own, why());
        assertThat(refused.status()).isNotZero();
        Path privateTmp = Files.createDirectory(tmp.resolve("private-tmp"));
        LauncherRun usual = launch("-Djava.io.tmpdir=" + privateTmp + own, why());
        assertThat(usual.status()).as(usual.err()).isZero();
        assertThat(usual.err()).isEmpty();
        assertThat(usual.out()).isEqualTo(answer);
    }
}
