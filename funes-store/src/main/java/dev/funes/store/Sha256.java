package dev.funes.store;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 digests as the store writes them: lower-case hex. */
final class Sha256 {

    private Sha256() {
    }

    /** The SHA-256 of {@code bytes}, 64 hex digits. */
    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    /** Finishes {@code digest}, fed in parts, and gives its value as hex. */
    static String finish(MessageDigest digest) {
        return HexFormat.of().formatHex(digest.digest());
    }

    /** A new SHA-256 digest, for input given in parts. */
    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
