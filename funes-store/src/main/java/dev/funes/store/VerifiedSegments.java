package dev.funes.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Which segment files had their whole body checksum verified, and the file's size, modification
 * time and file key (inode) then: a later open of an unchanged file skips reading the whole file
 * again (~1.5 KB per vector: about 1.7 GB at a million vectors). Kept in {@code index/verified},
 * a cache the maintainer rewrites; a missing or damaged one only means verifying again.
 *
 * <p>A verification counts only if it started at least {@link #SETTLE_MILLIS} after the file's
 * last modification, so that any write after it leaves a different modification time even on
 * file systems with coarse timestamps. What this does not catch at open (caught by
 * {@code funes check}, which verifies every byte): a file whose bytes change without its
 * modification time, size or inode changing, such as media decay.
 */
final class VerifiedSegments {

    /** The file's name in the index directory. */
    static final String FILE = "verified";
    static final long SETTLE_MILLIS = 2_000;
    private static final String MAGIC = "FUNESVERIFIED 1";

    /** What a file looked like when its body checksum was verified. */
    record Stamp(long length, int bodyCrc, long modifiedNanos, String fileKey) {

        /** This stamp with the body checksum the file's header records. */
        Stamp withBodyCrc(int crc) {
            return new Stamp(length, crc, modifiedNanos, fileKey);
        }
    }

    private final Path dir;
    private final Map<String, Stamp> stamps = new HashMap<>();
    private boolean changed;

    private VerifiedSegments(Path dir) {
        this.dir = dir;
    }

    /** Reads the record of {@code dir}; an unreadable one is an empty record. */
    static VerifiedSegments read(Path dir) {
        VerifiedSegments v = new VerifiedSegments(dir);
        List<String> lines;
        try {
            lines = Files.readAllLines(dir.resolve(FILE), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return v;
        } catch (IOException e) {
            SegmentedIndex.LOG.debug("Cannot read {}: {}", dir.resolve(FILE), e.toString());
            return v;
        }
        if (lines.size() < 2 || !lines.get(0).equals(MAGIC)
                || !lines.get(lines.size() - 1).equals("crc " + crc(lines.subList(0, lines.size() - 1)))) {
            SegmentedIndex.LOG.debug("Ignoring the damaged {}", dir.resolve(FILE));
            return v;
        }
        try {
            for (String line : lines.subList(1, lines.size() - 1)) {
                String[] f = line.split("\t", -1);
                v.stamps.put(f[0], new Stamp(Long.parseLong(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]),
                        f[4]));
            }
        } catch (RuntimeException e) {
            v.stamps.clear();
        }
        return v;
    }

    /** The file's current stamp, or {@code null} when it cannot be read. */
    static Stamp stampOf(Path file, int bodyCrc) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return new Stamp(a.size(), bodyCrc, a.lastModifiedTime().to(java.util.concurrent.TimeUnit.NANOSECONDS),
                    String.valueOf(a.fileKey()));
        } catch (IOException e) {
            return null;
        }
    }

    /** Whether {@code file}, whose header records {@code bodyCrc}, is unchanged since its body was verified. */
    synchronized boolean unchanged(Path file, int bodyCrc) {
        Stamp recorded = stamps.get(file.getFileName().toString());
        return recorded != null && recorded.equals(stampOf(file, bodyCrc));
    }

    /**
     * Records that {@code file}'s body checksum was verified, by a reading that started at
     * {@code startedMillis} (wall clock), as {@code before} (its stamp when the reading started).
     */
    synchronized void verified(Path file, Stamp before, long startedMillis) {
        if (before == null || startedMillis - before.modifiedNanos() / 1_000_000 < SETTLE_MILLIS
                || !before.equals(stampOf(file, before.bodyCrc()))) {
            return;
        }
        String name = file.getFileName().toString();
        if (!before.equals(stamps.put(name, before))) {
            changed = true;
        }
    }

    /** Keeps only the records of the named files. */
    synchronized void retain(java.util.Set<String> names) {
        changed |= stamps.keySet().retainAll(names);
    }

    /** Writes the record if it changed (temporary file and rename; not forced to disk: it is a cache). */
    synchronized void writeIfChanged() {
        if (!changed) {
            return;
        }
        List<String> lines = new ArrayList<>();
        lines.add(MAGIC);
        stamps.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> lines.add(e.getKey() + "\t"
                + e.getValue().length() + "\t" + e.getValue().bodyCrc() + "\t" + e.getValue().modifiedNanos() + "\t"
                + e.getValue().fileKey()));
        lines.add("crc " + crc(lines));
        try {
            Path temp = Files.createTempFile(dir, FILE + ".", ".tmp");
            try {
                Files.write(temp, lines, StandardCharsets.UTF_8);
                Files.move(temp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } finally {
                Files.deleteIfExists(temp);
            }
            changed = false;
        } catch (IOException e) {
            SegmentedIndex.LOG.debug("Cannot write {}: {}", dir.resolve(FILE), e.toString());
        }
    }

    private static String crc(List<String> lines) {
        CRC32C crc = new CRC32C();
        for (String line : lines) {
            crc.update((line + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return Long.toHexString(crc.getValue());
    }

    @Override
    public String toString() {
        return "VerifiedSegments" + Objects.toString(stamps.keySet());
    }
}
