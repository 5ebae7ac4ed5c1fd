package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One run of the checkout's {@code funes} launcher as its own process, for the tests of what the
 * launcher sets up (the class-data archive, the kept native libraries): this JVM's Java as
 * {@code JAVA_HOME}, no {@code FUNES_JAVA_OPTS} or {@code FUNES_CDS} from the environment, no
 * resident server asked or started ({@code FUNES_SERVE=0}) unless {@code env} says otherwise.
 *
 * @param status the exit status
 * @param out    what it printed on stdout
 * @param err    what it printed on stderr
 */
record LauncherRun(int status, String out, String err) {

    /** The launcher at the root of the checkout (tests run in a module's folder). */
    static final Path LAUNCHER = Path.of("../funes").toAbsolutePath().normalize();

    /** {@code funes ARGS} with {@code env} added, its output in files under {@code tmp}. */
    static LauncherRun of(Path tmp, Map<String, String> env, String... args) throws IOException, InterruptedException {
        return of(tmp, 0, env, args);
    }

    /**
     * {@code funes ARGS} with {@code env} added and, when {@code fileLimitKb} is positive, no file
     * it writes allowed to grow past that many KiB ({@code ulimit -f}).
     */
    static LauncherRun of(Path tmp, int fileLimitKb, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(fileLimitKb > 0
                ? List.of("bash", "-c", "ulimit -f " + fileLimitKb + " && exec \"$@\"", "bash", LAUNCHER.toString())
                : List.of(LAUNCHER.toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("FUNES_JAVA_OPTS");
        pb.environment().remove("FUNES_CDS");
        pb.environment().put("FUNES_SERVE", "0");
        pb.environment().putAll(env);
        Process p = pb.start();
        assertThat(p.waitFor(10, TimeUnit.MINUTES)).as("%s ended within 10 minutes", command).isTrue();
        return new LauncherRun(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
