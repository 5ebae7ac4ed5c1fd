package dev.funes.ingest;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256 for the readers' and checkpoints' fingerprints: one place that asks the platform for it. */
final class Sha256 {

    private Sha256() {
    }

    /** A new SHA-256 digest (every Java platform has one). */
    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The first {@code hexDigits} lowercase hex digits of the SHA-256 of the text's UTF-8 bytes. */
    static String hex(String text, int hexDigits) {
        return HexFormat.of().formatHex(digest().digest(text.getBytes(StandardCharsets.UTF_8))).substring(0, hexDigits);
    }
}
