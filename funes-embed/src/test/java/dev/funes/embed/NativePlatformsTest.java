package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.funes.EmbeddingException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ONNX Runtime the tests run on is the pinned one, and when its native library cannot load
 * the error says where Funes runs and how to bring another ONNX Runtime.
 */
class NativePlatformsTest {

    @TempDir
    Path temp;

    @Test
    void theMessageNamesThePlatformTheCauseTheSupportedPlatformsAndTheOverride() {
        String message = NativePlatforms.onnxRuntimeUnavailable("Mac OS X x86_64", "1.26.0",
                "no onnxruntime in java.library.path");

        assertThat(message)
                .startsWith("ONNX Runtime 1.26.0 (com.microsoft.onnxruntime:onnxruntime) cannot start on Mac OS X x86_64")
                .contains("no onnxruntime in java.library.path")
                .contains(NativePlatforms.SUPPORTED)
                .contains("add to your build's dependencies a version of com.microsoft.onnxruntime:onnxruntime")
                .contains("com.microsoft.onnxruntime:onnxruntime:1.21.1")
                .contains("onnxruntime.native.path");
        assertThat(NativePlatforms.onnxRuntimeUnavailable("FreeBSD amd64", null, "boom"))
                .startsWith("ONNX Runtime (com.microsoft.onnxruntime:onnxruntime) cannot start on FreeBSD amd64: boom.");
    }

    @Test
    void theTokenizerMessageNamesThePlatformTheModelAndTheSupportedPlatforms() {
        assertThat(NativePlatforms.tokenizerUnavailable("Mac OS X x86_64", "bundled model all-minilm-l6-v2-q",
                "No native rust library found"))
                .startsWith("DJL's HuggingFace tokenizer library cannot start on Mac OS X x86_64")
                .contains("bundled model all-minilm-l6-v2-q")
                .contains("No native rust library found")
                .endsWith(NativePlatforms.SUPPORTED);
    }

    @Test
    void theTestsRunOnThePinnedOnnxRuntime() {
        String pinned = System.getProperty("funes.onnxruntime.version");
        assumeTrue(pinned != null, "run through Maven, which passes the pinned version");
        assertThat(NativePlatforms.onnxRuntimeVersion()).isEqualTo(pinned);
    }

    /**
     * A real native-load failure, in a JVM of its own (ONNX Runtime's failed static initialization
     * would break every later test of this JVM): ONNX Runtime's own {@code onnxruntime.native.path}
     * pointed at an empty folder makes it fail to load its library the way a platform without one does.
     */
    @Test
    void aNativeLibraryThatDoesNotLoadGivesTheMessageEveryTime() throws IOException, InterruptedException {
        Path empty = Files.createDirectory(temp.resolve("no-natives"));
        Path output = temp.resolve("output.txt");
        Process process = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-D" + NativePlatforms.NATIVE_PATH_PROPERTY + "=" + empty,
                "-cp", testClasspath(), OpenTwice.class.getName())
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).as("the child JVM ends").isTrue();
        List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8).stream()
                .filter(line -> line.startsWith(OpenTwice.PREFIX)).toList();

        assertThat(process.exitValue()).as(String.join("\n", Files.readAllLines(output))).isZero();
        assertThat(lines).hasSize(2).allSatisfy(line -> assertThat(line)
                .contains("cannot start on " + NativePlatforms.current())
                .contains("com.microsoft.onnxruntime:onnxruntime:1.21.1")
                .contains(NativePlatforms.SUPPORTED));
        assertThat(lines.get(0)).contains(empty.toString());
    }

    /** The class path of the tests, for a child JVM. */
    static String testClasspath() {
        String classpath = System.getProperty("java.class.path");
        if (classpath.contains("surefirebooter")) {
            classpath = System.getProperty("surefire.test.class.path", classpath);
        }
        return classpath;
    }

    /** Opens the default model twice and prints each error: the second attempt meets DJL's broken engine class. */
    static final class OpenTwice {

        static final String PREFIX = "error: ";

        public static void main(String[] args) {
            for (int i = 0; i < 2; i++) {
                try {
                    Embedders.bundled(BundledModel.DEFAULT).close();
                    System.out.println("opened");
                } catch (EmbeddingException e) {
                    System.out.println(PREFIX + e.getMessage());
                }
            }
        }
    }
}
