package dev.funes.cli;

import dev.funes.FunesException;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.why.LinkReport;
import dev.funes.why.Why;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code funes watch}: indexes the logs, then keeps indexing what agents write until Ctrl-C, and
 * links commits to the memories that made them as {@code funes index} does (see {@link Watcher}
 * for when). On
 * SIGINT (or any JVM shutdown) a shutdown hook stops the watch thread after the indexing under way
 * and closes the store, which commits and writes the ANN index.
 */
@Command(name = "watch", description = "Index agent logs, then keep indexing them as they change, until Ctrl-C.")
final class WatchCommand implements Callable<Integer> {

    /** How long the shutdown hook waits for the indexing under way. */
    private static final Duration SHUTDOWN_WAIT = Duration.ofSeconds(30);

    @Mixin
    StoreOptions storeOptions;

    @Option(names = {"-i", "--index-path"}, paramLabel = "PATH",
            description = "A log file or a folder to watch; repeatable. Default: index-paths of the config, else every supported agent's default location.")
    List<Path> paths;

    @Option(names = "--model", paramLabel = "ID", completionCandidates = OptionValues.ModelIds.class, description = "Embedding model of a new store (see 'funes index').")
    String model;

    @Option(names = "--poll-only", description = "Do not use the file system's change events; check files every 500 ms.")
    boolean pollOnly;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        List<Path> roots = paths != null ? paths : FunesConfig.of(storeOptions.dir()).roots().value();
        if (roots.isEmpty()) {
            throw new FunesException("no agent logs in the default locations (~/.claude/projects); pass --index-path PATH, or set "
                    + FunesConfig.INDEX_PATHS + " in " + FunesConfig.userFile());
        }
        PrintWriter err = spec.commandLine().getErr();
        OpenStore open = OpenStore.open(storeOptions.dir(), model);
        AtomicBoolean closed = new AtomicBoolean();
        Runnable closeStore = () -> {
            if (closed.compareAndSet(false, true)) {
                open.close();
            }
        };
        Watcher watcher;
        Thread hook;
        try {
            Indexer changes = Indexer.builder(open.store()).redactor(open.redactor()).listener(new Watcher.Lines(line -> {
                err.println(line);
                err.flush();
            })).build();
            watcher = new Watcher(changes, roots, err::println, !pollOnly, linker(open, err));
            IndexReport initial;
            try (ProgressBar progress = ProgressBar.forTerminal(err)) {
                initial = watcher.start(Indexer.builder(open.store()).redactor(open.redactor()).listener(progress).build());
            }
            err.println("indexed: " + initial.summary());
            err.println("watching " + roots.size() + (roots.size() == 1 ? " path" : " paths") + "; Ctrl-C to stop");
            err.flush();
            hook = new Thread(() -> {
                watcher.stop();
                try {
                    if (!watcher.awaitStopped(SHUTDOWN_WAIT)) {
                        err.println("funes watch: indexing did not end in " + SHUTDOWN_WAIT.toSeconds() + " s; closing anyway");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                closeStore.run();
                err.println("funes watch: stopped; " + watcher.changesIndexed() + " changes indexed");
                err.flush();
            }, "funes-watch-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
        } catch (RuntimeException e) {
            closeStore.run();
            throw e;
        }
        // Returns only if the watch thread ends by itself (its store failed).
        watcher.awaitStopped(Duration.ofDays(365 * 100L));
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // Shutting down already: the hook closes the store.
            return 0;
        }
        closeStore.run();
        return 1;
    }

    /**
     * The link pass of the watch: prints the summary when it found something, and each problem
     * (a repository that cannot be read) once, not at every pass.
     */
    static Runnable linker(OpenStore open, PrintWriter err) {
        Set<String> told = new HashSet<>();
        return () -> {
            LinkReport links = Why.over(open.store()).link();
            if (links.commitsAdded() > 0 || links.added() > 0) {
                err.println(links.summary());
            }
            for (String p : links.problems()) {
                if (told.add(p)) {
                    err.println("funes: " + p);
                }
            }
            err.flush();
        };
    }
}
