package dev.funes.cli;

import dev.funes.store.DatasetExport;
import dev.funes.store.ExportOptions;
import dev.funes.store.ExportReport;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code funes export --hf-dataset DIR}: the store as a Hugging Face dataset folder. */
@Command(name = "export", description = "Export the store as a Hugging Face dataset folder (incremental: adds only new shards).")
final class ExportCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--hf-dataset", paramLabel = "DIR", required = true,
            description = "The dataset folder: README.md card, data/*.jsonl.gz shards, manifests/.")
    Path dataset;

    @Option(names = "--with-vectors", description = "Include each memory's embedding (base64 float32), so an import embeds nothing.")
    boolean withVectors;

    @Option(names = "--license", paramLabel = "ID", defaultValue = "other",
            description = "License id for the dataset card (default: other, marked private).")
    String license;

    @Option(names = "--shard-records", paramLabel = "N", defaultValue = "" + ExportOptions.DEFAULT_SHARD_RECORDS,
            description = "At most N records per shard (default: ${DEFAULT-VALUE}).")
    int shardRecords;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        ExportOptions options = OptionValues.valid(spec, () -> new ExportOptions(withVectors, shardRecords, license));
        ExportReport report;
        try (OpenStore open = OpenStore.existing(storeOptions.dir())) {
            report = DatasetExport.export(open.store(), dataset, options);
        }
        spec.commandLine().getOut().println(report.summary());
        return 0;
    }
}
