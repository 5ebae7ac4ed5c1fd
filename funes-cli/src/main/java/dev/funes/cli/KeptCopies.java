package dev.funes.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;

/**
 * Files of a jar kept as verified copies in a folder of the user's, for native libraries that
 * their own loaders would otherwise write afresh to the temporary folder in every process
 * ({@link KeptSqliteLibrary}, {@link KeptOnnxRuntime}).
 *
 * <p>The rules: the folder and every copy must be this user's and writable by nobody else (a
 * symbolic link is never followed); a copy is used only when its size and CRC-32 equal those the
 * jar records for its entry, read from that one jar; a copy is written beside its place, checked,
 * made read-only and renamed into place, so a process loading it at that moment maps either file
 * whole. Callers fall back to the library's own extraction whenever a method here says no.
 */
final class KeptCopies {

    private static final Set<PosixFilePermission> OTHERS_MAY_WRITE =
            Set.of(PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    private KeptCopies() {
    }

    /**
     * The folder, made (owner-only) when it is missing; null when it is not this user's alone.
     */
    static Path privateFolder(Path folder) throws IOException {
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(folder.getParent());
            try {
                Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (FileAlreadyExistsException e) {
                // Another process made it meanwhile: checked below like any other.
            }
        }
        return ownedAndPrivate(folder) ? folder : null;
    }

    /** Owned by this process's user, and writable by nobody else (a symbolic link is not followed). */
    static boolean ownedAndPrivate(Path path) throws IOException {
        PosixFileAttributes attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        return !attributes.isSymbolicLink()
                && attributes.owner().getName().equals(System.getProperty("user.name"))
                && attributes.permissions().stream().noneMatch(OTHERS_MAY_WRITE::contains);
    }

    /**
     * The resource in the jar that holds {@code type}. Asked of that jar alone: the class loader
     * would open every jar before it on the class path to look for it (tens of milliseconds).
     * Null when {@code type} does not come from a jar file.
     */
    static URL inJar(Class<?> type, String resource) throws IOException {
        java.security.CodeSource source = type.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null || !"file".equals(source.getLocation().getProtocol())
                || !source.getLocation().getPath().endsWith(".jar")) {
            return null;
        }
        return new URL("jar:" + source.getLocation() + "!/" + resource);
    }

    /**
     * The entry of the resource in the jar that holds {@code type}, with its size and CRC-32; null
     * when it is not there or the jar does not record them.
     */
    static ZipEntry jarEntry(Class<?> type, String resource) throws IOException {
        return jarEntry(inJar(type, resource));
    }

    /** The entry a {@code jar:} URL names, with its size and CRC-32; null for any other URL. */
    static ZipEntry jarEntry(URL url) throws IOException {
        if (url == null || !"jar".equals(url.getProtocol())) {
            return null;
        }
        URLConnection connection = url.openConnection();
        ZipEntry entry;
        try {
            entry = connection instanceof JarURLConnection jar ? jar.getJarEntry() : null;
        } catch (java.io.FileNotFoundException e) {
            return null;
        }
        return entry == null || entry.getSize() < 0 || entry.getCrc() < 0 ? null : entry;
    }

    /** The copy is a private regular file of the entry's size and CRC-32. */
    static boolean sameAs(Path copy, ZipEntry entry) throws IOException {
        if (!Files.isRegularFile(copy, LinkOption.NOFOLLOW_LINKS) || !ownedAndPrivate(copy)
                || Files.size(copy) != entry.getSize()) {
            return false;
        }
        CRC32 crc = new CRC32();
        try (FileChannel channel = FileChannel.open(copy, StandardOpenOption.READ)) {
            // Mapped, not read onto the heap: ONNX Runtime's library is 23 MB.
            MappedByteBuffer bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
            crc.update(bytes);
        }
        return crc.getValue() == entry.getCrc();
    }

    /**
     * Writes the entry of the jar that holds {@code type} to a new file beside {@code copy},
     * checks its size and CRC-32, makes it read-only and renames it to {@code copy}; false when
     * what was read differs from the entry.
     */
    static boolean extract(Class<?> type, String resource, ZipEntry entry, Path copy) throws IOException {
        return extract(inJar(type, resource), entry, copy);
    }

    /** {@link #extract(Class, String, ZipEntry, Path)} of the entry a {@code jar:} URL names. */
    static boolean extract(URL url, ZipEntry entry, Path copy) throws IOException {
        if (url == null) {
            return false;
        }
        Path part = Files.createTempFile(copy.getParent(), ".extract-", ".part",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            CRC32 crc = new CRC32();
            long size = 0;
            try (InputStream in = url.openStream(); OutputStream out = Files.newOutputStream(part)) {
                byte[] buffer = new byte[64 * 1024];
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    crc.update(buffer, 0, n);
                    out.write(buffer, 0, n);
                    size += n;
                }
            }
            if (size != entry.getSize() || crc.getValue() != entry.getCrc()) {
                return false;
            }
            Files.setPosixFilePermissions(part, PosixFilePermissions.fromString("r-x------"));
            move(part, copy);
            return true;
        } finally {
            Files.deleteIfExists(part);
        }
    }

    /** Renames {@code from} to {@code to}, atomically where the file system can. */
    static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
