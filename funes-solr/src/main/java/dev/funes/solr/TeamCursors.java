package dev.funes.solr;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The publish cursors of a local store, one per team collection and set of projects, in a
 * properties file of the store's directory ({@value #FILE}). A new set of projects starts from
 * the beginning: its older memories were never sent. Written through a temporary file and a
 * rename, so a crash leaves the old cursor or the new one.
 */
public final class TeamCursors {

    /** The file's name in the store's directory. */
    public static final String FILE = "team-cursors.properties";

    private final Path file;

    /** The cursors of the store in {@code storeDir}. */
    public TeamCursors(Path storeDir) {
        this.file = storeDir.resolve(FILE);
    }

    /** The cursor of a team collection and projects; {@link TeamPublish.Cursor#START} when none. */
    public TeamPublish.Cursor get(TeamUrl url, Set<String> projects) {
        String v = load().getProperty(key(url, projects));
        if (v == null) {
            return TeamPublish.Cursor.START;
        }
        String[] parts = v.split(" ", -1);
        return new TeamPublish.Cursor(Long.parseLong(parts[0]), parts[1].isEmpty() ? null : parts[1],
                parts[2].isEmpty() ? null : parts[2]);
    }

    /** Records a cursor. */
    public synchronized void put(TeamUrl url, Set<String> projects, TeamPublish.Cursor cursor) {
        Properties props = load();
        props.setProperty(key(url, projects), cursor.seq() + " " + (cursor.deletedAt() == null ? "" : cursor.deletedAt())
                + " " + (cursor.deletedId() == null ? "" : cursor.deletedId()));
        try {
            Path tmp = file.resolveSibling(FILE + ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                props.store(w, "funes publish: how far this store was published to each team collection");
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the publish cursor " + file, e);
        }
    }

    private Properties load() {
        Properties props = new Properties();
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                props.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the publish cursor " + file, e);
            }
        }
        return props;
    }

    private static String key(TeamUrl url, Set<String> projects) {
        return url.collection() + "@" + url.nodes().get(0) + (projects.isEmpty() ? "" : "|" + String.join("|",
                new TreeSet<>(projects)));
    }
}
