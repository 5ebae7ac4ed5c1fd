package dev.funes.solr;

import org.apache.solr.client.solrj.request.UpdateRequest;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.embedded.JettySolrRunner;
import org.apache.solr.security.Sha256AuthenticationProvider;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * One real SolrCloud for all of this module's tests: two Solr nodes and ZooKeeper in this JVM
 * ({@link MiniSolrCloudCluster}), started on first use and stopped when the JVM exits, with
 * BasicAuth on. Each test class creates its own collections on it (2 shards × 2 replicas, so
 * each node holds a replica of each shard).
 */
public final class TeamCluster {

    /** The administrator, who may create collections. */
    public static final TeamCredentials ADMIN = new TeamCredentials("admin", "admin-" + UUID.randomUUID());
    /** A publisher: reads and writes memories. */
    public static final TeamCredentials PUBLISHER = new TeamCredentials("publisher", "pub-" + UUID.randomUUID());
    /** A reader: searches only. */
    public static final TeamCredentials READER = new TeamCredentials("reader", "read-" + UUID.randomUUID());

    private static TeamCluster shared;

    private final MiniSolrCloudCluster cluster;
    private final Path dir;

    private TeamCluster(MiniSolrCloudCluster cluster, Path dir) {
        this.cluster = cluster;
        this.dir = dir;
    }

    /** The folder the nodes and ZooKeeper keep their data in. */
    public Path dir() {
        return dir;
    }

    /**
     * Solr's BasicAuth with every request authenticated, and the roles docs/TEAM.md proposes:
     * everyone reads, publishers also write, only the administrator creates collections.
     */
    static String securityJson() {
        return """
                {"authentication": {"class": "solr.BasicAuthPlugin", "blockUnknown": true, "credentials": {
                   "admin": "%s", "publisher": "%s", "reader": "%s"}},
                 "authorization": {"class": "solr.RuleBasedAuthorizationPlugin",
                   "user-role": {"admin": ["admin"], "publisher": ["publisher"], "reader": ["reader"]},
                   "permissions": [
                     {"name": "read", "role": ["reader", "publisher", "admin"]},
                     {"name": "update", "role": ["publisher", "admin"]},
                     {"name": "all", "role": ["admin"]}]}}
                """.formatted(Sha256AuthenticationProvider.getSaltedHashedValue(ADMIN.password()),
                Sha256AuthenticationProvider.getSaltedHashedValue(PUBLISHER.password()),
                Sha256AuthenticationProvider.getSaltedHashedValue(READER.password()));
    }

    /** The cluster, started on first call, with BasicAuth ({@link #securityJson()}). */
    public static synchronized TeamCluster shared() {
        if (shared == null) {
            shared = start(securityJson());
            TeamCluster c = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(c::shutdown, "team-cluster-shutdown"));
        }
        return shared;
    }

    /**
     * The shared cluster with {@code collection} created for a model, 2 shards × 2 replicas (each
     * node holds a replica of each shard), as every test class and {@link TeamClusterMain} use it;
     * a collection that exists is left as it is.
     */
    public static TeamCluster withCollection(String collection, String modelId, int dimension) {
        TeamCluster cluster = shared();
        try (TeamConnection conn = cluster.connect(collection)) {
            TeamSetup.init(conn, modelId, dimension, 2, 2);
        }
        return cluster;
    }

    private static TeamCluster start(String securityJson) {
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

    /** A connection as the administrator. */
    public TeamConnection connect(String collection) {
        return connect(collection, ADMIN);
    }

    /** A connection with these credentials (none when null). */
    public TeamConnection connect(String collection, TeamCredentials credentials) {
        return TeamConnection.open(url(collection), Optional.ofNullable(credentials));
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

    /** Stops the nodes and ZooKeeper and deletes their folder (a 100k benchmark leaves a gigabyte). */
    public void shutdown() {
        try {
            cluster.shutdown();
        } catch (Exception e) {
            System.err.println("test SolrCloud did not shut down cleanly: " + e);
        }
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("cannot delete the test SolrCloud's folder " + dir + ": " + e);
        }
    }
}
