package dev.funes.solr;

import org.apache.solr.client.solrj.request.UpdateRequest;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.embedded.JettySolrRunner;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One real SolrCloud for all of this module's tests: two Solr nodes and ZooKeeper in this JVM
 * ({@link MiniSolrCloudCluster}), started on first use and stopped when the JVM exits. Each test
 * class creates its own collections on it (2 shards × 2 replicas, so each node holds a replica
 * of each shard).
 */
public final class TeamCluster {

    private static TeamCluster shared;

    private final MiniSolrCloudCluster cluster;
    private final Path dir;

    private TeamCluster(MiniSolrCloudCluster cluster, Path dir) {
        this.cluster = cluster;
        this.dir = dir;
    }

    /** The cluster, started on first call. */
    public static synchronized TeamCluster shared() {
        if (shared == null) {
            shared = start(null);
            TeamCluster c = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(c::shutdown, "team-cluster-shutdown"));
        }
        return shared;
    }

    /** A new cluster (with a security.json when given); the caller shuts it down. */
    public static TeamCluster start(String securityJson) {
        try {
            Path dir = Files.createTempDirectory("funes-solr-cluster");
            MiniSolrCloudCluster.Builder b = new MiniSolrCloudCluster.Builder(2, dir)
                    .withTraceIdGenerationDisabled();
            if (securityJson != null) {
                b.withSecurityJson(securityJson);
            }
            return new TeamCluster(b.build(), dir);
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the test SolrCloud: " + e, e);
        }
    }

    /** The team URL of a collection, naming every running node. */
    public TeamUrl url(String collection) {
        List<URI> nodes = new ArrayList<>();
        for (JettySolrRunner j : cluster.getJettySolrRunners()) {
            if (j.isRunning()) {
                nodes.add(URI.create(j.getBaseUrl().toString()));
            }
        }
        return new TeamUrl(nodes, collection);
    }

    /** A connection without credentials. */
    public TeamConnection connect(String collection) {
        return TeamConnection.open(url(collection), Optional.empty());
    }

    /** The running cluster, for tests that stop and start nodes. */
    public MiniSolrCloudCluster solr() {
        return cluster;
    }

    /** Deletes every memory and checkpoint of the collection (its model record stays). */
    public void clear(String collection) {
        try (TeamConnection c = connect(collection)) {
            UpdateRequest u = new UpdateRequest();
            u.deleteByQuery("doc:(memory OR source)");
            u.setAction(UpdateRequest.ACTION.COMMIT, true, true, true);
            c.request(u, "clear the collection");
        }
    }

    /** Stops the nodes and ZooKeeper. */
    public void shutdown() {
        try {
            cluster.shutdown();
        } catch (Exception e) {
            System.err.println("test SolrCloud did not shut down cleanly: " + e);
        }
    }
}
