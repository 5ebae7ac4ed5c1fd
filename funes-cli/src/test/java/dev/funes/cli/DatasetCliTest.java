package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import org.eclipse.jgit.api.Git;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes export}, {@code import}, {@code push} and {@code pull} end to end: real stores,
 * the real model, and a real (local, bare) git repository as the remote.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DatasetCliTest {

    private Embedder embedder;

    @BeforeAll
    void loadModel() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        embedder.close();
    }

    private static CliTest.Result ok(String... args) {
        CliTest.Result r = CliTest.funes(args);
        assertThat(r.status()).as("funes %s\n%s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    private static Memory note(String text) {
        return Memory.builder(MemoryKind.NOTE, "api", text).build();
    }

    private void add(Path store, Memory... memories) {
        try (MemoryStore s = FunesStore.open(store, embedder)) {
            s.addAll(List.of(memories));
        }
    }

    private void delete(Path store, Memory m) {
        try (MemoryStore s = FunesStore.open(store, embedder)) {
            assertThat(s.delete(m.id())).isTrue();
        }
    }

    private Set<String> ids(Path store) {
        Set<String> ids = new TreeSet<>();
        try (MemoryStore s = FunesStore.open(store, embedder)) {
            // Every memory is a note of the "api" agent; a broad query with a high limit lists them all.
            s.search(SearchRequest.builder("note about the build").limit(100).build())
                    .forEach(h -> ids.add(h.memory().id()));
            assertThat((long) ids.size()).as("search lists every memory").isEqualTo(s.stats().memories());
        }
        return ids;
    }

    @Test
    void twoStoresThatDivergeConvergeThroughABareRepositoryWithNoDuplicates(@TempDir Path tmp) throws Exception {
        Path remote = tmp.resolve("remote.git");
        try (Git bare = Git.init().setBare(true).setDirectory(remote.toFile()).setInitialBranch("main").call()) {
            assertThat(bare.getRepository().isBare()).isTrue();
        }
        Path a = tmp.resolve("a");
        Path b = tmp.resolve("b");
        Memory a1 = note("note a1 about the build: CI checks out the merge commit");
        Memory a2 = note("note a2 about the build: the release job signs the jar");
        Memory a3 = note("note a3 about the build: the cache key includes the lock file");
        add(a, a1, a2, a3);
        ok("push", remote.toString(), "--store", a.toString(), "--with-vectors");

        CliTest.Result pulled = ok("pull", remote.toString(), "--store", b.toString());
        assertThat(pulled.out()).contains("3 memories added");
        assertThat(ids(b)).containsExactlyInAnyOrder(a1.id(), a2.id(), a3.id());

        // They diverge: b adds two and deletes one of a's; a adds one.
        Memory b1 = note("note b1 about the build: gradle was replaced by maven");
        Memory b2 = note("note b2 about the build: the docker image is distroless");
        add(b, b1, b2);
        delete(b, a1);
        Memory a4 = note("note a4 about the build: flaky tests are quarantined");
        add(a, a4);

        ok("push", remote.toString(), "--store", b.toString());
        CliTest.Result aPull = ok("pull", remote.toString(), "--store", a.toString());
        assertThat(aPull.out()).contains("2 memories added").contains("1 deleted");
        ok("push", remote.toString(), "--store", a.toString());
        ok("pull", remote.toString(), "--store", b.toString());

        Set<String> expected = new TreeSet<>(List.of(a2.id(), a3.id(), a4.id(), b1.id(), b2.id()));
        assertThat(ids(a)).isEqualTo(expected);
        assertThat(ids(b)).isEqualTo(expected);

        // Both datasets hold each memory once, in a shard named after the store that exported it.
        for (Path store : List.of(a, b)) {
            Map<String, Integer> records = memoryRecords(store.resolve("dataset"));
            assertThat(records.values()).allMatch(n -> n == 1);
            assertThat(records.keySet()).containsAll(expected).contains(a1.id());
        }
        // Nothing to push any more, and pulling again changes nothing.
        assertThat(ok("pull", remote.toString(), "--store", a.toString()).out()).contains("0 memories added", "0 deleted");
        // A clone by git without LFS holds pointers; the objects are in the remote's lfs/objects,
        // where git-lfs keeps them for a remote that is a path, and import fetches them from there.
        Path clone = tmp.resolve("clone");
        Git.cloneRepository().setURI(remote.toString()).setDirectory(clone.toFile()).call().close();
        List<Path> cloned;
        try (Stream<Path> s = Files.list(clone.resolve("data"))) {
            cloned = s.toList();
        }
        for (Path pointerFile : cloned) {
            GitLfs.Pointer p = GitLfs.Pointer.parse(Files.readAllBytes(pointerFile));
            assertThat(p).as("%s is an LFS pointer", pointerFile).isNotNull();
            Path object = remote.resolve("lfs/objects").resolve(p.oid().substring(0, 2)).resolve(p.oid().substring(2, 4))
                    .resolve(p.oid());
            assertThat(Files.size(object)).isEqualTo(p.size());
        }
        CliTest.Result imported = ok("import", clone.toString(), "--store", tmp.resolve("c").toString());
        assertThat(imported.out()).contains("5 memories added", "0 deleted");
        assertThat(imported.err()).contains("downloaded " + cloned.size() + " Git LFS objects");
        assertThat(ids(tmp.resolve("c"))).isEqualTo(expected);
    }

    /** Memory records per id over every memory shard of a dataset folder. */
    private static Map<String, Integer> memoryRecords(Path dataset) throws IOException {
        Map<String, Integer> counts = new HashMap<>();
        List<Path> shards;
        try (Stream<Path> s = Files.list(dataset.resolve("data"))) {
            shards = s.filter(p -> p.getFileName().toString().startsWith("memories-")).toList();
        }
        for (Path shard : shards) {
            try (InputStream in = new GZIPInputStream(Files.newInputStream(shard))) {
                for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList()) {
                    counts.merge(HitJson.MAPPER.readTree(line).get("id").asText(), 1, Integer::sum);
                }
            }
        }
        return counts;
    }

    @Test
    void exportImportAndATamperedShardThroughTheCommandLine(@TempDir Path tmp) throws Exception {
        Path a = tmp.resolve("a");
        add(a, note("note one about the build"), note("note two about the build"));
        Path ds = tmp.resolve("ds");
        CliTest.Result exported = ok("export", "--hf-dataset", ds.toString(), "--store", a.toString(), "--with-vectors");
        assertThat(exported.out()).contains("2 memories exported in 1 shard");
        assertThat(ds.resolve("README.md")).exists();

        List<Path> shards;
        try (Stream<Path> s = Files.list(ds.resolve("data"))) {
            shards = s.toList();
        }
        byte[] bytes = Files.readAllBytes(shards.get(0));
        bytes[bytes.length - 12] ^= 0x20;
        Files.write(shards.get(0), bytes);
        CliTest.Result refused = CliTest.funes("import", ds.toString(), "--store", tmp.resolve("b").toString());
        assertThat(refused.status()).isEqualTo(1);
        assertThat(refused.err()).startsWith("funes: " + shards.get(0)).contains("does not match its manifest");
        assertThat(tmp.resolve("b")).as("the dataset is verified before a store is created").doesNotExist();
    }

    @Test
    void theStoresRedactionRulesFileIsLoadedAndStatsCountSecretsPerType(@TempDir Path tmp) throws Exception {
        Path store = tmp.resolve("store");
        Files.createDirectories(store);
        Files.writeString(store.resolve("redaction-rules.txt"), "# ours\nacme-token   acme_[a-z0-9]{16}\n");
        Path log = tmp.resolve("logs/-home-dev-acme/1a2b3c4d-0000-4000-8000-000000000001.jsonl");
        Files.createDirectories(log.getParent());
        String session = "1a2b3c4d-0000-4000-8000-000000000001";
        List<String> records = new ArrayList<>();
        records.add("{\"type\":\"user\",\"sessionId\":\"" + session + "\",\"cwd\":\"/home/dev/acme\",\"uuid\":\"u1\","
                + "\"timestamp\":\"2025-10-14T09:12:03.120Z\",\"message\":{\"role\":\"user\",\"content\":"
                + "\"Deploy staging with acme_0123456789abcdef and export GITHUB_TOKEN=ghp_Zq8xR2mK9pL4vN7tY1wB3cF6hJ0sD5gA8eU2\"}}");
        records.add("{\"type\":\"assistant\",\"sessionId\":\"" + session + "\",\"cwd\":\"/home/dev/acme\",\"uuid\":\"u2\","
                + "\"parentUuid\":\"u1\",\"timestamp\":\"2025-10-14T09:12:09.000Z\",\"message\":{\"role\":\"assistant\","
                + "\"content\":[{\"type\":\"text\",\"text\":\"Deployed staging.\"}]}}");
        Files.write(log, records);
        ok("index", "--index-path", log.toString(), "--store", store.toString());

        JsonNode stats = ok("stats", "--json", "--store", store.toString()).json();
        // Placeholders as stored: in the exchange, in the request's passage, and in the header of
        // the answer's passage, which names the request.
        assertThat(stats.get("redactions").get("acme-token").asLong()).isEqualTo(3);
        assertThat(stats.get("redactions").get("github-token").asLong()).isEqualTo(3);
        assertThat(ok("stats", "--store", store.toString()).out()).contains("secrets redacted (6)", "acme-token");
        String hits = ok("search", "--json", "--store", store.toString(), "deploy staging").out();
        assertThat(hits).contains("[REDACTED:acme-token]").doesNotContain("acme_0123456789abcdef");

        Files.writeString(store.resolve("redaction-rules.txt"), "acme-token\n");
        CliTest.Result bad = CliTest.funes("stats", "--store", store.toString());
        assertThat(bad.status()).isEqualTo(1);
        assertThat(bad.err()).contains("redaction-rules.txt:1:");
    }
}
