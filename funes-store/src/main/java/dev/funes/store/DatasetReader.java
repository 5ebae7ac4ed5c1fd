package dev.funes.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.Memory;
import dev.funes.store.DatasetFormat.Deletion;
import dev.funes.store.DatasetFormat.Manifest;
import dev.funes.store.DatasetFormat.MemoryRecord;
import dev.funes.store.DatasetFormat.Shard;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Reads and verifies a dataset folder: every manifest, every listed shard's size and SHA-256,
 * every record. Nothing is returned unless all of it is sound, so an import never starts on a
 * damaged dataset.
 *
 * <p>Memory stays bounded whatever the files hold: a shard is hashed as a stream, then
 * decompressed as a stream line by line, each line at most {@link #MAX_LINE_BYTES} and no more
 * lines than its manifest lists, so a small gzip file expanding to gigabytes costs a message, not
 * the heap. Records are kept one per memory id (the latest), and what they hold together may use
 * at most {@link #HEAP_SHARE a share} of the maximum heap: beyond it the read stops with a message
 * rather than an {@link OutOfMemoryError}.
 */
final class DatasetReader {

    /**
     * Longest decompressed line, so also the longest text: 4 MiB, the longest record {@code funes
     * index} reads from a log (its JSON Lines readers' limit). A shard Funes wrote never comes close.
     */
    static final int MAX_LINE_BYTES = 4 << 20;
    /** Largest manifest file: a million shard entries fit in far less. */
    static final long MAX_MANIFEST_BYTES = 64L << 20;
    /** How far past now a record's time may lie (clocks of two machines differ a little). */
    static final Duration CLOCK_TOLERANCE = Duration.ofDays(1);
    /** Share of the maximum heap the records read may hold together; the merge needs the rest. */
    static final int HEAP_SHARE = 4;

    private DatasetReader() {
    }

    /**
     * A memory id's records: the latest, where it is, and where a record of another text as late
     * as it is (a tie no rule settles), if there is one.
     */
    static final class Entry {
        MemoryRecord latest;
        String latestHash;
        Path latestFile;
        Shard latestShard;
        long latestLine;
        Path tieFile;
        long tieLine;
    }

    /**
     * A verified dataset: its manifests, per memory id its latest record, per id its latest
     * deletion, and the count of memory records read.
     */
    record Contents(List<Manifest> manifests, Map<String, Entry> entries, Map<String, Instant> latestDeleted,
                    long memoryRecords, List<String> skippedShards) {

        static final Contents EMPTY = new Contents(List.of(), Map.of(), Map.of(), 0, List.of());

        /** Per memory id, the latest time a record of it was added. */
        Map<String, Instant> latestAdded() {
            Map<String, Instant> latest = new HashMap<>();
            entries.forEach((id, e) -> latest.put(id, e.latest.addedAt()));
            return latest;
        }

        /**
         * The memories the dataset holds: per id the latest record, unless a tombstone is as late
         * or later (a memory added again after its deletion is live again).
         */
        Map<String, MemoryRecord> live() {
            Map<String, MemoryRecord> live = new LinkedHashMap<>();
            entries.forEach((id, e) -> {
                Instant d = latestDeleted.get(id);
                if (d == null || e.latest.addedAt().isAfter(d)) {
                    live.put(id, e.latest);
                }
            });
            return live;
        }

        /** Shards of one origin, in manifest order. */
        List<Shard> shardsOf(String origin) {
            for (Manifest m : manifests) {
                if (m.origin().equals(origin)) {
                    return m.shards();
                }
            }
            return List.of();
        }
    }

    /**
     * Reads and verifies the dataset in {@code dir}.
     *
     * @param mustExist whether a folder without manifests is an error (an import) or an empty
     *                  dataset (the first export)
     * @param notAfter  for an import, the latest time a record may carry (now, give or take the
     *                  clocks' difference); {@code null} for an export, which reads only to learn
     *                  what the dataset holds and refuses neither later times nor two texts under
     *                  one id as late as each other
     * @throws DatasetException naming the file (and line) at fault
     */
    static Contents read(Path dir, boolean mustExist, Instant notAfter) {
        Path manifestDir = dir.resolve(DatasetFormat.MANIFESTS);
        if (!Files.isDirectory(manifestDir)) {
            if (mustExist) {
                throw new DatasetException(dir, 0, "not a Funes dataset: it has no " + DatasetFormat.MANIFESTS
                        + "/ folder (export one with 'funes export --hf-dataset DIR')", null);
            }
            return Contents.EMPTY;
        }
        Path realRoot;
        try {
            realRoot = dir.toRealPath();
        } catch (IOException e) {
            throw new DatasetException(dir, 0, "cannot be read: " + e, e);
        }
        List<Manifest> manifests = manifests(manifestDir, realRoot);
        if (manifests.isEmpty() && mustExist) {
            throw new DatasetException(manifestDir, 0, "not a Funes dataset: no manifest in it", null);
        }
        Map<String, Shard> listed = new LinkedHashMap<>();
        for (Manifest m : manifests) {
            for (Shard s : m.shards()) {
                if (listed.putIfAbsent(s.path(), s) != null) {
                    throw new DatasetException(dir.resolve(DatasetFormat.manifestPath(m.origin())), 0,
                            "lists " + s.path() + " twice", null);
                }
            }
        }
        checkNothingUnlisted(dir, listed.keySet());
        Records records = new Records(notAfter);
        List<String> skipped = new ArrayList<>();
        for (Shard shard : listed.values()) {
            Path file = dir.resolve(shard.path());
            requireRegularInside(file, realRoot);
            // A Git LFS pointer whose object is in the folder's .git is read through it.
            Path content = LfsPointer.content(dir, file);
            if (content != file) {
                requireRegularInside(content, realRoot);
            }
            verifyChecksum(file, content, shard);
            if (!DatasetFormat.KNOWN_TYPES.contains(shard.type())) {
                skipped.add(shard.path());
                continue;
            }
            readRecords(file, content, shard, records);
        }
        if (notAfter != null) {
            records.checkOneTextPerId();
        }
        return new Contents(manifests, records.entries, records.deleted, records.memoryRecords, skipped);
    }

    /** Reads one origin's manifest alone, if there is one (an export's own, before verifying the rest). */
    static Manifest ownManifest(Path dir, String origin) {
        Path file = dir.resolve(DatasetFormat.manifestPath(origin));
        return Files.isRegularFile(file) ? manifest(file, origin) : null;
    }

    private static List<Manifest> manifests(Path manifestDir, Path realRoot) {
        List<Path> files;
        try (Stream<Path> s = Files.list(manifestDir)) {
            files = s.sorted().toList();
        } catch (IOException e) {
            throw new DatasetException(manifestDir, 0, "cannot be listed: " + e, e);
        }
        List<Manifest> manifests = new ArrayList<>();
        for (Path file : files) {
            String name = file.getFileName().toString();
            if (!name.endsWith(".json") || !DatasetFormat.ORIGIN.matcher(name.substring(0, name.length() - 5)).matches()) {
                throw new DatasetException(file, 0, "not a manifest (expected <12 hex digits>.json)", null);
            }
            requireRegularInside(file, realRoot);
            manifests.add(manifest(file, name.substring(0, name.length() - 5)));
        }
        return manifests;
    }

    private static Manifest manifest(Path file, String origin) {
        try {
            long size = Files.size(file);
            if (size > MAX_MANIFEST_BYTES) {
                throw new DatasetException(file, 0, "is " + size + " bytes, more than a manifest can be ("
                        + MAX_MANIFEST_BYTES + ")", null);
            }
            return DatasetFormat.parseManifest(DatasetFormat.JSON.readTree(Files.readAllBytes(file)), origin);
        } catch (JsonProcessingException e) {
            throw new DatasetException(file, 0, "not a JSON manifest: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new DatasetException(file, 0, "cannot be read: " + e, e);
        } catch (DatasetException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DatasetException(file, 0, "bad manifest: " + e.getMessage(), e);
        }
    }

    /**
     * Every entry under {@code data/} must be a listed shard: anything else was put there by hand.
     * Entries are listed without following links, so a link or a FIFO is seen for what it is.
     */
    private static void checkNothingUnlisted(Path dir, Set<String> listed) {
        Path data = dir.resolve(DatasetFormat.DATA);
        Set<String> present = new TreeSet<>();
        if (Files.isDirectory(data)) {
            try (Stream<Path> s = Files.walk(data)) {
                s.filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
                        .forEach(p -> present.add(dir.relativize(p).toString().replace('\\', '/')));
            } catch (IOException | UncheckedIOException e) {
                throw new DatasetException(data, 0, "cannot be listed: " + e, e);
            }
        }
        for (String p : present) {
            if (!listed.contains(p)) {
                throw new DatasetException(dir.resolve(p), 0, "is not listed in any manifest of "
                        + dir.resolve(DatasetFormat.MANIFESTS) + " (added by hand, or left by an interrupted export)",
                        null);
            }
        }
        for (String p : listed) {
            if (!present.contains(p)) {
                throw new DatasetException(dir.resolve(p), 0, "is listed in the manifest of its origin but missing", null);
            }
        }
    }

    /**
     * Refuses a file that is not a regular file (a FIFO would block the read for ever, a device
     * never ends) or that is a link leading out of the dataset (a dataset from elsewhere must not
     * make Funes read the files of this machine).
     */
    private static void requireRegularInside(Path file, Path realRoot) {
        Path real;
        try {
            real = file.toRealPath();
        } catch (IOException e) {
            String what = Files.isSymbolicLink(file) ? "is a symbolic link to a missing file" : "cannot be read: " + e;
            throw new DatasetException(file, 0, what, e);
        }
        if (!real.startsWith(realRoot)) {
            throw new DatasetException(file, 0, "leads outside the dataset (to " + real + "), through a symbolic"
                    + " link: refused, a dataset holds its own files", null);
        }
        if (!Files.isRegularFile(real)) {
            throw new DatasetException(file, 0, "is not a regular file but "
                    + (Files.isDirectory(real) ? "a directory" : "a FIFO, socket or device") + ": refused", null);
        }
    }

    /** Streams the shard through SHA-256: its size and checksum must be its manifest's. */
    private static void verifyChecksum(Path file, Path content, Shard shard) {
        long size;
        String sha;
        try {
            size = Files.size(content);
            if (size != shard.bytes()) {
                throw mismatch(file, shard, size + " bytes");
            }
            MessageDigest digest = Sha256.digest();
            byte[] buffer = new byte[1 << 16];
            try (InputStream in = Files.newInputStream(content)) {
                long read = 0;
                // Stops soon after the manifest's size, should the file grow while it is read.
                for (int n; read <= shard.bytes() && (n = in.read(buffer)) > 0; read += n) {
                    digest.update(buffer, 0, n);
                }
                size = read;
            }
            sha = Sha256.finish(digest);
        } catch (IOException e) {
            throw new DatasetException(file, 0, "cannot be read: " + e, e);
        }
        if (size != shard.bytes() || !sha.equals(shard.sha256())) {
            throw mismatch(file, shard, size + " bytes, sha256 " + sha);
        }
    }

    private static DatasetException mismatch(Path file, Shard shard, String found) {
        if (LfsPointer.isPointer(file)) {
            return new DatasetException(file, 0, "is a Git LFS pointer, not the shard: its content was never"
                    + " downloaded (run 'funes pull' with this folder as --dataset, or 'git lfs pull' in it)", null);
        }
        return new DatasetException(file, 0, "does not match its manifest (" + found + "; the manifest says "
                + shard.bytes() + " bytes, sha256 " + shard.sha256() + "): the shard was changed or damaged after export",
                null);
    }

    /** Decompresses the shard line by line into {@code records}: exactly as many lines as its manifest lists. */
    private static void readRecords(Path file, Path content, Shard shard, Records records) {
        try (InputStream raw = Files.newInputStream(content);
             ShardLines lines = new ShardLines(new GZIPInputStream(raw, 1 << 16), file)) {
            for (long line = 1; line <= shard.records(); line++) {
                String text = lines.next();
                if (text == null) {
                    throw new DatasetException(file, 0, "holds " + (line - 1) + " records; its manifest says "
                            + shard.records(), null);
                }
                records.add(file, line, shard, parse(file, line, text));
            }
            if (lines.next() != null) {
                throw new DatasetException(file, shard.records() + 1, "is a record past the " + shard.records()
                        + " its manifest lists: the shard holds more than was exported; refused without reading the"
                        + " rest", null);
            }
        } catch (IOException e) {
            throw new DatasetException(file, 0, "is not a readable gzip file: " + e.getMessage(), e);
        }
    }

    private static JsonNode parse(Path file, long line, String text) {
        try {
            return DatasetFormat.RECORDS.readTree(text);
        } catch (JsonProcessingException e) {
            throw new DatasetException(file, line, "not a JSON record: " + e.getOriginalMessage(), e);
        }
    }

    /** The records read so far: per id the latest memory record, per id the latest deletion. */
    private static final class Records {
        final Map<String, Entry> entries = new LinkedHashMap<>();
        final Map<String, Instant> deleted = new HashMap<>();
        final Instant notAfter;
        final long budget = Runtime.getRuntime().maxMemory() / HEAP_SHARE;
        long held;
        long memoryRecords;

        Records(Instant notAfter) {
            this.notAfter = notAfter;
        }

        void add(Path file, long line, Shard shard, JsonNode node) {
            if (shard.type().equals(DatasetFormat.MEMORIES)) {
                MemoryRecord r;
                try {
                    r = DatasetFormat.parseMemory(node, shard);
                } catch (RuntimeException e) {
                    throw new DatasetException(file, line, "bad " + shard.type() + " record: " + e.getMessage(), e);
                }
                memoryRecords++;
                notInTheFuture(file, line, "addedAt", r.addedAt());
                memory(file, line, shard, r);
            } else {
                Deletion d;
                try {
                    d = DatasetFormat.parseDeletion(node);
                } catch (RuntimeException e) {
                    throw new DatasetException(file, line, "bad " + shard.type() + " record: " + e.getMessage(), e);
                }
                notInTheFuture(file, line, "deletedAt", d.deletedAt());
                Instant before = deleted.put(d.id(), d.deletedAt());
                if (before == null) {
                    hold(file, line, 96L + 2L * d.id().length());
                } else if (before.isAfter(d.deletedAt())) {
                    deleted.put(d.id(), before);
                }
            }
        }

        private void notInTheFuture(Path file, long line, String field, Instant at) {
            if (notAfter != null && at.isAfter(notAfter)) {
                throw new DatasetException(file, line, "'" + field + "' is " + at + ", more than "
                        + CLOCK_TOLERANCE.toHours() + " hours after this machine's time ("
                        + notAfter.minus(CLOCK_TOLERANCE) + "): a record cannot come from the future; check the"
                        + " clock of the machine that exported it", null);
            }
        }

        private void memory(Path file, long line, Shard shard, MemoryRecord r) {
            String id = r.memory().id();
            String hash = r.memory().contentHash();
            Entry e = entries.get(id);
            if (e == null) {
                e = new Entry();
                entries.put(id, e);
                hold(file, line, heldBytes(r));
            } else if (r.addedAt().isAfter(e.latest.addedAt())) {
                hold(file, line, heldBytes(r) - heldBytes(e.latest));
                e.tieFile = null;
            } else {
                if (r.addedAt().equals(e.latest.addedAt()) && !hash.equals(e.latestHash) && e.tieFile == null) {
                    e.tieFile = file;
                    e.tieLine = line;
                }
                return;
            }
            e.latest = r;
            e.latestHash = hash;
            e.latestFile = file;
            e.latestShard = shard;
            e.latestLine = line;
        }

        private void hold(Path file, long line, long bytes) {
            held += bytes;
            if (held > budget) {
                throw new DatasetException(file, line, "the dataset's records need more memory than this JVM may use"
                        + " for them (about " + (held >> 20) + " MiB by this line, more than 1/" + HEAP_SHARE
                        + " of the maximum heap of " + (Runtime.getRuntime().maxMemory() >> 20) + " MiB): nothing was"
                        + " imported; raise the maximum heap (java -Xmx, or FUNES_JAVA_OPTS for the funes command)", null);
            }
        }

        /**
         * Records of one id with different texts are settled by time: the latest is the memory (a
         * store that deleted a memory and stored another text under its id exports both). Two
         * texts as late as each other are refused unless deleted: only the file order would pick
         * one, and the other would be lost without a word.
         */
        void checkOneTextPerId() {
            entries.forEach((id, e) -> {
                Instant d = deleted.get(id);
                if (e.tieFile != null && (d == null || e.latest.addedAt().isAfter(d))) {
                    throw new DatasetException(e.tieFile, e.tieLine, "memory " + id + " has another text at "
                            + e.latestFile + ":" + e.latestLine + ", added at the same time (" + e.latest.addedAt()
                            + "): one id names two different memories, refused rather than keep one by file order",
                            null);
                }
            });
        }

        /** About what a record held costs in the heap: its strings (at most two bytes a character), vector and objects. */
        private static long heldBytes(MemoryRecord r) {
            Memory m = r.memory();
            long chars = m.id().length() + m.text().length() + m.agent().length() + 64L
                    + (m.project() == null ? 0 : m.project().length()) + (m.session() == null ? 0 : m.session().length());
            if (m.provenance() != null) {
                chars += m.provenance().source().toString().length();
                for (String recordId : m.provenance().recordIds()) {
                    chars += recordId.length() + 24;
                }
            }
            for (Map.Entry<String, String> e : m.metadata().entrySet()) {
                chars += e.getKey().length() + e.getValue().length() + 32;
            }
            return 640 + 2 * chars + (r.vector() == null ? 0 : 16 + 4L * r.vector().length);
        }
    }

    /**
     * The lines of a decompressed shard, each strict UTF-8 and at most {@link #MAX_LINE_BYTES}
     * long; a longer line stops the read at once, before the rest of it is decompressed.
     */
    private static final class ShardLines implements AutoCloseable {
        private final InputStream in;
        private final Path file;
        private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        private final byte[] chunk = new byte[1 << 16];
        private int chunkPos;
        private int chunkEnd;
        private byte[] line = new byte[1 << 12];
        private long number;

        ShardLines(InputStream in, Path file) {
            this.in = in;
            this.file = file;
        }

        /** The next line without its end ({@code \n}, or {@code \r\n}), or {@code null} at the end. */
        String next() throws IOException {
            int length = 0;
            boolean any = false;
            while (true) {
                if (chunkPos == chunkEnd) {
                    int n = in.read(chunk);
                    if (n < 0) {
                        break;
                    }
                    chunkPos = 0;
                    chunkEnd = n;
                    continue;
                }
                any = true;
                int end = chunkPos;
                while (end < chunkEnd && chunk[end] != '\n') {
                    end++;
                }
                int n = end - chunkPos;
                if ((long) length + n > MAX_LINE_BYTES) {
                    throw new DatasetException(file, number + 1, "is longer than " + (MAX_LINE_BYTES >> 20)
                            + " MiB, the longest record Funes reads (the limit of 'funes index' too): refused"
                            + " without reading the rest of it", null);
                }
                if (length + n > line.length) {
                    line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(length + n, 2 * line.length)));
                }
                System.arraycopy(chunk, chunkPos, line, length, n);
                length += n;
                chunkPos = end;
                if (end < chunkEnd) {
                    chunkPos++; // the newline
                    break;
                }
            }
            if (!any) {
                return null;
            }
            number++;
            if (length > 0 && line[length - 1] == '\r') {
                length--;
            }
            try {
                return utf8.reset().decode(ByteBuffer.wrap(line, 0, length)).toString();
            } catch (CharacterCodingException e) {
                throw new DatasetException(file, number, "is not UTF-8", e);
            }
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
