package dev.funes.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.Indexer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What {@code datasets.load_dataset} needs of an export, checked without Python: the card's YAML
 * declares each config's files and features, and every row of every file of a config has exactly
 * the declared columns with values of the declared types. Also: the default config leaves out
 * deleted and forgotten memories, and datasets of the previous record schema still import.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatasetSchemaTest {

    private Embedder embedder;
    private Path fixtures;

    @BeforeAll
    void setUp() {
        fixtures = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures");
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void tearDown() {
        embedder.close();
    }

    @Test
    void everyRowOfEveryConfigHasTheDeclaredColumnsAndTypesAndDeletedMemoriesAreNotInMemories(@TempDir Path tmp)
            throws IOException {
        assumeTrue(Files.isDirectory(fixtures), "skipped: the fixture logs are not at " + fixtures.toAbsolutePath());
        Path ds = tmp.resolve("ds");
        Set<String> live;
        Set<String> gone = new HashSet<>();
        Set<Set<String>> metadataKeySets = new HashSet<>();
        Set<String> agents = new HashSet<>();
        try (MemoryStore store = FunesStore.open(tmp.resolve("s"), embedder)) {
            Indexer.builder(store).passages(false).build().index(someOfEachFormat());
            // Small shards, so that there are many files per config, as a long-lived dataset has.
            DatasetExport.export(store, ds, ExportOptions.defaults().withVectors(true).withShardRecords(40));
            List<Memory> all = DatasetReader.read(ds, true, null).live().values().stream()
                    .map(DatasetFormat.MemoryRecord::memory).toList();
            assertThat((long) all.size()).isEqualTo(store.stats().memories());
            all.forEach(m -> {
                metadataKeySets.add(m.metadata().keySet());
                agents.add(m.agent());
            });
            // One memory deleted, the memories of one session forgotten: both leave the default config.
            Memory deleted = all.get(3);
            assertThat(store.delete(deleted.id())).isTrue();
            gone.add(deleted.id());
            String session = all.stream().filter(m -> m.session() != null && !m.id().equals(deleted.id()))
                    .map(Memory::session).findFirst().orElseThrow();
            List<String> forgotten = all.stream().filter(m -> session.equals(m.session())).map(Memory::id).toList();
            FunesStore.forget(store, forgotten);
            gone.addAll(forgotten);
            DatasetExport.export(store, ds, ExportOptions.defaults().withVectors(true).withShardRecords(40));
            live = new HashSet<>();
            all.forEach(m -> live.add(m.id()));
            live.removeAll(gone);
            assertThat((long) live.size()).isEqualTo(store.stats().memories());
        }
        assertThat(agents).as("memories of several agents' formats").hasSizeGreaterThanOrEqualTo(5);
        assertThat(metadataKeySets).as("the free metadata that made per-file schemas differ").hasSizeGreaterThan(3);
        assertThat(gone).hasSizeGreaterThan(1);

        Map<String, Object> yaml = frontMatter(Files.readString(ds.resolve("README.md")));
        Map<String, List<Map<String, Object>>> features = new TreeMap<>();
        for (Map<String, Object> info : list(yaml.get("dataset_info"))) {
            features.put((String) info.get("config_name"), list(info.get("features")));
        }
        Map<String, String> globs = new TreeMap<>();
        for (Map<String, Object> config : list(yaml.get("configs"))) {
            List<Map<String, Object>> files = list(config.get("data_files"));
            assertThat(files).hasSize(1);
            assertThat(files.get(0).get("split")).isEqualTo("train");
            globs.put((String) config.get("config_name"), (String) files.get(0).get("path"));
            if ("memories".equals(config.get("config_name"))) {
                assertThat(config.get("default")).isEqualTo(true);
            }
        }
        assertThat(globs.keySet()).containsExactly("deletions", "history", "memories");
        assertThat(features.keySet()).isEqualTo(globs.keySet());

        Map<String, Set<String>> idsPerConfig = new TreeMap<>();
        for (Map.Entry<String, String> config : globs.entrySet()) {
            List<Map<String, Object>> declared = features.get(config.getKey());
            List<String> names = declared.stream().map(f -> (String) f.get("name")).toList();
            PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + config.getValue());
            List<Path> files;
            try (Stream<Path> s = Files.walk(ds)) {
                files = s.filter(p -> matcher.matches(ds.relativize(p))).sorted().toList();
            }
            assertThat(files).as(config.getKey()).isNotEmpty();
            Set<String> ids = new HashSet<>();
            long rows = 0;
            for (Path file : files) {
                long line = 0;
                for (String text : gunzip(file)) {
                    line++;
                    rows++;
                    JsonNode row = DatasetFormat.JSON.readTree(text);
                    List<String> columns = new ArrayList<>();
                    row.fieldNames().forEachRemaining(columns::add);
                    assertThat(columns).as("%s:%d", file, line).isEqualTo(names);
                    for (Map<String, Object> f : declared) {
                        assertType(row.get((String) f.get("name")), f, file + ":" + line);
                    }
                    if (row.has("metadata")) {
                        JsonNode meta = DatasetFormat.JSON.readTree(row.get("metadata").asText());
                        assertThat(meta.isObject()).isTrue();
                        meta.forEach(v -> assertThat(v.isTextual()).isTrue());
                    }
                    if (row.has("vector")) {
                        assertThat(row.get("vector").size()).as("%s:%d", file, line).isEqualTo(384);
                    }
                    ids.add(row.get("id").asText());
                }
            }
            System.out.printf("config %s: %d files, %d rows%n", config.getKey(), files.size(), rows);
            idsPerConfig.put(config.getKey(), ids);
        }
        assertThat(idsPerConfig.get("memories")).as("the default config: the live memories, no deleted or forgotten one")
                .isEqualTo(live).doesNotContainAnyElementsOf(gone);
        assertThat(idsPerConfig.get("history")).containsAll(live).containsAll(gone);
        assertThat(idsPerConfig.get("deletions")).isEqualTo(gone);
    }

    /**
     * The two smallest logs of every format folder (a Cline task is a folder): every format,
     * and every format's metadata, at a fraction of the time of embedding all of them.
     */
    private List<Path> someOfEachFormat() throws IOException {
        List<Path> chosen = new ArrayList<>();
        try (Stream<Path> formats = Files.list(fixtures)) {
            for (Path format : formats.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> s = Files.list(format)) {
                    s.sorted(java.util.Comparator.comparingLong(DatasetSchemaTest::size).thenComparing(Path::toString))
                            .limit(2).forEach(chosen::add);
                }
            }
        }
        return chosen;
    }

    private static long size(Path p) {
        try (Stream<Path> s = Files.walk(p)) {
            return s.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A value of a declared feature: dtype string or int64, or a sequence of string or float32; null allowed. */
    private static void assertType(JsonNode v, Map<String, Object> feature, String where) {
        String name = (String) feature.get("name");
        assertThat(v).as("%s: %s", where, name).isNotNull();
        if (v.isNull()) {
            assertThat(name).as("%s: only optional columns are null", where)
                    .isNotIn("id", "kind", "text", "agent", "addedAt", "metadata", "contentHash", "deletedAt");
            return;
        }
        Object dtype = feature.get("dtype");
        Object sequence = feature.get("sequence");
        if ("string".equals(dtype)) {
            assertThat(v.isTextual()).as("%s: %s is a string", where, name).isTrue();
        } else if ("int64".equals(dtype)) {
            assertThat(v.isIntegralNumber()).as("%s: %s is an integer", where, name).isTrue();
        } else if ("string".equals(sequence)) {
            assertThat(v.isArray()).as("%s: %s is a list", where, name).isTrue();
            v.forEach(e -> assertThat(e.isTextual()).as("%s: %s holds strings", where, name).isTrue());
        } else if ("float32".equals(sequence)) {
            assertThat(v.isArray()).as("%s: %s is a list", where, name).isTrue();
            v.forEach(e -> {
                assertThat(e.isNumber()).as("%s: %s holds numbers", where, name).isTrue();
                assertThat(Float.isFinite(e.floatValue())).as("%s: %s holds finite numbers", where, name).isTrue();
            });
        } else {
            throw new AssertionError(where + ": undeclared type of " + name + ": " + feature);
        }
    }

    @Test
    void aDatasetOfThePreviousFormatImportsAndAnExportIntoItKeepsItReadable(@TempDir Path tmp) throws IOException {
        // A dataset as Funes wrote it before schema 2 (manifest version 1): written here field by
        // field as that version did, since such datasets exist on users' machines.
        Path ds = tmp.resolve("old");
        String origin = "0a1b2c3d4e5f";
        Memory exchange = Memory.builder(MemoryKind.EXCHANGE, "claude-code",
                        "User: why does CI check out the wrong branch?\nAssistant: it checks out the merge commit.")
                .project("/home/dev/acme").session("s-1")
                .provenance(new Provenance(Path.of("/home/dev/.claude/projects/acme/s-1.jsonl"), 3, 4, 120, 480,
                        List.of("u1", "u2")))
                .metadata("gitBranch", "main").metadata("parentSession", "s-0").build();
        Memory note = Memory.builder(MemoryKind.NOTE, "api", "the release job signs the jar with the vault key").build();
        Memory removed = Memory.builder(MemoryKind.NOTE, "api", "the staging database is reset nightly").build();
        float[] vector = embedder.embedDocuments(List.of(exchange.text())).get(0);
        Instant added = Instant.parse("2026-11-20T10:00:00Z");
        List<String> memoryLines = List.of(
                v1Record(exchange, added, vector), v1Record(note, added, null), v1Record(removed, added, null));
        List<String> deletionLines = List.of("{\"id\":\"" + removed.id() + "\",\"deletedAt\":\"2026-11-21T10:00:00Z\"}");
        byte[] memories = gzip(memoryLines);
        byte[] deletions = gzip(deletionLines);
        Files.createDirectories(ds.resolve("data"));
        Files.createDirectories(ds.resolve("manifests"));
        Files.write(ds.resolve("data/memories-" + origin + "-00000.jsonl.gz"), memories);
        Files.write(ds.resolve("data/deletions-" + origin + "-00001.jsonl.gz"), deletions);
        Files.writeString(ds.resolve("manifests/" + origin + ".json"), "{\n"
                + "  \"format\" : \"funes-dataset\",\n  \"version\" : 1,\n  \"origin\" : \"" + origin + "\",\n"
                + "  \"store\" : \"0a1b2c3d-4e5f-4a55-9d0e-2c41b7e8f6a1\",\n  \"shards\" : [ {\n"
                + "    \"path\" : \"data/memories-" + origin + "-00000.jsonl.gz\",\n    \"type\" : \"memories\",\n"
                + "    \"records\" : 3,\n    \"bytes\" : " + memories.length + ",\n    \"sha256\" : \""
                + Sha256.hex(memories) + "\",\n    \"vectors\" : {\n      \"model\" : \"all-minilm-l6-v2-q\",\n"
                + "      \"dimension\" : 384,\n      \"encoding\" : \"base64 float32 little-endian\"\n    }\n  }, {\n"
                + "    \"path\" : \"data/deletions-" + origin + "-00001.jsonl.gz\",\n    \"type\" : \"deletions\",\n"
                + "    \"records\" : 1,\n    \"bytes\" : " + deletions.length + ",\n    \"sha256\" : \""
                + Sha256.hex(deletions) + "\"\n  } ]\n}\n");

        Memory later = Memory.builder(MemoryKind.NOTE, "api", "flaky tests are quarantined, not retried").build();
        try (MemoryStore store = FunesStore.open(tmp.resolve("s"), embedder)) {
            ImportReport r = DatasetImport.importInto(store, ds);
            assertThat(r.added()).isEqualTo(2);
            assertThat(r.embedded()).as("the old base64 vector is reused").isEqualTo(1);
            Memory back = store.get(exchange.id()).orElseThrow();
            assertThat(back.provenance()).isEqualTo(exchange.provenance());
            assertThat(back.metadata()).isEqualTo(exchange.metadata());
            assertThat(back.project()).isEqualTo("/home/dev/acme");
            assertThat(store.get(removed.id())).isEmpty();
            assertThat(store.search(SearchRequest.builder("which branch does CI check out").limit(1).build()))
                    .extracting(h -> h.memory().id()).containsExactly(exchange.id());

            // This store exports into the old folder: a version 2 manifest beside the old one.
            store.add(later);
            ExportReport e = DatasetExport.export(store, ds, ExportOptions.defaults().withVectors(true));
            assertThat(e.memoriesWritten()).isEqualTo(1);
        }
        assertThat(Files.readAllBytes(ds.resolve("data/memories-" + origin + "-00000.jsonl.gz")))
                .as("old shards are never rewritten").isEqualTo(memories);
        Map<String, Object> yaml = frontMatter(Files.readString(ds.resolve("README.md")));
        List<String> configs = list(yaml.get("configs")).stream().map(c -> (String) c.get("config_name")).toList();
        assertThat(configs).as("no history config over two record shapes").containsExactly("memories", "deletions");
        Set<String> view = new HashSet<>();
        try (Stream<Path> s = Files.list(ds.resolve("memories"))) {
            for (Path f : s.toList()) {
                for (String line : gunzip(f)) {
                    JsonNode row = DatasetFormat.JSON.readTree(line);
                    List<String> columns = new ArrayList<>();
                    row.fieldNames().forEachRemaining(columns::add);
                    assertThat(columns).isEqualTo(List.copyOf(DatasetFormat.MEMORY_COLUMNS.keySet()));
                    view.add(row.get("id").asText());
                }
            }
        }
        assertThat(view).containsExactlyInAnyOrder(exchange.id(), note.id(), later.id());
        try (MemoryStore fresh = FunesStore.open(tmp.resolve("t"), embedder)) {
            ImportReport r = DatasetImport.importInto(fresh, ds);
            assertThat(r.added()).isEqualTo(3);
            assertThat(fresh.get(exchange.id()).orElseThrow().provenance()).isEqualTo(exchange.provenance());
        }
    }

    @Test
    void aCardMadeOnTheHubKeepsItsTextAndKeysAndFunesRewritesOnlyItsOwn(@TempDir Path tmp) throws IOException {
        Path ds = tmp.resolve("ds");
        Files.createDirectories(ds);
        // As the Hub's website writes a new dataset card, then edited there by its owner.
        String website = "---\nlicense: mit\nlanguage:\n- en\ntask_categories:\n- text-retrieval\nconfigs:\n"
                + "- config_name: default\n  data_files: old/*.csv\n---\n\n# My agent memory\n\nWritten on the website.\n";
        Files.writeString(ds.resolve("README.md"), website);
        try (MemoryStore store = FunesStore.open(tmp.resolve("s"), embedder)) {
            store.add(Memory.builder(MemoryKind.NOTE, "api", "the deploy key lives in the vault").build());
            DatasetExport.export(store, ds, ExportOptions.defaults());
            String card = Files.readString(ds.resolve("README.md"));
            Map<String, Object> yaml = frontMatter(card);
            assertThat(yaml.get("license")).as("the owner's licence is kept").isEqualTo("mit");
            assertThat(yaml).containsKeys("language", "task_categories", "pretty_name", "tags", "dataset_info")
                    .doesNotContainKey("license_name");
            assertThat(list(yaml.get("configs"))).extracting(c -> c.get("config_name"))
                    .containsExactly("memories", "history");
            assertThat(card).contains("# My agent memory\n\nWritten on the website.\n", DatasetCard.BEGIN);

            // Edited again below Funes's block; the next export changes nothing of it.
            Files.writeString(ds.resolve("README.md"), card + "\nA line added later.\n");
            store.add(Memory.builder(MemoryKind.NOTE, "api", "the staging database is reset nightly").build());
            DatasetExport.export(store, ds, ExportOptions.defaults());
            String again = Files.readString(ds.resolve("README.md"));
            assertThat(again).isEqualTo(card + "\nA line added later.\n");
        }
    }

    @Test
    void aShardLeftAsAnLfsPointerIsNamedAsSuch(@TempDir Path tmp) throws IOException {
        Path ds = tmp.resolve("ds");
        try (MemoryStore store = FunesStore.open(tmp.resolve("s"), embedder)) {
            store.add(Memory.builder(MemoryKind.NOTE, "api", "the deploy key lives in the vault").build());
            DatasetExport.export(store, ds, ExportOptions.defaults());
        }
        Path shard;
        try (Stream<Path> s = Files.list(ds.resolve("data"))) {
            shard = s.findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(shard);
        // What a clone without Git LFS holds instead of the shard.
        Files.writeString(shard, "version https://git-lfs.github.com/spec/v1\noid sha256:" + Sha256.hex(bytes)
                + "\nsize " + bytes.length + "\n");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DatasetImport.verify(ds))
                .isInstanceOf(DatasetException.class)
                .hasMessageStartingWith(shard + ": is a Git LFS pointer, not the shard");
    }

    /** A memory record exactly as manifest version 1 wrote it. */
    private static String v1Record(Memory m, Instant addedAt, float[] vector) throws IOException {
        ObjectNode n = DatasetFormat.JSON.createObjectNode();
        n.put("id", m.id());
        n.put("kind", m.kind().label());
        n.put("text", m.text());
        n.put("agent", m.agent());
        n.put("project", m.project());
        n.put("session", m.session());
        n.putNull("startedAt");
        n.putNull("endedAt");
        n.put("addedAt", addedAt.toString());
        if (m.provenance() == null) {
            n.putNull("source");
        } else {
            ObjectNode s = n.putObject("source");
            s.put("path", m.provenance().source().toString());
            s.put("lineStart", m.provenance().lineStart());
            s.put("lineEnd", m.provenance().lineEnd());
            s.put("byteStart", m.provenance().byteStart());
            s.put("byteEnd", m.provenance().byteEnd());
            ArrayNode ids = s.putArray("recordIds");
            m.provenance().recordIds().forEach(ids::add);
        }
        ObjectNode meta = n.putObject("metadata");
        new TreeMap<>(m.metadata()).forEach(meta::put);
        n.put("contentHash", m.contentHash());
        if (vector != null) {
            n.put("vector", Base64.getEncoder().encodeToString(Rows.vectorBytes(vector)));
        }
        return DatasetFormat.JSON.writeValueAsString(n);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> frontMatter(String card) {
        assertThat(card).startsWith("---\n");
        int end = card.indexOf("\n---\n", 4);
        assertThat(end).isPositive();
        Object yaml = new Yaml().load(card.substring(4, end + 1));
        assertThat(yaml).isInstanceOf(Map.class);
        return new LinkedHashMap<>((Map<String, Object>) yaml);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object o) {
        assertThat(o).isInstanceOf(List.class);
        return (List<Map<String, Object>>) o;
    }

    private static byte[] gzip(List<String> lines) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            for (String l : lines) {
                gz.write((l + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        return out.toByteArray();
    }

    private static List<String> gunzip(Path file) throws IOException {
        try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
