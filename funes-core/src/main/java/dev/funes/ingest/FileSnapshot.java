package dev.funes.ingest;

import dev.funes.SourceState;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * One look at a log file before it is read: what tells whether it changed since its checkpoint,
 * whether it is still the file read then, and which format reads it.
 *
 * @param file     the file's real path
 * @param size     its size in bytes
 * @param modified its modification time, to the millisecond (as checkpoints keep it)
 * @param key      its identity (inode) when the platform gives one, else null
 * @param head     its first bytes, up to {@link Indexer#HEAD_BYTES}
 */
record FileSnapshot(Path file, long size, Instant modified, String key, byte[] head) {

    /** Bytes of a file's beginning hashed into {@link SourceState#headFingerprint()}. */
    static final int FINGERPRINT_BYTES = 4096;

    /** Looks at {@code file}: its attributes, then its first bytes. */
    static FileSnapshot of(Path file) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(Indexer.HEAD_BYTES);
        }
        return new FileSnapshot(file, attrs.size(), modified(attrs),
                attrs.fileKey() == null ? null : attrs.fileKey().toString(), head);
    }

    /** A file's modification time as checkpoints keep it: to the millisecond. */
    static Instant modified(BasicFileAttributes attrs) {
        return attrs.lastModifiedTime().toInstant().truncatedTo(ChronoUnit.MILLIS);
    }

    /** The fingerprint of the file's first bytes (see {@link #fingerprint(byte[])}). */
    String fingerprint() {
        return fingerprint(head);
    }

    /** Whether the file begins with the bytes {@code fingerprint} was made of. */
    boolean sameHead(String fingerprint) {
        int colon = fingerprint.indexOf(':');
        int n;
        try {
            n = Integer.parseInt(fingerprint.substring(0, Math.max(colon, 0)));
        } catch (NumberFormatException e) {
            return false;
        }
        return n <= head.length && fingerprint.equals(fingerprint(Arrays.copyOf(head, n)));
    }

    /** Whether the file has the size and time a checkpoint recorded. */
    boolean sameSizeAndTime(SourceState state) {
        return state.size() == size && state.lastModified().toEpochMilli() == modified.toEpochMilli();
    }

    /** {@code <n>:<hex>}: how many leading bytes were hashed, and the first 128 bits of their SHA-256. */
    static String fingerprint(byte[] head) {
        int n = Math.min(head.length, FINGERPRINT_BYTES);
        MessageDigest sha = Sha256.digest();
        sha.update(head, 0, n);
        return n + ":" + HexFormat.of().formatHex(sha.digest()).substring(0, 32);
    }

    /** Why a file could not be looked at or read, in a few words. */
    static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
