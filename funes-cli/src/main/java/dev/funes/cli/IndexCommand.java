package dev.funes.cli;

import dev.funes.FunesException;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.why.LinkReport;
import dev.funes.why.Why;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code funes index}: reads agent logs into the store. */
@Command(name = "index", description = "Index agent logs (files or folders, any supported format).")
final class IndexCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = {"-i", "--index-path"}, paramLabel = "PATH",
            description = "A log file or a folder to walk; repeatable. Default: index-paths of the config, else every supported agent's default location.")
    List<Path> paths;

    @Option(names = "--repo", paramLabel = "DIR",
            description = "A git repository to link memories to, besides those the sessions ran in; repeatable.")
    List<Path> repos;

    @Option(names = "--model", paramLabel = "ID", completionCandidates = OptionValues.ModelIds.class, converter = OptionValues.ModelId.class,
            description = "Embedding model of a new store: all-minilm-l6-v2-q (default), all-minilm-l6-v2, bge-small-en-v15-q, e5-small-v2-q.")
    String model;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        List<Path> roots = paths != null ? paths : FunesConfig.of(storeOptions.dir()).roots().value();
        if (roots.isEmpty()) {
            throw new FunesException("no agent logs in the default locations under " + System.getProperty("user.home")
                    + " (.claude/projects, .codex/sessions, .gemini/tmp, Cline task folders); pass --index-path PATH, or set "
                    + FunesConfig.INDEX_PATHS + " in " + FunesConfig.userFile());
        }
        PrintWriter err = spec.commandLine().getErr();
        IndexReport report;
        LinkReport links;
        // The dense index opens only if some file changed: checking unchanged logs needs SQLite alone.
        try (OpenStore open = OpenStore.open(storeOptions.dir(), model, false, true);
             ProgressBar progress = ProgressBar.forTerminal(err)) {
            report = Indexer.builder(open.store()).redactor(open.redactor()).listener(progress).build().index(roots);
            // Commits of the sessions' repositories, and which memories made them (docs/WHY.md).
            links = Why.over(open.store()).link(repos == null ? List.of() : repos);
        }
        if (report.filesSeen() == 0) {
            err.println("funes: no log files found in " + roots.stream().map(Path::toString)
                    .collect(java.util.stream.Collectors.joining(", ")));
        }
        spec.commandLine().getOut().println(report.summary());
        spec.commandLine().getOut().println(links.summary());
        links.problems().forEach(p -> err.println("funes: " + p));
        return report.problems().isEmpty() && report.filesFailed() == 0 ? 0 : Main.EXIT_PARTIAL;
    }
}
