package dev.funes.store;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Recognises a Git LFS pointer file: what a shard is when a repository was cloned without its LFS
 * objects, so that an import names the cause instead of a checksum mismatch.
 */
final class LfsPointer {

    /** The first line of every pointer (the Git LFS specification, version 1). */
    static final String FIRST_LINE = "version https://git-lfs.github.com/spec/v1\n";
    /** Pointers are small; Git LFS itself never reads more than this to recognise one. */
    private static final int MAX_POINTER_BYTES = 1024;

    private LfsPointer() {
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
