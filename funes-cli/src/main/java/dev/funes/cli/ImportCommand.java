package dev.funes.cli;

import dev.funes.store.DatasetImport;
import dev.funes.store.ImportReport;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code funes import DIR}: merges a dataset folder into the store. */
@Command(name = "import", description = "Merge a dataset folder written by 'funes export' into the store"
        + " (verified first; all or nothing; importing twice adds nothing). In a git clone whose shards are"
        + " Git LFS pointers, their content is fetched from its origin first.")
final class ImportCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Parameters(paramLabel = "DIR", description = "The dataset folder.")
    Path dataset;

    @Option(names = "--model", paramLabel = "ID", completionCandidates = OptionValues.ModelIds.class, converter = OptionValues.ModelId.class,
            description = "Embedding model of a new store (default: all-minilm-l6-v2-q).")
    String model;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        // A git clone made without Git LFS holds pointers: their objects first, from its origin.
        int fetched = GitSync.fetchLfsObjects(dataset, SyncCommands.environment());
        if (fetched > 0) {
            spec.commandLine().getErr().println("funes: downloaded " + fetched + " Git LFS objects into "
                    + dataset.resolve(".git/lfs/objects"));
        }
        // Verified before the store is opened: a refused dataset leaves no store created or touched.
        DatasetImport.Verified verified = DatasetImport.verify(dataset);
        ImportReport report;
        try (OpenStore open = OpenStore.open(storeOptions.dir(), model)) {
            report = DatasetImport.importInto(open.store(), verified);
        }
        spec.commandLine().getOut().println(report.summary());
        return 0;
    }
}
