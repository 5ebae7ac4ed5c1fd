package dev.funes.solr;

import dev.funes.embed.BundledModel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The test SolrCloud ({@link TeamCluster}) in a JVM of its own, for the tests of a module that
 * cannot hold Solr's server on its classpath (funes-cli's test classpath has another Jetty).
 * {@code TeamClusterMain DIR COLLECTION} starts the cluster, creates the collection (2 × 2, the
 * default model), writes the publisher's and the reader's credentials files
 * ({@code DIR/publisher.properties}, {@code DIR/reader.properties}, owner-only, as
 * {@code FUNES_TEAM_CREDENTIALS} reads them), prints {@code team URL} on stdout, and shuts the
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
        TeamCluster cluster = TeamCluster.shared();
        try (TeamConnection conn = cluster.connect(collection)) {
            TeamSetup.init(conn, BundledModel.DEFAULT.id(), BundledModel.DEFAULT.dimension(), 2, 2);
        }
        write(dir.resolve("publisher.properties"), TeamCluster.PUBLISHER);
        write(dir.resolve("reader.properties"), TeamCluster.READER);
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
