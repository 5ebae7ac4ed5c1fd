package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code funes} launcher's hybrid search loads ONNX Runtime's native libraries
 * ({@link KeptOnnxRuntime}) and the bundled model's file ({@link KeptModelFile}) from the copies
 * kept in the folder of {@code -Dfunes.native.dir}. Proof that the copies are what the process
 * loads: with the size of any file it writes limited to 16 MB ({@code ulimit -f}), a search
 * succeeds with the copies and fails without them, when ONNX Runtime writes its 23 MB library to
 * the temporary folder and Funes the 23 MB model. Answers are the same bytes with and without the
 * copies; a damaged or missing copy is extracted again without a word; another version's
 * libraries are removed; copies in a folder others may write are never used.
 */
class KeptOnnxRuntimeIT {

    private static final String LIBRARY = "ai/onnxruntime/native/linux-x64/libonnxruntime.so";
    private static final String MODEL = "all-minilm-l6-v2-q.onnx";
    /** Below both 23 MB files, above everything else a search of the sample store writes. */
    private static final int FILE_LIMIT_KB = 16 * 1024;

    @TempDir
    static Path tmp;
    static String store;

    @BeforeAll
    static void indexTheSampleSession() {
        store = tmp.resolve("store").toString();
        CliTest.Result index = CliTest.funes("index", "--store", store, "--index-path", "../examples/demo-session");
        assertThat(index.status()).as(index.err()).isZero();
    }

    /**
     * The launcher without the archive (its training run would add a minute), with
     * FUNES_JAVA_OPTS last, and a limit on the size of the files it writes when {@code limited}.
     */
    private static LauncherRun launch(boolean limited, String javaOpts, String... args) throws IOException, InterruptedException {
        return LauncherRun.of(tmp, limited ? FILE_LIMIT_KB : 0, Map.of("FUNES_CDS", "0", "FUNES_JAVA_OPTS", javaOpts), args);
    }

    private static String[] search() {
        return new String[] {"search", "--json", "--store", store, "ledger balance rounding"};
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = KeptOnnxRuntimeIT.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return in.readAllBytes();
        }
    }

    /** The one file in {@code folder}'s sub-folder whose name starts with {@code prefix}. */
    private static Path keptIn(Path folder, String prefix, String file) throws IOException {
        try (Stream<Path> dirs = Files.list(folder)) {
            List<Path> found = dirs.filter(d -> d.getFileName().toString().startsWith(prefix)).toList();
            assertThat(found).as("%s* in %s", prefix, folder).hasSize(1);
            return found.get(0).resolve(file);
        }
    }

    private static Path library(Path folder) throws IOException {
        return keptIn(folder, "onnxruntime-linux-x64-", "libonnxruntime.so");
    }

    private static Path model(Path folder) throws IOException {
        try (Stream<Path> files = Files.list(folder.resolve("models"))) {
            List<Path> found = files.filter(f -> f.getFileName().toString().startsWith("all-minilm-l6-v2-q-")).toList();
            assertThat(found).hasSize(1);
            return found.get(0);
        }
    }

    private static void assumeLinuxX64() {
        Assumptions.assumeTrue(KeptOnnxRuntimeIT.class.getClassLoader().getResource(LIBRARY) != null
                && "amd64".equals(System.getProperty("os.arch")), "Linux x86_64 only");
    }

    @Test
    void hybridSearchLoadsTheKeptCopiesAndAnswersAsWithout() throws Exception {
        assumeLinuxX64();
        Path folder = tmp.resolve("native-a");
        String own = "-Dfunes.native.dir=" + folder;

        LauncherRun without = launch(true, "-Dfunes.native.dir=", search());
        assertThat(without.status()).as("ONNX Runtime and the model, extracted, exceed the file size limit").isNotZero();

        // Another version's copies, left by an earlier start: removed once this version's are made.
        Path older = Files.createDirectories(folder.resolve("onnxruntime-linux-x64-00000000-00000000"));
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
        Files.setPosixFilePermissions(older, PosixFilePermissions.fromString("rwx------"));
        Files.write(older.resolve("libonnxruntime.so"), new byte[] {1, 2, 3});

        LauncherRun first = launch(false, own, search());
        assertThat(first.status()).as(first.err()).isZero();
        assertThat(first.err()).isEmpty();
        Path library = library(folder);
        Path model = model(folder);
        assertThat(Files.readAllBytes(library)).isEqualTo(resource(LIBRARY));
        assertThat(Files.readAllBytes(library.resolveSibling("libonnxruntime4j_jni.so")))
                .isEqualTo(resource("ai/onnxruntime/native/linux-x64/libonnxruntime4j_jni.so"));
        assertThat(Files.readAllBytes(model)).isEqualTo(resource(MODEL));
        for (Path p : List.of(library.getParent(), folder.resolve("models"))) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p))).isEqualTo("rwx------");
        }
        for (Path p : List.of(library, model)) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p))).isEqualTo("r-x------");
        }
        assertThat(older).doesNotExist();
        var made = Files.getLastModifiedTime(library);

        LauncherRun kept = launch(true, own, search());
        LauncherRun plain = launch(false, "-Dfunes.native.dir=", search());
        assertThat(kept.status()).as(kept.err()).isZero();
        assertThat(plain.status()).as(plain.err()).isZero();
        assertThat(kept.err()).isEmpty();
        assertThat(kept.out()).contains("\"score\"").isEqualTo(plain.out()).isEqualTo(first.out());
        assertThat(library(folder)).as("extracted once").isEqualTo(library);
        assertThat(Files.getLastModifiedTime(library)).isEqualTo(made);
    }

    @Test
    void aDamagedCopyIsExtractedAgainAndAFolderOthersMayWriteIsNeverUsed() throws Exception {
        assumeLinuxX64();
        Path folder = tmp.resolve("native-b");
        String own = "-Dfunes.native.dir=" + folder;
        LauncherRun made = launch(false, own, search());
        assertThat(made.status()).as(made.err()).isZero();
        String answer = made.out();
        assertThat(answer).contains("\"score\"");

        // One byte changed in the library, the model cut short: both are extracted again (by a
        // process free to write them), and a limited process then loads the repaired copies.
        byte[] library = resource(LIBRARY);
        byte[] changed = library.clone();
        changed[changed.length / 2] ^= 0x5a;
        overwrite(library(folder), changed);
        byte[] model = resource(MODEL);
        overwrite(model(folder), java.util.Arrays.copyOf(model, model.length / 2));
        LauncherRun repaired = launch(false, own, search());
        assertThat(repaired.status()).as(repaired.err()).isZero();
        assertThat(repaired.err()).isEmpty();
        assertThat(repaired.out()).isEqualTo(answer);
        assertThat(Files.readAllBytes(library(folder))).isEqualTo(library);
        assertThat(Files.readAllBytes(model(folder))).isEqualTo(model);
        LauncherRun afterRepair = launch(true, own, search());
        assertThat(afterRepair.status()).as(afterRepair.err()).isZero();
        assertThat(afterRepair.out()).isEqualTo(answer);

        Files.delete(library(folder));
        Files.delete(model(folder));
        LauncherRun missing = launch(false, own, search());
        assertThat(missing.status()).as(missing.err()).isZero();
        assertThat(missing.err()).isEmpty();
        assertThat(missing.out()).isEqualTo(answer);
        assertThat(Files.readAllBytes(library(folder))).isEqualTo(library);
        assertThat(Files.readAllBytes(model(folder))).isEqualTo(model);

        // Others may write the folder: nothing in it is used, so the limited run fails (ONNX
        // Runtime extracts its own), and an unlimited one answers as ever.
        Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
        LauncherRun refused = launch(true, own, search());
        assertThat(refused.status()).isNotZero();
        LauncherRun usual = launch(false, own, search());
        assertThat(usual.status()).as(usual.err()).isZero();
        assertThat(usual.out()).isEqualTo(answer);
    }

    private static void overwrite(Path copy, byte[] bytes) throws IOException {
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rw-------"));
        Files.write(copy, bytes);
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("r-x------"));
    }
}
