package dev.funes.solr;

import dev.funes.embed.BundledModel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The test SolrCloud ({@link TeamCluster}) in a JVM of its own, for the tests and benchmarks of
 * modules that cannot hold Solr's server on their classpath (funes-cli's tests have another Jetty;
 * funes-benchmarks' dependencies would not converge).
 * {@code TeamClusterMain DIR COLLECTION} starts the cluster, creates the collection (2 × 2, the
 * default model), writes the publisher's and the reader's credentials files
 * ({@code DIR/publisher.properties}, {@code DIR/reader.properties}, owner-only, as
 * {@code FUNES_TEAM_CREDENTIALS} reads them), prints {@code dir FOLDER} (where the nodes keep their
 * cores) and {@code team URL} on stdout, and shuts the
 * cluster down when its stdin ends. funes-solr's build writes the classpath it needs to
 * {@code target/test-classpath.txt}.
 */
public final class TeamClusterMain {

    private TeamClusterMain() {
    }

    /** Runs until stdin ends. */
    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: TeamClusterMain DIR COLLECTION");
            System.exit(2);
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        String collection = args[1];
        TeamCluster cluster = TeamCluster.withCollection(collection, BundledModel.DEFAULT.id(),
                BundledModel.DEFAULT.dimension());
        write(dir.resolve("publisher.properties"), TeamCluster.PUBLISHER);
        write(dir.resolve("reader.properties"), TeamCluster.READER);
        System.out.println("dir " + cluster.dir());
        System.out.println("team " + cluster.url(collection));
        System.out.flush();
        System.in.transferTo(java.io.OutputStream.nullOutputStream());
        System.exit(0); // TeamCluster's shutdown hook stops the nodes and ZooKeeper
    }

    private static void write(Path file, TeamCredentials credentials) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, "user=" + credentials.user() + "\npassword=" + credentials.password() + "\n");
    }
}
