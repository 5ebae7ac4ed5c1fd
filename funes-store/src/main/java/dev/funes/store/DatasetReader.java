package dev.funes.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.store.DatasetFormat.Deletion;
import dev.funes.store.DatasetFormat.Manifest;
import dev.funes.store.DatasetFormat.MemoryRecord;
import dev.funes.store.DatasetFormat.Shard;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

/**
 * Reads a whole dataset folder into memory, verifying everything first: every manifest, every
 * listed shard's size and SHA-256, every record. Nothing is returned unless all of it is sound,
 * so an import never starts on a damaged dataset.
 */
final class DatasetReader {

    private DatasetReader() {
    }

    /** A verified dataset: its manifests and every record, in manifest and file order. */
    record Contents(List<Manifest> manifests, List<MemoryRecord> memories, List<Deletion> deletions,
                    List<String> skippedShards) {

        static final Contents EMPTY = new Contents(List.of(), List.of(), List.of(), List.of());

        /** Per memory id, the latest time a record of it was added. */
        Map<String, Instant> latestAdded() {
            Map<String, Instant> latest = new HashMap<>();
            for (MemoryRecord r : memories) {
                latest.merge(r.memory().id(), r.addedAt(), (a, b) -> a.isAfter(b) ? a : b);
            }
            return latest;
        }

        /** Per memory id, the latest time it was deleted. */
        Map<String, Instant> latestDeleted() {
            Map<String, Instant> latest = new HashMap<>();
            for (Deletion d : deletions) {
                latest.merge(d.id(), d.deletedAt(), (a, b) -> a.isAfter(b) ? a : b);
            }
            return latest;
        }

        /**
         * The memories the dataset holds: per id the latest record, unless a tombstone is as late
         * or later (a memory added again after its deletion is live again).
         */
        Map<String, MemoryRecord> live() {
            Map<String, Instant> deleted = latestDeleted();
            Map<String, MemoryRecord> live = new LinkedHashMap<>();
            for (MemoryRecord r : memories) {
                Instant d = deleted.get(r.memory().id());
                if (d != null && !r.addedAt().isAfter(d)) {
                    continue;
                }
                live.merge(r.memory().id(), r, (a, b) -> b.addedAt().isAfter(a.addedAt()) ? b : a);
            }
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
     * @throws DatasetException naming the file (and line) at fault
     */
    static Contents read(Path dir, boolean mustExist) {
        Path manifestDir = dir.resolve(DatasetFormat.MANIFESTS);
        if (!Files.isDirectory(manifestDir)) {
            if (mustExist) {
                throw new DatasetException(dir, 0, "not a Funes dataset: it has no " + DatasetFormat.MANIFESTS
                        + "/ folder (export one with 'funes export --hf-dataset DIR')", null);
            }
            return Contents.EMPTY;
        }
        List<Manifest> manifests = manifests(manifestDir);
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
        List<MemoryRecord> memories = new ArrayList<>();
        List<Deletion> deletions = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (Shard shard : listed.values()) {
            Path file = dir.resolve(shard.path());
            List<String> lines = verifiedLines(file, shard);
            if (!DatasetFormat.KNOWN_TYPES.contains(shard.type())) {
                skipped.add(shard.path());
                continue;
            }
            for (int i = 0; i < lines.size(); i++) {
                long line = i + 1L;
                JsonNode node;
                try {
                    node = DatasetFormat.JSON.readTree(lines.get(i));
                } catch (JsonProcessingException e) {
                    throw new DatasetException(file, line, "not a JSON record: " + e.getOriginalMessage(), e);
                }
                try {
                    if (shard.type().equals(DatasetFormat.MEMORIES)) {
                        memories.add(DatasetFormat.parseMemory(node, shard));
                    } else {
                        deletions.add(DatasetFormat.parseDeletion(node));
                    }
                } catch (RuntimeException e) {
                    throw new DatasetException(file, line, "bad " + shard.type() + " record: " + e.getMessage(), e);
                }
            }
        }
        return new Contents(manifests, memories, deletions, skipped);
    }

    /** Reads one origin's manifest alone, if there is one (an export's own, before verifying the rest). */
    static Manifest ownManifest(Path dir, String origin) {
        Path file = dir.resolve(DatasetFormat.manifestPath(origin));
        return Files.isRegularFile(file) ? manifest(file, origin) : null;
    }

    private static List<Manifest> manifests(Path manifestDir) {
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
            manifests.add(manifest(file, name.substring(0, name.length() - 5)));
        }
        return manifests;
    }

    private static Manifest manifest(Path file, String origin) {
        try {
            return DatasetFormat.parseManifest(DatasetFormat.JSON.readTree(Files.readAllBytes(file)), origin);
        } catch (JsonProcessingException e) {
            throw new DatasetException(file, 0, "not a JSON manifest: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new DatasetException(file, 0, "cannot be read: " + e, e);
        } catch (RuntimeException e) {
            throw new DatasetException(file, 0, "bad manifest: " + e.getMessage(), e);
        }
    }

    /** Every file under {@code data/} must be a listed shard: anything else was put there by hand. */
    private static void checkNothingUnlisted(Path dir, Set<String> listed) {
        Path data = dir.resolve(DatasetFormat.DATA);
        if (!Files.isDirectory(data)) {
            return;
        }
        Set<String> present = new TreeSet<>();
        try (Stream<Path> s = Files.walk(data)) {
            s.filter(Files::isRegularFile).forEach(p -> present.add(dir.relativize(p).toString().replace('\\', '/')));
        } catch (IOException e) {
            throw new DatasetException(data, 0, "cannot be listed: " + e, e);
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

    /** The shard's decompressed lines, after checking its size, checksum and record count. */
    private static List<String> verifiedLines(Path file, Shard shard) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new DatasetException(file, 0, "cannot be read: " + e, e);
        }
        String sha = DatasetFormat.sha256(bytes);
        if (bytes.length != shard.bytes() || !sha.equals(shard.sha256())) {
            throw new DatasetException(file, 0, "does not match its manifest (" + bytes.length + " bytes, sha256 "
                    + sha + "; the manifest says " + shard.bytes() + " bytes, sha256 " + shard.sha256()
                    + "): the shard was changed or damaged after export", null);
        }
        List<String> lines = new ArrayList<>();
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        try (BufferedReader in = new BufferedReader(new InputStreamReader(
                new GZIPInputStream(new ByteArrayInputStream(bytes)), decoder))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        } catch (CharacterCodingException e) {
            throw new DatasetException(file, lines.size() + 1L, "is not UTF-8", e);
        } catch (IOException e) {
            throw new DatasetException(file, lines.size() + 1L, "is not a readable gzip file: " + e.getMessage(), e);
        }
        if (lines.size() != shard.records()) {
            throw new DatasetException(file, 0, "holds " + lines.size() + " records; its manifest says "
                    + shard.records(), null);
        }
        return lines;
    }
}
