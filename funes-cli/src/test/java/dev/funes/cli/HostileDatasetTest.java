package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.DatasetExport;
import dev.funes.store.ExportOptions;
import dev.funes.store.FunesStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile dataset folders imported by {@code funes import} in a child JVM limited to a 256 MB heap,
 * so a shard held in memory fails with an {@code OutOfMemoryError}: gzip bombs (one line of
 * gigabytes; millions of records past the manifest's count; a dataset whose manifest declares
 * more records than the heap holds), a 12 MB text, a shard linked from outside the folder. Each is
 * refused with one {@code funes:} line naming the file and line, and the store is not written:
 * every file of it keeps its bytes, and a store that did not exist is not created.
 *
 * <p>The forged shards are listed in the manifest with their true size and SHA-256, as a forger
 * would, so the reader gets past the checksums to the records.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileDatasetTest {

    private static final Duration PATIENCE = Duration.ofMinutes(10);
    private static final String HEAP = "256m";
    /** One record a line, as the export writes them. */
    private static final ObjectMapper JSON = new ObjectMapper();

    private Path tmp;
    private Path clean;
    private Path store;
    private Map<String, String> storeBefore;

    @BeforeAll
    void exportADataset(@TempDir Path tmp) throws Exception {
        this.tmp = tmp;
        clean = tmp.resolve("clean");
        store = tmp.resolve("store");
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT)) {
            try (MemoryStore source = FunesStore.open(tmp.resolve("source"), embedder)) {
                source.add(note("the release job signs the jar with the key from the vault"));
                source.add(note("CI checks out the merge commit, not the branch head"));
                source.add(note("flaky tests are quarantined behind the @Flaky tag"));
                DatasetExport.export(source, clean, ExportOptions.defaults());
            }
            try (MemoryStore target = FunesStore.open(store, embedder)) {
                target.add(note("the store already held this note before the import"));
            }
        }
        storeBefore = contents(store);
        // The clean dataset imports: what the forgeries below break is theirs alone.
        Path copy = copy("clean-check");
        FunesProcess ok = FunesProcess.run(PATIENCE, HEAP, "import", copy.toString(),
                "--store", tmp.resolve("clean-store").toString());
        assertThat(ok.status()).as(ok.describe("import of the clean dataset")).isZero();
        assertThat(ok.out()).contains("3 memories added");
    }

    private static Memory note(String text) {
        return Memory.builder(MemoryKind.NOTE, "api", text).build();
    }

    @Test
    void aGzipBombOfOneLineOfGigabytesIsRefusedAtItsFirstLine() throws Exception {
        Path ds = copy("one-line");
        Path shard = onlyShard(ds);
        // About 4 MB of gzip members that expand to 4.4 GB without a newline.
        byte[] member = gzip(repeat((byte) 'a', 64 << 20));
        try (OutputStream out = Files.newOutputStream(shard)) {
            out.write(gzip("{\"id\":\"x\",\"text\":\"".getBytes(StandardCharsets.UTF_8)));
            for (int i = 0; i < 70; i++) {
                out.write(member);
            }
        }
        list(ds, shard, 3);
        assertRefused(ds, shard + ":1: is longer than 4 MiB, the longest record Funes reads");
    }

    @Test
    void aGzipBombOfMillionsOfRecordsPastTheManifestsCountIsRefusedAtTheFirstOneTooMany() throws Exception {
        Path ds = copy("many-records");
        Path shard = onlyShard(ds);
        String record = lines(shard).get(0);
        StringBuilder block = new StringBuilder();
        for (int i = 0; i < 10_000; i++) {
            block.append(record).append('\n');
        }
        byte[] member = gzip(block.toString().getBytes(StandardCharsets.UTF_8));
        try (OutputStream out = Files.newOutputStream(shard)) {
            for (int i = 0; i < 200; i++) { // 2,000,000 records
                out.write(member);
            }
        }
        System.out.printf(Locale.ROOT, "HostileDatasetTest: %,d bytes of gzip holding 2,000,000 records%n", Files.size(shard));
        list(ds, shard, 3);
        assertRefused(ds, shard + ":4: is a record past the 3 its manifest lists");
    }

    @Test
    void aTwelveMegabyteTextIsRefusedAsIndexRefusesSuchARecord() throws Exception {
        Path ds = copy("big-text");
        Path shard = onlyShard(ds);
        ObjectNode record = (ObjectNode) JSON.readTree(lines(shard).get(0));
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 12 << 20; i++) {
            text.append("line ").append(i).append(" of a very long tool output that someone stored whole\n");
        }
        record.put("text", text.toString());
        record.put("contentHash", sha256(text.toString().getBytes(StandardCharsets.UTF_8)));
        Files.write(shard, gzip((JSON.writeValueAsString(record) + "\n").getBytes(StandardCharsets.UTF_8)));
        list(ds, shard, 1);
        assertRefused(ds, shard + ":1: is longer than 4 MiB");
    }

    @Test
    void aManifestDeclaringMoreRecordsThanTheHeapHoldsIsRefusedBeforeItFillsIt() throws Exception {
        Path ds = copy("declared-many");
        Path shard = onlyShard(ds);
        ObjectNode record = (ObjectNode) JSON.readTree(lines(shard).get(0));
        int records = 200_000;
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(shard), 1 << 16)) {
            for (int i = 0; i < records; i++) {
                record.put("id", String.format(Locale.ROOT, "forged-%08d", i)); // a caller may set ids
                out.write((JSON.writeValueAsString(record) + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        list(ds, shard, records);
        FunesProcess p = assertRefused(ds, shard + ":");
        assertThat(p.err()).contains("the dataset's records need more memory than this JVM may use");
    }

    @Test
    void aShardLinkedFromOutsideTheFolderIsNotFollowed() throws Exception {
        Path ds = copy("link");
        Path shard = onlyShard(ds);
        Path outside = Files.copy(shard, tmp.resolve("outside-" + shard.getFileName()));
        Files.delete(shard);
        Files.createSymbolicLink(shard, outside);
        assertRefused(ds, shard + ": leads outside the dataset (to " + outside.toRealPath() + ")");
    }

    /**
     * Runs the import into the seeded store and into a store that does not exist: both refused with
     * the message, in one {@code funes:} line, without an OutOfMemoryError, and nothing written.
     */
    private FunesProcess assertRefused(Path ds, String message) throws Exception {
        FunesProcess p = FunesProcess.run(PATIENCE, HEAP, "import", ds.toString(), "--store", store.toString());
        System.out.printf(Locale.ROOT, "HostileDatasetTest: %s refused, child peak RSS %,d KB (heap limit %s)%n",
                ds.getFileName(), p.peakRssKb(), HEAP);
        assertThat(p.status()).as(p.describe("import of " + ds.getFileName())).isEqualTo(1);
        assertThat(p.err()).as(p.describe("the reason")).doesNotContain("OutOfMemoryError", "\tat ")
                .startsWith("funes: " + message).hasLineCount(1);
        assertThat(contents(store)).as("the store's files are untouched").isEqualTo(storeBefore);

        Path absent = tmp.resolve("never-" + ds.getFileName());
        FunesProcess q = FunesProcess.run(PATIENCE, HEAP, "import", ds.toString(), "--store", absent.toString());
        assertThat(q.status()).as(q.describe("import into a new store")).isEqualTo(1);
        assertThat(absent).as("no store is created for a refused dataset").doesNotExist();
        return p;
    }

    // ---- forging ------------------------------------------------------------------------------

    private Path copy(String name) throws IOException {
        Path to = tmp.resolve(name);
        try (Stream<Path> files = Files.walk(clean)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(clean.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
        return to;
    }

    private static Path onlyShard(Path ds) throws IOException {
        try (Stream<Path> s = Files.list(ds.resolve("data"))) {
            List<Path> shards = s.toList();
            assertThat(shards).hasSize(1);
            return shards.get(0);
        }
    }

    /** Lists the shard's present bytes in its manifest entry with {@code records} records. */
    private static void list(Path ds, Path shard, long records) throws Exception {
        byte[] bytes = Files.readAllBytes(shard);
        try (Stream<Path> s = Files.list(ds.resolve("manifests"))) {
            Path manifest = s.findFirst().orElseThrow();
            JsonNode m = JSON.readTree(manifest.toFile());
            for (JsonNode entry : m.get("shards")) {
                if (ds.resolve(entry.get("path").asText()).equals(shard)) {
                    ((ObjectNode) entry).put("bytes", bytes.length);
                    ((ObjectNode) entry).put("sha256", sha256(bytes));
                    ((ObjectNode) entry).put("records", records);
                }
            }
            JSON.writeValue(manifest.toFile(), m);
        }
    }

    private static List<String> lines(Path shard) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(shard))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    private static byte[] gzip(byte[] bytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        }
        return out.toByteArray();
    }

    private static byte[] repeat(byte b, int n) {
        byte[] bytes = new byte[n];
        java.util.Arrays.fill(bytes, b);
        return bytes;
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Every file of the directory with the SHA-256 of its bytes. */
    private static Map<String, String> contents(Path dir) throws Exception {
        Map<String, String> files = new TreeMap<>();
        List<Path> all = new ArrayList<>();
        try (Stream<Path> s = Files.walk(dir)) {
            s.filter(Files::isRegularFile).forEach(all::add);
        }
        for (Path f : all) {
            files.put(dir.relativize(f).toString(), sha256(Files.readAllBytes(f)));
        }
        return files;
    }
}
