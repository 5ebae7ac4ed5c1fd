package dev.funes.cli;

import dev.funes.solr.SolrMemoryStore;
import dev.funes.solr.TeamCursors;
import dev.funes.solr.TeamPublish;
import dev.funes.solr.TeamUrl;
import java.io.PrintWriter;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code funes publish --team URL}: sends the local store's memories stored since the last
 * publish to the team collection, and its deletions since as deletions (docs/TEAM.md).
 */
@Command(name = "publish", description = "Send this store's new memories (and deletions) to a team collection;"
        + " incremental, safe to run again.")
final class PublishCommand implements Callable<Integer> {

    @Mixin
    StoreOptions storeOptions;

    @Option(names = "--team", required = true, paramLabel = "URL",
            description = "The team collection: http://host:8983/solr/NAME (see funes team init).")
    String team;

    @Option(names = {"-p", "--project"}, paramLabel = "P",
            description = "Only memories of this project (repeatable); default: every memory.")
    List<String> projects;

    @Option(names = "--origin", paramLabel = "NAME", description = "The machine name stamped on what is published"
            + " (default: this host's name).")
    String origin;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        TeamUrl url = TeamAccess.url(team);
        Set<String> only = projects == null ? Set.of() : new TreeSet<>(projects);
        String from = origin != null ? origin : TeamAccess.machine();
        TeamCursors cursors = new TeamCursors(storeOptions.dir());
        try (OpenStore local = OpenStore.existing(storeOptions.dir());
             SolrMemoryStore teamStore = TeamAccess.open(url, local.embedder(), storeOptions.dir(), from)) {
            TeamPublish.Report report = TeamPublish.publish(local.store(), teamStore, only, cursors.get(url, only),
                    from, cursor -> cursors.put(url, only, cursor));
            PrintWriter out = spec.commandLine().getOut();
            out.printf("published to %s as %s: %d memories read, %d added, %d already there, %d embedded;"
                            + " %d changed; %d deleted%n",
                    url, from, report.read(), report.stored().added(), report.stored().unchanged(),
                    report.stored().embedded(), report.changed(), report.deleted());
        }
        return 0;
    }
}
