package dev.funes.bench;

import dev.funes.solr.TeamConnection;
import dev.funes.solr.TeamCredentials;
import dev.funes.solr.TeamUrl;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The two-node SolrCloud (with ZooKeeper and BasicAuth) of funes-solr's tests, run in a JVM of its
 * own by {@code dev.funes.solr.TeamClusterMain}, with a collection of 2 shards × 2 replicas for
 * the default model: where the team store is measured against the local store in one run. Solr's
 * server does not share this module's classpath (their dependencies do not converge), so the
 * cluster runs on funes-solr's test classpath, which its build writes to
 * {@code funes-solr/target/test-classpath.txt} ({@code mvn -o -q -pl funes-solr -am test-compile}).
 */
public final class SolrCloud implements AutoCloseable {

    private final Process process;
    private final TeamUrl url;
    private final Path dir;
    private final Path credentials;

    private SolrCloud(Process process, TeamUrl url, Path dir, Path credentials) {
        this.process = process;
        this.url = url;
        this.dir = dir;
        this.credentials = credentials;
    }

    /**
     * Starts the cluster with {@code collection} and waits until it answers.
     *
     * @param root    the repository root (funes-solr's build output is read from there)
     * @param heap    the cluster JVM's maximum heap, e.g. {@code 2g} (both nodes and ZooKeeper share it)
     */
    public static SolrCloud start(Path root, String collection, String heap) throws IOException {
        Path target = root.resolve("funes-solr/target");
        Path classpath = target.resolve("test-classpath.txt");
        if (!Files.isRegularFile(classpath) || !Files.isDirectory(target.resolve("test-classes/dev/funes/solr"))) {
            throw new IllegalStateException("funes-solr's test classes are not built: run"
                    + " mvn -o -q -pl funes-solr -am test-compile in " + root);
        }
        String sep = java.io.File.pathSeparator;
        String cp = target.resolve("test-classes") + sep + target.resolve("classes") + sep
                + Files.readString(classpath).strip();
        Path credentials = Files.createTempDirectory("funes-bench-team");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-cp", cp, "dev.funes.solr.TeamClusterMain", credentials.toString(), collection)
                .directory(credentials.toFile())
                .redirectError(credentials.resolve("cluster-stderr.log").toFile())
                .start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        Path dir = null;
        for (String line; (line = out.readLine()) != null; ) {
            if (line.startsWith("dir ")) {
                dir = Path.of(line.substring(4));
            } else if (line.startsWith("team ")) {
                Thread drain = new Thread(() -> {
                    try {
                        out.transferTo(java.io.Writer.nullWriter());
                    } catch (IOException ignored) {
                        // the cluster ended
                    }
                }, "solr-cloud-stdout");
                drain.setDaemon(true);
                drain.start();
                return new SolrCloud(p, TeamUrl.parse(line.substring(5)), dir, credentials);
            }
        }
        throw new IllegalStateException("the SolrCloud did not start; its stderr: "
                + credentials.resolve("cluster-stderr.log"));
    }

    /** The collection's team URL. */
    public TeamUrl url() {
        return url;
    }

    /** A connection as the publisher (who reads and writes). */
    public TeamConnection connect() {
        Optional<TeamCredentials> publisher = TeamCredentials.fromEnvironment(
                Map.of(TeamCredentials.FILE_ENV, credentials.resolve("publisher.properties").toString()), null);
        return TeamConnection.open(url, publisher);
    }

    /** Bytes on disk under the cluster's folder: every replica of every shard, and ZooKeeper's data. */
    public long diskBytes() throws IOException {
        if (dir == null) {
            return -1;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }

    /** Bytes of the cores' index folders (every replica), without transaction logs or ZooKeeper. */
    public long indexBytes() throws IOException {
        if (dir == null) {
            return -1;
        }
        List<Path> indexes = new ArrayList<>();
        try (Stream<Path> all = Files.walk(dir)) {
            all.filter(Files::isDirectory).filter(d -> d.getFileName().toString().startsWith("index")
                    && d.getParent().getFileName().toString().equals("data")).forEach(indexes::add);
        }
        long bytes = 0;
        for (Path index : indexes) {
            try (Stream<Path> files = Files.walk(index)) {
                bytes += files.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
            }
        }
        return bytes;
    }

    /** Ends the cluster (its stdin closed) and waits for it. */
    @Override
    public void close() throws InterruptedException, IOException {
        process.getOutputStream().close();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
        }
        try (Stream<Path> files = Files.walk(credentials)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
