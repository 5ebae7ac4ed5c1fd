package dev.funes.cli;

import dev.funes.FunesException;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code funes demo}: indexes the sample session that ships with Funes into a fresh store and
 * answers a question about it, so a new user sees the whole path without any agent logs.
 */
@Command(name = "demo", description = "Index a sample session that ships with Funes and answer a question about it.")
final class DemoCommand implements Callable<Integer> {

    static final String SAMPLE = "dev/funes/cli/demo/sample-session.jsonl";
    static final String DEFAULT_QUESTION = "why did we move away from the streaming parser?";

    @Option(names = {"-s", "--store"}, paramLabel = "DIR",
            description = "Where to build the demo store (default: a new temporary folder). Must be empty or absent.")
    Path store;

    @Option(names = {"-n", "--limit"}, paramLabel = "K", defaultValue = "3", description = "Number of answers (default: ${DEFAULT-VALUE}).")
    int limit;

    @Parameters(arity = "0..*", paramLabel = "QUESTION", description = "What to ask (default: \"" + DEFAULT_QUESTION + "\").")
    List<String> question;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        OptionValues.valid(spec, () -> SearchRequest.builder("the limit, checked first").limit(limit).build());
        Path dir = store != null ? store.toAbsolutePath().normalize() : Files.createTempDirectory("funes-demo-");
        if (Files.isDirectory(dir)) {
            try (var entries = Files.list(dir)) {
                if (entries.findAny().isPresent()) {
                    throw new FunesException("demo store folder " + dir + " is not empty; pass an empty or new --store");
                }
            }
        }
        Path log = dir.resolve("logs").resolve("sample-session.jsonl");
        Files.createDirectories(log.getParent());
        try (InputStream sample = DemoCommand.class.getClassLoader().getResourceAsStream(SAMPLE)) {
            if (sample == null) {
                throw new FunesException("the sample session " + SAMPLE + " is missing from the classpath; rebuild Funes");
            }
            Files.copy(sample, log, StandardCopyOption.REPLACE_EXISTING);
        }
        String ask = question == null || question.isEmpty() ? DEFAULT_QUESTION : String.join(" ", question);
        Path storeDir = dir.resolve("store");
        PrintWriter out = spec.commandLine().getOut();
        try (OpenStore open = OpenStore.open(storeDir, null)) {
            IndexReport report = Indexer.builder(open.store()).redactor(open.redactor()).build().index(List.of(log));
            out.println("Indexed the sample session " + log);
            out.println("  " + report.summary());
            out.println();
            out.println("Q: " + ask);
            out.println();
            List<SearchHit> hits = open.store().search(SearchRequest.builder(ask).limit(limit).build());
            HitText.print(hits, out, 1);
        }
        out.println("The demo store is kept at " + storeDir + "; try:");
        out.println("  " + launcherAsTyped() + " search --store " + storeDir + " \"what did the user ask us to always do in CI?\"");
        return 0;
    }

    /**
     * How the user can run the launcher that started this JVM again: {@code ./funes} from the
     * checkout's folder, its absolute path elsewhere ({@code bin/funes} of the distribution), or
     * {@code funes} when no launcher says where it is.
     */
    static String launcherAsTyped() {
        String property = System.getProperty("funes.launcher");
        if (property == null || property.isBlank()) {
            return "funes";
        }
        Path launcher = Path.of(property).toAbsolutePath().normalize();
        Path here = Path.of("").toAbsolutePath().normalize();
        return here.equals(launcher.getParent()) ? "./" + launcher.getFileName() : launcher.toString();
    }
}
