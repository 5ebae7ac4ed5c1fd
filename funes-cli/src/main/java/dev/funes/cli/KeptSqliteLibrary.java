package dev.funes.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32;
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

    private static final Set<PosixFilePermission> OTHERS_MAY_WRITE =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

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
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(folder.getParent());
            try {
                Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // Another process made it meanwhile: checked below like any other.
            }
        }
        if (!ownedAndPrivate(folder)) {
            return null;
        }
        Path note = folder.resolve("native-" + platform() + ".txt");
        String resource = null;
        String name = null;
        if (Files.isRegularFile(note, LinkOption.NOFOLLOW_LINKS) && ownedAndPrivate(note)) {
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
        if (entry == null || entry.getSize() < 0 || entry.getCrc() < 0) {
            return null;
        }
        if (name != null && !name.contains("/") && !name.contains("\\")) {
            Path copy = folder.resolve(name);
            if (sameAs(copy, entry)) {
                return copy;
            }
        }
        return extract(folder, note, resource, entry, name);
    }

    /** Owned by this process's user, and writable by nobody else (a symbolic link is not followed). */
    private static boolean ownedAndPrivate(Path path) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return !attributes.isSymbolicLink()
                && attributes.owner().getName().equals(System.getProperty("user.name"))
                && attributes.permissions().stream().noneMatch(OTHERS_MAY_WRITE::contains);
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

    /**
     * The resource in sqlite-jdbc's jar. Asked of that jar alone: the class loader would open
     * every jar before it on the class path to look for it (tens of milliseconds).
     */
    private static URL inJar(String resource) throws IOException {
        java.security.CodeSource source = org.sqlite.util.LibraryLoaderUtil.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null || !"file".equals(source.getLocation().getProtocol())
                || !source.getLocation().getPath().endsWith(".jar")) {
            return null;
        }
        return new URL("jar:" + source.getLocation() + "!/" + resource);
    }

    /** The jar's entry of the resource, with its size and CRC-32; null when it is not in the jar. */
    private static ZipEntry jarEntry(String resource) throws IOException {
        URL url = inJar(resource);
        if (url == null) {
            return null;
        }
        URLConnection connection = url.openConnection();
        try {
            return connection instanceof JarURLConnection jar ? jar.getJarEntry() : null;
        } catch (java.io.FileNotFoundException e) {
            return null;
        }
    }

    /** The copy is a private regular file of the entry's size and CRC-32. */
    private static boolean sameAs(Path copy, ZipEntry entry) throws IOException {
        if (!Files.isRegularFile(copy, LinkOption.NOFOLLOW_LINKS) || !ownedAndPrivate(copy)
                || Files.size(copy) != entry.getSize()) {
            return false;
        }
        CRC32 crc = new CRC32();
        crc.update(Files.readAllBytes(copy));
        return crc.getValue() == entry.getCrc();
    }

    /**
     * Writes the entry to a new file beside the copy, checks it, and renames it into place (a
     * process loading the copy at that moment maps either file whole), then the note that names
     * it. The file is the user's alone and read-only; its name carries the CRC-32, so the copies
     * of two versions of sqlite-jdbc never replace each other under a running process.
     */
    private static Path extract(Path folder, Path note, String resource, ZipEntry entry, String oldName) throws IOException {
        String file = resource.substring(resource.lastIndexOf('/') + 1);
        int dot = file.lastIndexOf('.');
        String name = String.format("%s-%08x%s", dot < 0 ? file : file.substring(0, dot), entry.getCrc(), dot < 0 ? "" : file.substring(dot));
        Path copy = folder.resolve(name);
        Path part = Files.createTempFile(folder, ".extract-", ".part",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            CRC32 crc = new CRC32();
            long size = 0;
            try (InputStream in = inJar(resource).openStream(); OutputStream out = Files.newOutputStream(part)) {
                byte[] buffer = new byte[64 * 1024];
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    crc.update(buffer, 0, n);
                    out.write(buffer, 0, n);
                    size += n;
                }
            }
            if (size != entry.getSize() || crc.getValue() != entry.getCrc()) {
                return null;
            }
            Files.setPosixFilePermissions(part, PosixFilePermissions.fromString("r-x------"));
            move(part, copy);
            Path notePart = Files.createTempFile(folder, ".note-", ".part",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try {
                Files.writeString(notePart, resource + "\n" + name + "\n", StandardCharsets.UTF_8);
                move(notePart, note);
            } finally {
                Files.deleteIfExists(notePart);
            }
            if (oldName != null && !oldName.equals(name) && !oldName.contains("/") && !oldName.contains("\\")) {
                Files.deleteIfExists(folder.resolve(oldName)); // a process that maps it keeps its pages
            }
            return copy;
        } finally {
            Files.deleteIfExists(part);
        }
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
