package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands that need no vector never load the model: run as real processes with the JVM's class
 * loading logged, {@code stats}, {@code config}, {@code check --quick}, {@code search --retrieval lexical},
 * {@code why SHA} of a linked commit and {@code index} of unchanged logs load no class of ONNX
 * Runtime or DJL, while a hybrid search (the control) does; {@code ui} loads it once its first
 * page is out, not before.
 */
class ModelLoadTest {

    private static final Duration PATIENCE = Duration.ofMinutes(3);
    /** The ONNX Runtime session every embedder creates: loaded exactly when a model is. */
    private static final String SESSION_CLASS = "ai.onnxruntime.OrtSession ";

    @TempDir
    static Path tmp;

    static Path store;

    @BeforeAll
    static void indexTheSampleSession() {
        store = tmp.resolve("store");
        CliTest.Result index = CliTest.funes("index", "--store", store.toString(), "--index-path", WhyCommandTest.SAMPLE.toString());
        assertThat(index.status()).as(index.err()).isZero();
    }

    /** Runs {@code funes ARGS} in a new JVM; its stdout, and the names of the classes it loaded. */
    private static Loaded run(String name, String... args) throws IOException, InterruptedException {
        Path log = tmp.resolve(name + "-classes.log");
        List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m", args));
        command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + log);
        try (FunesProcess funes = FunesProcess.startCommand(command)) {
            funes.closeStdin();
            assertThat(funes.waitFor(PATIENCE)).as(funes.describe("exit status")).isZero();
            List<String> classes = Files.readAllLines(log).stream()
                    .map(line -> line.replaceFirst("^.*\\[class,load\\] ", ""))
                    .toList();
            assertThat(classes).as("the class-loading log of " + name).anyMatch(c -> c.startsWith("dev.funes.cli.Main "));
            return new Loaded(funes.out(), classes);
        }
    }

    private record Loaded(String out, List<String> classes) {
        boolean loadedTheModel() {
            return classes.stream().anyMatch(c -> c.startsWith("ai.onnxruntime.") || c.startsWith("ai.djl."));
        }
    }

    @Test
    void aHybridSearchLoadsTheModel() throws Exception {
        Loaded search = run("hybrid", "search", "--store", store.toString(), "parse ledgers in two passes");
        assertThat(search.out()).contains("claude-code");
        assertThat(search.classes()).anyMatch(c -> c.startsWith(SESSION_CLASS));
    }

    @Test
    void statsDoesNotLoadTheModel() throws Exception {
        Loaded stats = run("stats", "stats", "--store", store.toString());
        assertThat(stats.out()).contains("model      all-minilm-l6-v2-q (384 dimensions)").contains("commit-output");
        assertThat(stats.loadedTheModel()).as("stats loaded ONNX Runtime or DJL").isFalse();
    }

    @Test
    void aLexicalSearchDoesNotLoadTheModel() throws Exception {
        Loaded lexical = run("lexical", "search", "--retrieval", "lexical", "--json", "--store", store.toString(),
                "ledgers");
        assertThat(lexical.out()).contains("\"agent\" : \"claude-code\"");
        assertThat(lexical.loadedTheModel()).as("a lexical search loaded ONNX Runtime or DJL").isFalse();
    }

    @Test
    void whyOfALinkedCommitDoesNotLoadTheModel() throws Exception {
        Loaded why = run("why", "why", "--store", store.toString(), "4e1c9a7");
        assertThat(why.out()).contains("commit-output").contains("commit 4e1c9a7");
        assertThat(why.loadedTheModel()).as("why SHA loaded ONNX Runtime or DJL").isFalse();
    }

    @Test
    void configDoesNotLoadTheModel() throws Exception {
        Loaded config = run("config", "config", "--store", store.toString());
        assertThat(config.out()).contains("the store records it");
        assertThat(config.loadedTheModel()).as("config loaded ONNX Runtime or DJL").isFalse();
    }

    @Test
    void aQuickCheckDoesNotLoadTheModel() throws Exception {
        Loaded check = run("check", "check", "--quick", "--store", store.toString());
        assertThat(check.out()).contains("no sign of damage");
        assertThat(check.loadedTheModel()).as("check --quick loaded ONNX Runtime or DJL").isFalse();
    }

    @Test
    void funesUiLoadsTheModelOnceItsFirstPageIsOut() throws Exception {
        Path log = tmp.resolve("ui-classes.log");
        List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m", "ui", "--store", store.toString(),
                "--no-browser"));
        command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + log);
        try (FunesProcess ui = FunesProcess.startCommand(command)) {
            URI link = URI.create(ui.awaitOut(l -> l.startsWith("http://127.0.0.1:"), PATIENCE));
            ui.awaitErr(l -> l.startsWith("funes ui: serving"), PATIENCE);
            assertThat(classes(log)).as("classes loaded before the first page")
                    .noneMatch(c -> c.startsWith("ai.onnxruntime.") || c.startsWith("ai.djl."));

            HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
            HttpResponse<Void> signIn = http.send(HttpRequest.newBuilder(link).build(), HttpResponse.BodyHandlers.discarding());
            String cookie = signIn.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0];
            HttpResponse<String> page = http.send(HttpRequest.newBuilder(link.resolve("/")).header("Cookie", cookie).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
            // Nothing but the page asks for the model now: wait for the load to show in the log.
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (classes(log).stream().noneMatch(c -> c.startsWith(SESSION_CLASS)) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(classes(log)).as("classes loaded after the first page").anyMatch(c -> c.startsWith(SESSION_CLASS));
        }
    }

    private static List<String> classes(Path log) throws IOException {
        return Files.readAllLines(log).stream().map(line -> line.replaceFirst("^.*\\[class,load\\] ", "")).toList();
    }

    @Test
    void indexingUnchangedLogsDoesNotLoadTheModel() throws Exception {
        Loaded index = run("index", "index", "--store", store.toString(), "--index-path", WhyCommandTest.SAMPLE.toString());
        assertThat(index.out()).contains("0 embedded");
        assertThat(index.loadedTheModel()).as("indexing unchanged logs loaded ONNX Runtime or DJL").isFalse();
    }
}
