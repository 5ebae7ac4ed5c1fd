package dev.funes.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.zip.ZipEntry;

/**
 * sqlite-jdbc's native library, loaded from a copy kept in a folder of the user's rather than
 * from the fresh copy sqlite-jdbc otherwise writes to the temporary folder in every process (after
 * listing that folder, asking {@code uname} whether this is Android and resolving every mapped
 * file to tell musl from glibc): 0.1 s of a quiet machine's start, 0.45 s of a busy one's
 * (docs/BENCHMARKS.md, "Cold start").
 *
 * <p>The launchers name the folder with the system property {@value #DIR_PROPERTY}
 * ({@code funes-cli/target/native} of a checkout, {@code ~/.cache/funes/native} of the
 * distribution). The first process extracts the library there, found as sqlite-jdbc finds it,
 * and notes which of the jar's libraries it is; every later one checks the copy against that
 * entry of the jar (size and CRC-32, which the jar records) and points sqlite-jdbc at it through
 * {@code org.sqlite.lib.path} and {@code org.sqlite.lib.name}. A copy that differs is extracted
 * again. When anything is off (no folder, a folder or copy another user could write, no POSIX
 * permissions, an error) nothing is set and sqlite-jdbc extracts its own copy as usual: the
 * process only starts slower.
 */
final class KeptSqliteLibrary {

    /** The folder where the copy is kept; unset or empty: none. */
    static final String DIR_PROPERTY = "funes.native.dir";

    private KeptSqliteLibrary() {
    }

    /**
     * Points sqlite-jdbc at the kept copy when {@value #DIR_PROPERTY} names a usable folder; does
     * nothing otherwise, and never fails. To be called before the first connection opens.
     */
    static void use() {
        String dir = System.getProperty(DIR_PROPERTY);
        if (dir == null || dir.isBlank() || System.getProperty("org.sqlite.lib.path") != null) {
            return; // none wanted, or the user points sqlite-jdbc somewhere already
        }
        try {
            Path folder = Path.of(dir).toAbsolutePath();
            Path copy = keptCopy(folder);
            if (copy != null) {
                System.setProperty("org.sqlite.lib.path", folder.toString());
                System.setProperty("org.sqlite.lib.name", copy.getFileName().toString());
                // sqlite-jdbc lists this folder for stale copies of its own at every start: ours
                // is small, the system's temporary folder can hold thousands of files.
                System.setProperty("org.sqlite.tmpdir", folder.toString());
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            // sqlite-jdbc's own extraction follows, as without a kept copy.
        }
    }

    /** The verified copy in {@code folder}, extracting it first when it is missing or differs; null when there can be none. */
    static Path keptCopy(Path folder) throws IOException {
        if (KeptCopies.privateFolder(folder) == null) {
            return null;
        }
        Path note = folder.resolve("native-" + platform() + ".txt");
        String resource = null;
        String name = null;
        if (Files.isRegularFile(note, LinkOption.NOFOLLOW_LINKS) && KeptCopies.ownedAndPrivate(note)) {
            List<String> lines = Files.readAllLines(note, StandardCharsets.UTF_8);
            if (lines.size() == 2) {
                resource = lines.get(0);
                name = lines.get(1);
            }
        }
        ZipEntry entry = resource == null ? null : jarEntry(resource);
        if (entry == null) { // no note yet, or one of another sqlite-jdbc whose jar lays its libraries out otherwise
            resource = resourceOfThisPlatform();
            entry = jarEntry(resource);
        }
        if (entry == null) {
            return null;
        }
        if (name != null && !name.contains("/") && !name.contains("\\")) {
            Path copy = folder.resolve(name);
            if (KeptCopies.sameAs(copy, entry)) {
                return copy;
            }
        }
        return extract(folder, note, resource, entry, name);
    }

    /** The operating system and architecture as the JVM names them: a home folder shared by two machines keeps a copy for each. */
    private static String platform() {
        return (System.getProperty("os.name") + "-" + System.getProperty("os.arch")).replaceAll("[^A-Za-z0-9._-]", "_");
    }

    /**
     * The jar's library for this machine, found by sqlite-jdbc's own code: its folder per
     * operating system, libc and architecture, and the library's file name. Costs what
     * sqlite-jdbc's own extraction costs (it starts {@code uname}); only when no note says it.
     */
    private static String resourceOfThisPlatform() {
        String folder = org.sqlite.util.LibraryLoaderUtil.getNativeLibResourcePath();
        return (folder.startsWith("/") ? folder.substring(1) : folder) + "/" + org.sqlite.util.LibraryLoaderUtil.getNativeLibName();
    }

    /** The entry in sqlite-jdbc's jar. */
    private static ZipEntry jarEntry(String resource) throws IOException {
        return KeptCopies.jarEntry(org.sqlite.util.LibraryLoaderUtil.class, resource);
    }

    /**
     * Extracts the library ({@link KeptCopies#extract}), then writes the note that names it. The
     * copy's name carries the CRC-32, so the copies of two versions of sqlite-jdbc never replace
     * each other under a running process.
     */
    private static Path extract(Path folder, Path note, String resource, ZipEntry entry, String oldName) throws IOException {
        String file = resource.substring(resource.lastIndexOf('/') + 1);
        int dot = file.lastIndexOf('.');
        String name = String.format("%s-%08x%s", dot < 0 ? file : file.substring(0, dot), entry.getCrc(), dot < 0 ? "" : file.substring(dot));
        Path copy = folder.resolve(name);
        if (!KeptCopies.extract(org.sqlite.util.LibraryLoaderUtil.class, resource, entry, copy)) {
            return null;
        }
        Path notePart = Files.createTempFile(folder, ".note-", ".part",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            Files.writeString(notePart, resource + "\n" + name + "\n", StandardCharsets.UTF_8);
            KeptCopies.move(notePart, note);
        } finally {
            Files.deleteIfExists(notePart);
        }
        if (oldName != null && !oldName.equals(name) && !oldName.contains("/") && !oldName.contains("\\")) {
            Files.deleteIfExists(folder.resolve(oldName)); // a process that maps it keeps its pages
        }
        return copy;
    }
}
