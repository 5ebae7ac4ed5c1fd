package dev.funes.store;

import dev.funes.store.DatasetFormat.Manifest;
import dev.funes.store.DatasetFormat.Shard;
import dev.funes.store.DatasetReader.Entry;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The live view of a dataset ({@code memories/}): for every history shard, the records in it
 * that are still the memory (the latest record of their id, not deleted), in the current record
 * schema. It is what the card's default {@code memories} config loads, so that
 * {@code load_dataset} sees neither deleted nor superseded memories: git history shards are never
 * rewritten, so a deletion can only hide a record here.
 *
 * <p>A pure function of the history: two machines holding the same shards write the same view,
 * and a file is rewritten only when its records change (a deletion or a newer record of one of
 * its ids), so a push carries a new view file only for the shards that changed. {@code funes
 * import} never reads it.
 */
final class DatasetView {

    private DatasetView() {
    }

    /**
     * Brings {@code memories/} in line with {@code contents}: writes the files whose records
     * changed and removes those of shards with no live record left.
     *
     * @return whether the view holds any file
     */
    static boolean write(Path root, DatasetReader.Contents contents) throws IOException {
        Map<String, List<Entry>> liveByShard = new HashMap<>();
        contents.entries().forEach((id, e) -> {
            Instant d = contents.latestDeleted().get(id);
            if (d == null || e.latest.addedAt().isAfter(d)) {
                liveByShard.computeIfAbsent(e.latestShard.path(), k -> new ArrayList<>()).add(e);
            }
        });
        Set<String> wanted = new HashSet<>();
        for (Manifest m : contents.manifests()) {
            for (Shard shard : m.shards()) {
                List<Entry> live = liveByShard.get(shard.path());
                if (!shard.type().equals(DatasetFormat.MEMORIES) || live == null) {
                    continue;
                }
                live.sort(Comparator.comparingLong(e -> e.latestLine));
                ByteArrayOutputStream lines = new ByteArrayOutputStream();
                for (Entry e : live) {
                    lines.write(DatasetFormat.JSON.writeValueAsBytes(DatasetFormat.memoryRecord(
                            e.latest.memory(), e.latest.addedAt(), e.latest.vector())));
                    lines.write('\n');
                }
                String path = DatasetFormat.viewPath(shard);
                wanted.add(path);
                Path file = root.resolve(path);
                byte[] text = lines.toByteArray();
                // Compared decompressed: another machine's zlib may compress the same lines differently.
                if (!Files.isRegularFile(file) || !Arrays.equals(gunzip(file), text)) {
                    ByteArrayOutputStream gz = new ByteArrayOutputStream();
                    try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
                        out.write(text);
                    }
                    DatasetExport.writeAtomically(file, gz.toByteArray());
                }
            }
        }
        Path dir = root.resolve(DatasetFormat.VIEW);
        if (Files.isDirectory(dir)) {
            List<Path> present;
            try (Stream<Path> s = Files.list(dir)) {
                present = s.toList();
            }
            for (Path f : present) {
                if (!wanted.contains(DatasetFormat.VIEW + "/" + f.getFileName()) && Files.isRegularFile(f)) {
                    Files.delete(f);
                }
            }
        }
        return !wanted.isEmpty();
    }

    /** The decompressed bytes, or none if the file is not gzip (it is then written again). */
    private static byte[] gunzip(Path file) {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return in.readAllBytes();
        } catch (IOException e) {
            return new byte[0];
        }
    }
}
