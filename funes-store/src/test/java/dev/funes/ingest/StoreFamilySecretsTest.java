package dev.funes.ingest;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.SourceState;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.redact.Fake;
import dev.funes.store.DatasetExport;
import dev.funes.store.ExportOptions;
import dev.funes.store.FunesStore;
import dev.funes.store.LinkTables;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The secret families of {@link FamilyCorpus} (issue 22) on every way into a real store: Claude
 * Code logs indexed by the real Indexer (also read on from a checkpoint after they grew, some
 * in a working directory, and so a log folder, named with a token), memories added directly with
 * secrets in every string (agent, session, metadata key, provenance path), memories with
 * caller-supplied vectors (the LangChain4j path), and git commits. No 12 characters of any planted
 * secret may be in {@code funes.db}, its WAL, the FTS5 vocabulary, the index files, the
 * checkpoints, or an export of the store.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreFamilySecretsTest {

    private static final long SEED = Long.getLong("funes.test.seed", 20260123L);
    private static final int PER_FAMILY = 6;

    private Path tmp;
    private Embedder embedder;

    @BeforeAll
    void loadModel(@TempDir Path dir) {
        tmp = dir;
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    @Test
    void noPieceOfAnyFamilyReachesTheStoreItsCheckpointsOrAnExport() throws Exception {
        Path fixtures = Logs.shared().resolve("fixtures").resolve("claude-code");
        assumeTrue(Files.isDirectory(fixtures), "skipped: real Claude Code logs not found at " + fixtures.toAbsolutePath());
        System.out.println("StoreFamilySecretsTest seed " + SEED + " (set -Dfunes.test.seed to change)");
        FamilyCorpus corpus = new FamilyCorpus(SEED, PlantedCorpus.fillerFrom(fixtures));
        Path projects = tmp.resolve("projects");
        List<Path> files = corpus.write(projects, PER_FAMILY);
        List<Memory> raw = new ArrayList<>();
        for (Path file : files) {
            AgentLogs.claudeCode().parse(file, raw::add);
        }
        Map<String, Integer> reached = corpus.reached(raw);
        assertThat(reached).allSatisfy((family, n) -> assertThat(n).as(family).isGreaterThanOrEqualTo(3));

        Fake fake = new Fake(SEED);
        Path storeDir = tmp.resolve("store");
        Path dataset = tmp.resolve("dataset");
        try (MemoryStore store = FunesStore.open(storeDir, embedder)) {
            IndexReport first = Indexer.builder(store).build().index(List.of(projects));
            assertThat(first.problems()).isEmpty();
            assertThat(first.filesIndexed()).isEqualTo(files.size());

            // The checkpoint of a log whose path holds a token is found again under its redacted path.
            IndexReport unchanged = Indexer.builder(store).build().index(List.of(projects));
            assertThat(unchanged.filesUnchanged()).isEqualTo(files.size());

            // A grown log is read on from its checkpoint's resume point.
            Path grown = files.stream().filter(f -> f.getParent().getFileName().toString().contains("deploy-"))
                    .findFirst().orElseThrow();
            List<String> lines = new ArrayList<>(Files.readAllLines(grown));
            String last = lines.get(lines.size() - 1);
            lines.add(last.replace("\"uuid\":\"", "\"uuid\":\"e"));
            Files.write(grown, lines);
            IndexReport again = Indexer.builder(store).build().index(List.of(projects));
            assertThat(again.problems()).isEmpty();
            assertThat(again.filesIndexed()).isEqualTo(1);
            assertThat(store.checkpoints().orElseThrow().source(grown)).hasValueSatisfying(s -> assertThat(s.resume()).isNotEmpty());

            // Every string of a memory added directly, and a checkpoint given by the caller.
            String agentToken = plant(corpus, "direct", fake.huggingFaceToken());
            String sessionToken = plant(corpus, "direct", "gh" + "p_" + fake.of(Fake.BASE62, 36));
            String keyToken = plant(corpus, "direct", fake.npmToken());
            String pathToken = plant(corpus, "direct", fake.of(Fake.BASE62, 36));
            Path secretLog = tmp.resolve("logs-" + pathToken).resolve("s.jsonl");
            store.checkpoints().orElseThrow().replaceSource(List.of(Memory.builder(MemoryKind.NOTE, "mcp-client " + agentToken, "a note about the deploy")
                            .session("session " + sessionToken).metadata("note " + keyToken, "value")
                            .provenance(new Provenance(secretLog, 1, 1, 0, 10, List.of())).build()),
                    new SourceState(secretLog, 10, Instant.parse("2025-12-01T00:00:00Z"), 10, 1, "", "claude-code",
                            Instant.parse("2025-12-01T00:00:01Z")), java.util.Set.of());
            assertThat(store.checkpoints().orElseThrow().source(secretLog)).isPresent();

            // Caller-supplied vectors, as FunesEmbeddingStore (LangChain4j) stores them.
            String vectorSecret = plant(corpus, "vectors", fake.sendgridKey());
            float[] vector = embedder.embedDocuments(List.of("a memory")).get(0);
            FunesStore.vectors(store).put(List.of(Memory.builder(MemoryKind.NOTE, "langchain4j",
                    "SENDGRID_API_KEY=" + vectorSecret).id("entry-1").build()), List.of(vector));

            // Git commits and their messages.
            String commitSecret = plant(corpus, "commits", fake.vaultToken());
            LinkTables links = FunesStore.links(store);
            links.putCommits("/home/dev/app", List.of(new LinkTables.Commit("/home/dev/app", "3f2a9c1d5e7b8a0c4d6e2f1a9b8c7d6e5f4a3b2c",
                    Instant.parse("2025-12-01T00:00:00Z"), "Dev <dev@acme.dev>", "ci: use VAULT_TOKEN=" + commitSecret, List.of())),
                    "main=3f2a9c1d5e7b8a0c4d6e2f1a9b8c7d6e5f4a3b2c");

            SecretIndex fragments = fragments(corpus.planted);
            assertThat(Files.exists(storeDir.resolve("funes.db-wal"))).isTrue();
            StoreScans.assertNoFragment(fragments, StoreScans.storeFiles(storeDir));
            DatasetExport.export(store, dataset, ExportOptions.defaults().withVectors(true));
        }
        SecretIndex fragments = fragments(corpus.planted);
        StoreScans.assertNoFragment(fragments, StoreScans.storeFiles(storeDir));
        StoreScans.assertNoFtsTerm(storeDir.resolve("funes.db"),
                corpus.planted.stream().map(FamilyCorpus.Planted::value).toList(),
                corpus.planted.stream().map(FamilyCorpus.Planted::family).toList());
        List<Path> exported;
        try (Stream<Path> s = Files.walk(dataset)) {
            exported = s.filter(Files::isRegularFile).sorted().toList();
        }
        assertThat(exported).anyMatch(p -> p.toString().endsWith(".jsonl.gz"));
        for (Path file : exported) {
            String content;
            if (file.toString().endsWith(".gz")) {
                try (InputStream in = new GZIPInputStream(Files.newInputStream(file))) {
                    content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            } else {
                content = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            }
            StoreScans.assertNoFragment(fragments, Map.of(file, content));
        }
        System.out.println("families that reached a memory: " + reached + "; " + corpus.planted.size()
                + " secrets planted, none in the database, WAL, FTS vocabulary, index files, checkpoints or the "
                + exported.size() + " exported files");
    }

    private static String plant(FamilyCorpus corpus, String family, String value) {
        corpus.planted.add(new FamilyCorpus.Planted(family, value));
        return value;
    }

    private static SecretIndex fragments(List<FamilyCorpus.Planted> planted) {
        List<PlantedCorpus.Planted> fragments = new ArrayList<>();
        for (FamilyCorpus.Planted p : planted) {
            for (String piece : FamilyCorpus.pieces(p.value())) {
                if (piece.length() >= SecretIndex.KEY) {
                    fragments.add(new PlantedCorpus.Planted(p.family(), piece));
                }
            }
        }
        return new SecretIndex(fragments);
    }

}
