package dev.funes.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipEntry;

/**
 * ONNX Runtime's native libraries, loaded from copies kept in the folder of
 * {@value KeptSqliteLibrary#DIR_PROPERTY} rather than from the fresh copies ONNX Runtime's Java
 * binding otherwise writes to a new temporary folder in every process that loads a model (23 MB
 * inflated and written for {@code libonnxruntime.so}; docs/BENCHMARKS.md, "Cold start").
 *
 * <p>The binding loads both libraries from the folder the system property
 * {@value #NATIVE_PATH_PROPERTY} names, by their plain names ({@code libonnxruntime.so},
 * {@code libonnxruntime4j_jni.so}), when it is set before its first use. So the copies live in a
 * folder of their own per pair of libraries, named by their CRC-32s, which two versions of ONNX
 * Runtime never share. Each copy is checked against its entry of the ONNX Runtime jar before the
 * property is set, and extracted again when it differs ({@link KeptCopies}); when anything is off
 * nothing is set, and the binding extracts its own copies as before.
 */
final class KeptOnnxRuntime {

    /** ONNX Runtime's own property: a folder holding its native libraries. */
    static final String NATIVE_PATH_PROPERTY = "onnxruntime.native.path";
    /** Where the binding's jar keeps its libraries, then a folder per platform. */
    private static final String RESOURCES = "ai/onnxruntime/native/";

    private KeptOnnxRuntime() {
    }

    /**
     * Points ONNX Runtime at the kept copies when {@value KeptSqliteLibrary#DIR_PROPERTY} names a
     * usable folder; does nothing otherwise, and never fails. To be called before ONNX Runtime
     * starts, and only by a process that will load a model (it reads both libraries to check them).
     */
    static void use() {
        String dir = System.getProperty(KeptSqliteLibrary.DIR_PROPERTY);
        if (dir == null || dir.isBlank() || System.getProperty(NATIVE_PATH_PROPERTY) != null) {
            return; // none wanted, or the user points ONNX Runtime somewhere already
        }
        try {
            Path folder = keptFolder(Path.of(dir).toAbsolutePath());
            if (folder != null) {
                System.setProperty(NATIVE_PATH_PROPERTY, folder.toString());
            }
        } catch (IOException | RuntimeException | LinkageError e) {
            // ONNX Runtime's own extraction follows, as without kept copies.
        }
    }

    /**
     * The folder in {@code root} holding verified copies of both libraries, extracting what is
     * missing or differs; null when there can be none.
     */
    static Path keptFolder(Path root) throws IOException {
        String platform = platform();
        if (platform == null || KeptCopies.privateFolder(root) == null) {
            return null;
        }
        Class<?> jarOf = ai.onnxruntime.OrtEnvironment.class; // a class literal: ONNX Runtime does not start
        List<String> names = List.of(libraryName("onnxruntime"), libraryName("onnxruntime4j_jni"));
        List<ZipEntry> entries = new ArrayList<>(names.size());
        StringBuilder folderName = new StringBuilder("onnxruntime-").append(platform);
        for (String name : names) {
            ZipEntry entry = KeptCopies.jarEntry(jarOf, RESOURCES + platform + "/" + name);
            if (entry == null) {
                return null;
            }
            entries.add(entry);
            folderName.append(String.format("-%08x", entry.getCrc()));
        }
        Path folder = root.resolve(folderName.toString());
        boolean made = false;
        if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectory(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                made = true;
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // Another process made it meanwhile: checked below like any other.
            }
        }
        if (!KeptCopies.ownedAndPrivate(folder)) {
            return null;
        }
        for (int i = 0; i < names.size(); i++) {
            Path copy = folder.resolve(names.get(i));
            if (!KeptCopies.sameAs(copy, entries.get(i))
                    && !KeptCopies.extract(jarOf, RESOURCES + platform + "/" + names.get(i), entries.get(i), copy)) {
                return null;
            }
        }
        if (made) {
            removeOthers(root, "onnxruntime-" + platform + "-", folder);
        }
        return folder;
    }

    /**
     * Removes the copies of other ONNX Runtime versions for this platform: a new version's first
     * start leaves no 23 MB behind. A process still running an old version has loaded its
     * libraries at its start, and keeps them mapped.
     */
    private static void removeOthers(Path root, String prefix, Path kept) {
        try (java.util.stream.Stream<Path> folders = Files.list(root)) {
            for (Path other : folders.toList()) {
                if (other.equals(kept) || !other.getFileName().toString().startsWith(prefix)
                        || !Files.isDirectory(other, LinkOption.NOFOLLOW_LINKS) || !KeptCopies.ownedAndPrivate(other)) {
                    continue;
                }
                try (java.util.stream.Stream<Path> files = Files.list(other)) {
                    for (Path file : files.toList()) {
                        Files.deleteIfExists(file);
                    }
                }
                Files.deleteIfExists(other);
            }
        } catch (IOException | RuntimeException e) {
            // Only disk space is at stake.
        }
    }

    /** A library's file name as the binding looks for it (it maps macOS's {@code .jnilib} to {@code .dylib}). */
    private static String libraryName(String library) {
        return System.mapLibraryName(library).replace("jnilib", "dylib");
    }

    /**
     * This machine's folder in the binding's jar, named as the binding names it ({@code linux-x64},
     * {@code osx-aarch64}, {@code win-x64}); null for a machine the jar cannot have a folder for.
     */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        String osPart = os.contains("mac") || os.contains("darwin") ? "osx"
                : os.contains("win") ? "win"
                : os.contains("nux") ? "linux" : null;
        String archPart = arch.startsWith("amd64") || arch.startsWith("x86_64") ? "x64"
                : arch.startsWith("aarch64") ? "aarch64" : null;
        return osPart == null || archPart == null ? null : osPart + "-" + archPart;
    }
}
