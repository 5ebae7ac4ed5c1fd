package dev.funes.cli;

import dev.funes.Embedder;
import dev.funes.FunesException;
import dev.funes.solr.SolrMemoryStore;
import dev.funes.solr.TeamConnection;
import dev.funes.solr.TeamCredentials;
import dev.funes.solr.TeamOptions;
import dev.funes.solr.TeamUrl;
import dev.funes.store.StoreOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What the team commands share: the team URL parsed, the credentials found (environment or the
 * owner-only file {@code ~/.config/funes/team-credentials}; never the command line), the
 * connection and the team store opened.
 */
final class TeamAccess {

    /** The credentials file read when the environment names none. */
    static final String CREDENTIALS_FILE = "team-credentials";

    private TeamAccess() {
    }

    static TeamUrl url(String text) {
        try {
            return TeamUrl.parse(text);
        } catch (IllegalArgumentException e) {
            throw new FunesException("--team: " + e.getMessage());
        }
    }

    static Optional<TeamCredentials> credentials() {
        try {
            return TeamCredentials.fromEnvironment(System.getenv(),
                    FunesConfig.userFile().resolveSibling(CREDENTIALS_FILE));
        } catch (IllegalArgumentException e) {
            throw new FunesException(e.getMessage());
        }
    }

    static TeamConnection connect(TeamUrl url) {
        return TeamConnection.open(url, credentials());
    }

    /** Opens the team store with the local store's embedder and redactor, stamping this machine and user. */
    static SolrMemoryStore open(TeamUrl url, Embedder embedder, Path storeDir, String origin) {
        StoreOptions options = StoreOptions.builder().redactor(OpenStore.redactor(storeDir)).build();
        TeamConnection conn = connect(url);
        try {
            return SolrMemoryStore.open(conn, embedder, new TeamOptions(options, origin, System.getProperty("user.name")));
        } catch (RuntimeException e) {
            conn.close();
            throw e;
        }
    }

    /** This machine's name, the default origin of what it publishes. */
    static String machine() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
