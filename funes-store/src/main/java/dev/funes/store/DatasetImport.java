package dev.funes.store;

import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.StoreException;
import dev.funes.store.DatasetFormat.MemoryRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges a dataset folder written by {@link DatasetExport} (by this store, another machine's, or
 * several) into a store.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Verified first, then one transaction.</b> Every manifest, every shard's size and
 *       SHA-256 and every record are checked before anything is written; a damaged, edited or
 *       unlisted shard fails with a {@link DatasetException} naming the file (and line), and the
 *       store is left as it was. The merge itself is one transaction. {@link #verify} alone
 *       checks a folder before a store is even opened.</li>
 *   <li><b>Bounded.</b> Shards are read as streams; a line longer than 4 MiB (the longest record
 *       {@code funes index} reads), more lines than the manifest lists, a shard that is a link
 *       out of the folder or not a regular file, one id with two live texts, or a time more
 *       than a day ahead of this machine's clock are refused (docs/DATASET.md).</li>
 *   <li><b>Idempotent, content-addressed.</b> Memories are keyed by id; one already stored is
 *       left as it is, so importing twice adds nothing the second time.</li>
 *   <li><b>Deletions.</b> A memory is gone when the dataset holds a tombstone at least as late as
 *       its latest record: such memories are deleted from the store, unless they were added
 *       here after that time. A memory deleted from this store after the dataset's record of it
 *       is not brought back.</li>
 *   <li><b>Vectors.</b> Vectors computed by the store's model are stored as they are; texts
 *       without one (no vectors exported, or another model) are embedded.</li>
 *   <li><b>Redaction.</b> Imported memories pass through the store's redactor like any other.</li>
 * </ul>
 */
public final class DatasetImport {

    private static final Logger LOG = LoggerFactory.getLogger(DatasetImport.class);

    private DatasetImport() {
    }

    /**
     * Imports the dataset in {@code dir} into {@code store}.
     *
     * @param store a store opened by {@link FunesStore}
     * @param dir   the dataset folder
     * @return what was imported
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     * @throws DatasetException         if the dataset is damaged, edited, or not a Funes dataset;
     *                                  nothing was imported
     * @throws StoreException           if the store cannot be written; nothing was imported
     * @throws dev.funes.EmbeddingException if a text cannot be embedded; nothing was imported
     */
    public static ImportReport importInto(MemoryStore store, Path dir) {
        DatasetExport.sqlite(store);
        return importInto(store, verify(dir));
    }

    /**
     * Reads and verifies the dataset in {@code dir} without touching any store: what
     * {@link #importInto(MemoryStore, Path)} does first.
     *
     * @throws DatasetException if the dataset is damaged, edited, or not a Funes dataset
     */
    public static Verified verify(Path dir) {
        return verify(dir, Clock.systemUTC());
    }

    /** {@link #verify(Path)} with the clock that says how late a record's time may be. */
    static Verified verify(Path dir, Clock clock) {
        Path root = dir.toAbsolutePath().normalize();
        Instant notAfter = clock.instant().plus(DatasetReader.CLOCK_TOLERANCE);
        return new Verified(root, DatasetReader.read(root, true, notAfter));
    }

    /**
     * Imports a dataset {@link #verify verified} before.
     *
     * @param store   a store opened by {@link FunesStore}
     * @param dataset what {@link #verify} returned
     * @return what was imported
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     * @throws StoreException           if the store cannot be written; nothing was imported
     * @throws dev.funes.EmbeddingException if a text cannot be embedded; nothing was imported
     */
    public static ImportReport importInto(MemoryStore store, Verified dataset) {
        SqliteMemoryStore s = DatasetExport.sqlite(store);
        Path root = dataset.dir;
        DatasetReader.Contents contents = dataset.contents;

        Map<String, Instant> localTombstones = new HashMap<>();
        s.database().read("read tombstones", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT id, deleted_at FROM tombstones");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    localTombstones.put(rs.getString(1), Rows.instant(rs.getString(2)));
                }
            }
            return null;
        });

        Map<String, MemoryRecord> live = contents.live();
        List<Memory> memories = new ArrayList<>();
        Map<String, float[]> vectors = new HashMap<>();
        Map<String, Instant> addedAt = new HashMap<>();
        int keptDeleted = 0;
        for (MemoryRecord r : live.values()) {
            Instant deletedHere = localTombstones.get(r.memory().id());
            if (deletedHere != null && !deletedHere.isBefore(r.addedAt())) {
                keptDeleted++;
                continue;
            }
            memories.add(r.memory());
            addedAt.put(r.memory().id(), r.addedAt());
            if (r.vector() != null && s.modelId().equals(r.vectorModel()) && r.vector().length == s.dimension()) {
                vectors.put(r.memory().contentHash(), r.vector());
            }
        }
        Map<String, Instant> deletions = new LinkedHashMap<>();
        contents.latestDeleted().forEach((id, at) -> {
            if (!live.containsKey(id)) {
                deletions.put(id, at);
            }
        });
        MemoryWriter.Merged merged = s.writes().merge(memories, vectors, addedAt, deletions);
        int shards = 0;
        for (DatasetFormat.Manifest m : contents.manifests()) {
            shards += m.shards().size();
        }
        ImportReport report = new ImportReport(root, shards, contents.memoryRecords(), merged.added().added(),
                merged.added().unchanged(), merged.added().embedded(), merged.deleted(), keptDeleted,
                contents.skippedShards());
        LOG.info("Imported {} into {}: {}", root, s.dir(), report.summary());
        return report;
    }

    /** A dataset folder read and verified by {@link #verify}, ready to import: its records are held. */
    public static final class Verified {
        private final Path dir;
        private final DatasetReader.Contents contents;

        private Verified(Path dir, DatasetReader.Contents contents) {
            this.dir = dir;
            this.contents = contents;
        }

        /** The dataset folder, absolute. */
        public Path dir() {
            return dir;
        }

        /** How many memories the dataset holds (not deleted). */
        public int liveMemories() {
            return contents.live().size();
        }
    }
}
