package dev.funes.cli;

import dev.funes.embed.BundledModel;
import dev.funes.solr.TeamConnection;
import dev.funes.solr.TeamSetup;
import dev.funes.solr.TeamUrl;
import dev.funes.store.FunesStore;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code funes team}: the team collection on SolrCloud (docs/TEAM.md). */
@Command(name = "team", description = "Team memory on SolrCloud (docs/TEAM.md).",
        subcommands = TeamCommand.Init.class)
final class TeamCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /** {@code funes team init URL}: uploads the configset and creates the collection. */
    @Command(name = "init", description = "Create the team collection at URL (http://host:8983/solr/NAME) from the"
            + " configset Funes ships; safe to run again.")
    static final class Init implements Callable<Integer> {

        @Mixin
        StoreOptions storeOptions;

        @Option(names = "--shards", defaultValue = "2", description = "Shards (default: ${DEFAULT-VALUE}).")
        int shards;

        @Option(names = "--replicas", defaultValue = "2", description = "Replicas of each shard (default: ${DEFAULT-VALUE}).")
        int replicas;

        @Option(names = "--model", paramLabel = "ID", description = "Embedding model; default: the local store's, else "
                + "the default model.")
        String model;

        @Parameters(paramLabel = "URL", description = "The collection: http://host:8983/solr/NAME (several nodes"
                + " comma-separated).")
        String url;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            TeamUrl team = TeamAccess.url(url);
            String modelId = model != null ? model
                    : FunesStore.recordedModelId(storeOptions.dir()).orElse(BundledModel.DEFAULT.id());
            int dimension = BundledModel.fromId(modelId).dimension();
            try (TeamConnection conn = TeamAccess.connect(team)) {
                TeamSetup.Outcome outcome = TeamSetup.init(conn, modelId, dimension, shards, replicas);
                spec.commandLine().getOut().println(outcome.created()
                        ? "created the team collection " + team + " (" + shards + " shards x " + replicas
                        + " replicas, configset " + outcome.configSet() + ", model " + modelId + ")"
                        : "the team collection " + team + " exists already (model " + modelId + ")");
            }
            return 0;
        }
    }
}
