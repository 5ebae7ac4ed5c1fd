package dev.funes.cli;

import dev.funes.store.DatasetExport;
import dev.funes.store.DatasetImport;
import dev.funes.store.ExportOptions;
import dev.funes.store.ExportReport;
import dev.funes.store.ImportReport;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code funes push REMOTE} and {@code funes pull REMOTE}: the dataset folder (default
 * {@code <store>/dataset}) synced through a git remote. Both first export what is new (memories
 * and deletions) and commit it, then fetch and merge the remote; pull then imports the merged
 * dataset, push sends it.
 */
final class SyncCommands {

    /**
     * The environment the credentials are read from: the process's, unless a test set another
     * (a JVM cannot change its own environment, and tokens must not go through arguments).
     */
    static volatile Map<String, String> testEnvironment;

    private SyncCommands() {
    }

    static Map<String, String> environment() {
        Map<String, String> env = testEnvironment;
        return env != null ? env : System.getenv();
    }

    /** Options both commands take. */
    static final class SyncOptions {
        @Mixin
        StoreOptions storeOptions;

        @Parameters(paramLabel = "REMOTE", description = "A git remote: a URL (https://...) or a path to a repository.")
        String remote;

        @Option(names = "--dataset", paramLabel = "DIR", description = "The dataset folder (default: <store>/dataset).")
        Path dataset;

        @Option(names = "--with-vectors", description = "Export embeddings too, so other machines embed nothing.")
        boolean withVectors;

        Path datasetDir() {
            return dataset != null ? dataset.toAbsolutePath().normalize() : storeOptions.dir().resolve("dataset");
        }
    }

    /** Exports, commits, and merges the remote in; returns whether the remote brought anything. */
    static boolean exchange(OpenStore open, GitSync git, SyncOptions o, CommandLine.Model.CommandSpec spec) {
        ExportOptions options = ExportOptions.defaults().withVectors(o.withVectors);
        ExportReport exported = DatasetExport.export(open.store(), o.datasetDir(), options);
        spec.commandLine().getErr().println("funes: " + exported.summary());
        git.commitAll("funes export: " + exported.memoriesWritten() + " memories, " + exported.deletionsWritten()
                + " deletions");
        return git.fetchAndMerge(o.remote);
    }

    /** Writes the card again from the merged manifests and commits it. */
    static void refreshCard(OpenStore open, GitSync git, SyncOptions o) {
        DatasetExport.export(open.store(), o.datasetDir(), ExportOptions.defaults().withVectors(o.withVectors));
        git.commitAll("funes: dataset card after merge");
    }

    /** {@code funes push REMOTE}. */
    @Command(name = "push", description = "Export what is new and push the dataset folder to a git remote"
            + " (merging what other machines pushed; the store is not changed).")
    static final class Push implements Callable<Integer> {
        @Mixin
        SyncOptions options;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            try (OpenStore open = OpenStore.existing(options.storeOptions.dir());
                 GitSync git = GitSync.open(options.datasetDir(), environment())) {
                if (exchange(open, git, options, spec)) {
                    refreshCard(open, git, options);
                }
                git.push(options.remote);
            }
            spec.commandLine().getOut().println("pushed " + options.datasetDir() + " to " + options.remote);
            return 0;
        }
    }

    /** {@code funes pull REMOTE}. */
    @Command(name = "pull", description = "Export what is new, fetch and merge the remote's dataset, and import it"
            + " into the store (nothing is pushed).")
    static final class Pull implements Callable<Integer> {
        @Mixin
        SyncOptions options;

        @Option(names = "--model", paramLabel = "ID", completionCandidates = OptionValues.ModelIds.class, converter = OptionValues.ModelId.class, description = "Embedding model of a new store (default: all-minilm-l6-v2-q).")
        String model;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            ImportReport report;
            try (OpenStore open = OpenStore.open(options.storeOptions.dir(), model);
                 GitSync git = GitSync.open(options.datasetDir(), environment())) {
                boolean merged = exchange(open, git, options, spec);
                report = DatasetImport.importInto(open.store(), options.datasetDir());
                if (merged) {
                    refreshCard(open, git, options);
                }
            }
            spec.commandLine().getOut().println(report.summary());
            return 0;
        }
    }
}
