package dev.funes.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Git LFS pointer files: what a shard is in a repository cloned without its LFS content. A
 * pointer whose object is in the folder's {@code .git/lfs/objects} (where git-lfs and {@code funes
 * pull} keep it) is read through it; any other pointer is named as such by an import.
 */
final class LfsPointer {

    /** The first line of every pointer (the Git LFS specification, version 1). */
    static final String FIRST_LINE = "version https://git-lfs.github.com/spec/v1\n";
    /** Pointers are small; Git LFS itself never reads more than this to recognise one. */
    private static final int MAX_POINTER_BYTES = 1024;

    private LfsPointer() {
    }

    private static final java.util.regex.Pattern POINTER = java.util.regex.Pattern.compile(
            "version https://git-lfs\\.github\\.com/spec/v1\noid sha256:([0-9a-f]{64})\nsize ([0-9]{1,18})\n");

    /**
     * Where the content of {@code file} is: the file itself, or, for a pointer whose object of
     * the right size is in {@code root/.git/lfs/objects}, that object.
     */
    static Path content(Path root, Path file) {
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > MAX_POINTER_BYTES) {
                return file;
            }
            java.util.regex.Matcher m = POINTER.matcher(Files.readString(file, StandardCharsets.UTF_8));
            if (!m.matches()) {
                return file;
            }
            String oid = m.group(1);
            Path object = root.resolve(".git").resolve("lfs").resolve("objects").resolve(oid.substring(0, 2))
                    .resolve(oid.substring(2, 4)).resolve(oid);
            return Files.isRegularFile(object) && Files.size(object) == Long.parseLong(m.group(2)) ? object : file;
        } catch (IOException | RuntimeException e) {
            return file;
        }
    }

    static boolean isPointer(Path file) {
        try {
            if (Files.size(file) > MAX_POINTER_BYTES) {
                return false;
            }
            try (InputStream in = Files.newInputStream(file)) {
                byte[] head = in.readNBytes(FIRST_LINE.length());
                return new String(head, StandardCharsets.US_ASCII).equals(FIRST_LINE);
            }
        } catch (IOException e) {
            return false;
        }
    }
}
