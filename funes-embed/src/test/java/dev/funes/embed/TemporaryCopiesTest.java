package dev.funes.embed;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The temporary copies of a bundled model's {@code .onnx} (23 MB for the default) do not pile up in
 * the temporary folder: a process that stops before its session is made deletes its copy at exit,
 * and copies a killed process left behind are deleted by the next one that copies the model.
 */
class TemporaryCopiesTest {

    @TempDir
    Path temp;

    @Test
    void copiesLeftBehindLongerThanAnHourAreDeletedAndNothingElse() throws IOException {
        String prefix = "funes-" + BundledModel.DEFAULT.id() + "-";
        Instant now = Instant.now();
        Path old = aged(temp.resolve(prefix + "1.onnx"), now.minusSeconds(7200));
        Path recent = aged(temp.resolve(prefix + "2.onnx"), now.minusSeconds(600));
        Path oldButKept = aged(temp.resolve(prefix + "3.onnx"), now.minusSeconds(7200));
        Path otherModel = aged(temp.resolve("funes-bge-small-en-v15-q-4.onnx"), now.minusSeconds(7200));
        Path otherName = aged(temp.resolve(prefix + "5.txt"), now.minusSeconds(7200));

        Embedders.deleteLeftBehind(temp, prefix, oldButKept, now.minus(Embedders.LEFT_BEHIND));

        assertThat(old).doesNotExist();
        assertThat(recent).exists();
        assertThat(oldButKept).exists();
        assertThat(otherModel).exists();
        assertThat(otherName).exists();
    }

    @Test
    void copyingTheModelDeletesACopyAKilledProcessLeftInTheTemporaryFolder() throws IOException {
        String prefix = "funes-" + BundledModel.DEFAULT.id() + "-";
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        Path leftBehind = aged(Files.createTempFile(tmp, prefix, ".onnx"), Instant.now().minusSeconds(7200));
        Path fresh = Files.createTempFile(tmp, prefix, ".onnx");
        try {
            OnnxEmbedder.ModelFile copies = Embedders.temporaryCopies(BundledModel.DEFAULT, Embedders.class.getClassLoader());
            Path copy = copies.open();
            assertThat(copy.getParent()).isEqualTo(tmp);
            assertThat(Files.size(copy)).isGreaterThan(1_000_000);
            copies.done(copy);

            assertThat(copy).doesNotExist();
            assertThat(leftBehind).doesNotExist();
            assertThat(fresh).exists(); // another process may be loading it
        } finally {
            Files.deleteIfExists(leftBehind);
            Files.deleteIfExists(fresh);
        }
    }

    @Test
    void aProcessThatExitsBeforeItsSessionIsMadeDeletesItsCopy() throws IOException, InterruptedException {
        Path output = temp.resolve("output.txt");
        Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", NativePlatformsTest.testClasspath(), CopyAndExit.class.getName())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("the child JVM ends").isTrue();
        List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as(String.join("\n", lines)).isZero();

        List<String> copies = lines.stream().filter(l -> l.startsWith(CopyAndExit.PREFIX))
                .map(l -> l.substring(CopyAndExit.PREFIX.length())).toList();
        assertThat(copies).as(String.join("\n", lines)).singleElement()
                .satisfies(copy -> assertThat(Path.of(copy)).doesNotExist());
    }

    private static Path aged(Path file, Instant modified) throws IOException {
        if (!Files.exists(file)) {
            Files.writeString(file, "x");
        }
        Files.setLastModifiedTime(file, FileTime.from(modified));
        return file;
    }

    /** Copies the default model as a session would, says where and that it is there, and exits without loading it. */
    static final class CopyAndExit {

        static final String PREFIX = "copy: ";

        public static void main(String[] args) throws IOException {
            Path copy = Embedders.temporaryCopies(BundledModel.DEFAULT, CopyAndExit.class.getClassLoader()).open();
            if (Files.size(copy) < 1_000_000) {
                throw new IllegalStateException("the copy " + copy + " holds " + Files.size(copy) + " bytes");
            }
            System.out.println(PREFIX + copy);
            System.exit(0);
        }
    }
}
