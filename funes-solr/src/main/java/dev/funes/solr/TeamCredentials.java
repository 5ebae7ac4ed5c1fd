package dev.funes.solr;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * A user and password for Solr's BasicAuth. They come from the environment
 * ({@value #USER_ENV}, {@value #PASSWORD_ENV}) or from a properties file ({@code user=},
 * {@code password=}) that only its owner may read; never from the command line. The password
 * appears in no {@link #toString()}, log line or error message.
 */
public final class TeamCredentials {

    /** The environment variable holding the user. */
    public static final String USER_ENV = "FUNES_TEAM_USER";
    /** The environment variable holding the password. */
    public static final String PASSWORD_ENV = "FUNES_TEAM_PASSWORD";
    /** The environment variable naming a credentials file. */
    public static final String FILE_ENV = "FUNES_TEAM_CREDENTIALS";

    private final String user;
    private final String password;

    /** Credentials for {@code user}. */
    public TeamCredentials(String user, String password) {
        this.user = Objects.requireNonNull(user, "user");
        this.password = Objects.requireNonNull(password, "password");
        if (user.isBlank() || user.indexOf(':') >= 0) {
            throw new IllegalArgumentException("a BasicAuth user is not blank and holds no ':'");
        }
    }

    /** The user. */
    public String user() {
        return user;
    }

    /** The password; only for the HTTP client. */
    String password() {
        return password;
    }

    /**
     * The credentials the environment gives: {@value #USER_ENV} and {@value #PASSWORD_ENV}, else
     * the file {@value #FILE_ENV} names, else {@code defaultFile} if it exists; empty when none
     * (the team collection is then asked without authentication).
     *
     * @throws IllegalArgumentException if only one of the variables is set, or the file is
     *                                  unreadable, incomplete or readable by others
     */
    public static Optional<TeamCredentials> fromEnvironment(Map<String, String> env, Path defaultFile) {
        String user = env.get(USER_ENV);
        String password = env.get(PASSWORD_ENV);
        if (user != null || password != null) {
            if (user == null || password == null) {
                throw new IllegalArgumentException("set both " + USER_ENV + " and " + PASSWORD_ENV + ", or neither");
            }
            return Optional.of(new TeamCredentials(user, password));
        }
        String named = env.get(FILE_ENV);
        if (named != null && !named.isBlank()) {
            return Optional.of(fromFile(Path.of(named)));
        }
        return defaultFile != null && Files.exists(defaultFile) ? Optional.of(fromFile(defaultFile))
                : Optional.empty();
    }

    /**
     * Reads {@code user=} and {@code password=} from a properties file that only its owner may
     * read or write (mode 600 or 400 where the file system has POSIX permissions).
     *
     * @throws IllegalArgumentException naming the file and what is wrong with it
     */
    public static TeamCredentials fromFile(Path file) {
        PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        try {
            if (posix != null) {
                Set<PosixFilePermission> perms = posix.readAttributes().permissions();
                for (PosixFilePermission p : perms) {
                    if (p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")) {
                        throw new IllegalArgumentException("the credentials file " + file
                                + " may be read by other users; run: chmod 600 " + file);
                    }
                }
            }
            Properties props = new Properties();
            try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                props.load(in);
            }
            String user = props.getProperty("user");
            String password = props.getProperty("password");
            if (user == null || user.isBlank() || password == null) {
                throw new IllegalArgumentException("the credentials file " + file + " needs a user= and a password= line");
            }
            return new TeamCredentials(user.strip(), password);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the credentials file " + file + ": "
                    + e.getClass().getSimpleName());
        }
    }

    /** The user, never the password. */
    @Override
    public String toString() {
        return "TeamCredentials[user=" + user + "]";
    }
}
