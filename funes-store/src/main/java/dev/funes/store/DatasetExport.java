package dev.funes.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.StoreException;
import dev.funes.store.DatasetFormat.Deletion;
import dev.funes.store.DatasetFormat.Manifest;
import dev.funes.store.DatasetFormat.Shard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.zip.GZIPOutputStream;

/**
 * Writes a store's memories to a folder laid out as a Hugging Face dataset repository: a dataset
 * card ({@code README.md}) declaring its configs and columns, gzip JSON Lines shards under
 * {@code data/} (the history), a manifest per store with every shard's SHA-256, and the live
 * memories under {@code memories/} (docs/DATASET.md).
 *
 * <pre>{@code
 * ExportReport r = DatasetExport.export(store, Path.of("my-memory"), ExportOptions.defaults().withVectors(true));
 * }</pre>
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Incremental and append-only.</b> Exporting into a folder that already holds a dataset
 *       adds shards with what it lacks: memories it does not hold (or holds from before they
 *       were added again), and tombstones of memories deleted from the store since they were
 *       exported. Shards are never rewritten; the manifest of this store and the card are.</li>
 *   <li><b>Unique names.</b> Shards are named after the store that wrote them (its origin, the
 *       first 12 hex digits of its id), so two stores exporting into clones of one git repository
 *       never write the same file.</li>
 *   <li><b>Verified first.</b> The folder's existing dataset is read and verified before anything
 *       is written; a damaged one fails with a {@link DatasetException} and is left as it is.</li>
 *   <li><b>Consistent.</b> The memories are read in one read transaction: writes to the store
 *       during the export are either all in it or not.</li>
 *   <li><b>Threads.</b> Not meant to run twice at once on one folder.</li>
 * </ul>
 */
public final class DatasetExport {

    private static final Logger LOG = LoggerFactory.getLogger(DatasetExport.class);

    private DatasetExport() {
    }

    /** A stored memory with what the export needs besides it. */
    private record Stored(Memory memory, Instant addedAt, float[] vector) {
    }

    /**
     * Exports what the dataset in {@code dir} lacks of {@code store}; creates the folder if needed.
     *
     * @param store   a store opened by {@link FunesStore}
     * @param dir     the dataset folder
     * @param options vectors, shard size, license
     * @return what was written
     * @throws IllegalArgumentException if the store was not opened by {@link FunesStore}
     * @throws DatasetException         if the folder holds a damaged dataset
     * @throws StoreException           if the store or the folder cannot be read or written
     */
    public static ExportReport export(MemoryStore store, Path dir, ExportOptions options) {
        Objects.requireNonNull(options, "options");
        SqliteMemoryStore s = sqlite(store);
        Path root = dir.toAbsolutePath().normalize();
        String[] storeId = new String[1];
        List<Stored> stored = new ArrayList<>();
        List<Deletion> tombstones = new ArrayList<>();
        s.database().read("export memories", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT value FROM meta WHERE key = 'store_id'");
                 ResultSet rs = ps.executeQuery()) {
                storeId[0] = rs.next() ? rs.getString(1) : null;
            }
            String sql = "SELECT " + Rows.MEMORY_COLUMNS + ", m.added_at"
                    + (options.withVectors() ? ", v.embedding FROM memories m JOIN vectors v ON v.id = m.vector_id"
                    : " FROM memories m") + " ORDER BY m.seq";
            try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Rows.StoredMemory m = Rows.memory(rs);
                    float[] vector = options.withVectors()
                            ? Rows.vector(rs.getBytes(19), s.dimension(), m.vectorId()) : null;
                    stored.add(new Stored(m.memory(), Rows.instant(rs.getString(18)), vector));
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT id, deleted_at FROM tombstones ORDER BY deleted_at, id");
                 ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    tombstones.add(new Deletion(rs.getString(1), Rows.instant(rs.getString(2))));
                }
            }
            return null;
        });
        if (storeId[0] == null) {
            throw new StoreException("the store " + s.dir() + " has no store_id in its meta table: re-index into a new store");
        }
        String origin = DatasetFormat.origin(storeId[0]);
        removeLeftovers(root, origin);
        DatasetReader.Contents existing = DatasetReader.read(root, false, null);

        Map<String, Instant> added = existing.latestAdded();
        Map<String, Instant> deleted = existing.latestDeleted();
        List<Stored> newMemories = new ArrayList<>();
        Set<String> inStore = new HashSet<>();
        for (Stored m : stored) {
            inStore.add(m.memory().id());
            Instant there = added.get(m.memory().id());
            if (there == null || there.isBefore(m.addedAt())) {
                newMemories.add(m);
            }
        }
        List<Deletion> newDeletions = new ArrayList<>();
        for (Deletion t : tombstones) {
            Instant there = added.get(t.id());
            Instant gone = deleted.get(t.id());
            if (!inStore.contains(t.id()) && there != null && there.isBefore(t.deletedAt())
                    && (gone == null || gone.isBefore(t.deletedAt()))) {
                newDeletions.add(t);
            }
        }

        List<Shard> shards = new ArrayList<>(existing.shardsOf(origin));
        int sequence = shards.stream().mapToInt(Shard::sequence).max().orElse(-1) + 1;
        List<String> written = new ArrayList<>();
        long bytes = 0;
        String model = options.withVectors() ? s.modelId() : null;
        int dimension = options.withVectors() ? s.dimension() : 0;
        try {
            for (int from = 0; from < newMemories.size(); from += options.shardRecords()) {
                List<ObjectNode> records = new ArrayList<>();
                for (Stored m : newMemories.subList(from, Math.min(from + options.shardRecords(), newMemories.size()))) {
                    records.add(DatasetFormat.memoryRecord(m.memory(), m.addedAt(), m.vector()));
                }
                Shard shard = writeShard(root, DatasetFormat.MEMORIES, origin, sequence++, records, model, dimension);
                shards.add(shard);
                written.add(shard.path());
                bytes += shard.bytes();
            }
            for (int from = 0; from < newDeletions.size(); from += options.shardRecords()) {
                List<ObjectNode> records = new ArrayList<>();
                for (Deletion d : newDeletions.subList(from, Math.min(from + options.shardRecords(), newDeletions.size()))) {
                    records.add(DatasetFormat.deletionRecord(d));
                }
                Shard shard = writeShard(root, DatasetFormat.DELETIONS, origin, sequence++, records, null, 0);
                shards.add(shard);
                written.add(shard.path());
                bytes += shard.bytes();
            }
            List<Manifest> manifests = new ArrayList<>();
            boolean own = false;
            for (Manifest m : existing.manifests()) {
                if (m.origin().equals(origin)) {
                    manifests.add(new Manifest(origin, storeId[0], shards));
                    own = true;
                } else {
                    manifests.add(m);
                }
            }
            if (!own) {
                manifests.add(new Manifest(origin, storeId[0], shards));
            }
            if (!written.isEmpty() || !own) {
                byte[] manifest = DatasetFormat.JSON.writerWithDefaultPrettyPrinter()
                        .writeValueAsBytes(DatasetFormat.manifestJson(new Manifest(origin, storeId[0], shards)));
                writeAtomically(root.resolve(DatasetFormat.manifestPath(origin)), manifest);
            }
            // The live view follows what the dataset holds now; read again only if this export changed it.
            DatasetReader.Contents now = written.isEmpty() ? existing : DatasetReader.read(root, false, null);
            boolean view = DatasetView.write(root, now);
            Path card = root.resolve(DatasetFormat.CARD);
            String before = Files.isRegularFile(card) ? Files.readString(card, java.nio.charset.StandardCharsets.UTF_8) : null;
            String after = DatasetCard.render(before, manifests, options.license(), view);
            if (!after.equals(before)) {
                writeAtomically(card, DatasetFormat.utf8(after));
            }
        } catch (IOException e) {
            throw new StoreException("cannot write the dataset " + root + ": " + e, e);
        }
        // What the dataset holds now: what it held, plus what was written, minus what was deleted.
        Set<String> liveIds = new HashSet<>(existing.live().keySet());
        newMemories.forEach(m -> liveIds.add(m.memory().id()));
        newDeletions.forEach(d -> liveIds.remove(d.id()));
        ExportReport report = new ExportReport(root, written, newMemories.size(), newDeletions.size(), bytes,
                liveIds.size());
        LOG.info("Exported {}: {}", s.dir(), report.summary());
        return report;
    }

    static SqliteMemoryStore sqlite(MemoryStore store) {
        Objects.requireNonNull(store, "store");
        if (store instanceof SqliteMemoryStore s) {
            return s;
        }
        throw new IllegalArgumentException("not a store opened by FunesStore: " + store);
    }

    /**
     * Deletes this origin's shard files its manifest does not list: an export interrupted between
     * writing shards and its manifest left them, and no one else writes files of this origin.
     */
    private static void removeLeftovers(Path root, String origin) {
        Path data = root.resolve(DatasetFormat.DATA);
        if (!Files.isDirectory(data)) {
            return;
        }
        Manifest own = DatasetReader.ownManifest(root, origin);
        Set<String> listed = new HashSet<>();
        if (own != null) {
            own.shards().forEach(sh -> listed.add(sh.path()));
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(data, "*-" + origin + "-*")) {
            for (Path f : files) {
                String rel = DatasetFormat.DATA + "/" + f.getFileName();
                if (!listed.contains(rel)) {
                    Files.delete(f);
                    LOG.warn("Removed {}: an earlier export of this store was interrupted before listing it", f);
                }
            }
        } catch (IOException e) {
            throw new StoreException("cannot clean the dataset " + root + ": " + e, e);
        }
    }

    private static Shard writeShard(Path root, String type, String origin, int sequence, List<ObjectNode> records,
                                    String model, int dimension) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(buffer)) {
            for (ObjectNode r : records) {
                gz.write(DatasetFormat.JSON.writeValueAsBytes(r));
                gz.write('\n');
            }
        }
        byte[] bytes = buffer.toByteArray();
        String path = DatasetFormat.shardPath(type, origin, sequence);
        Path file = root.resolve(path);
        if (Files.exists(file)) {
            throw new IOException(file + " exists already; shards are never overwritten");
        }
        writeAtomically(file, bytes);
        return new Shard(path, type, origin, sequence, records.size(), bytes.length, Sha256.hex(bytes),
                model, dimension, DatasetFormat.SCHEMA);
    }

    /** Writes through a temporary file, so a reader never sees half a file. */
    static void writeAtomically(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        Path temp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.write(temp, bytes);
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
