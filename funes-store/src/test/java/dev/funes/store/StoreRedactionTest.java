package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.Provenance;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import dev.funes.redact.Redactor;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Redaction by the store itself, for memories that never went through the Indexer. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StoreRedactionTest {

    private static final String TOKEN = "ghp_" + "Zq8xR2mK9pL4vN7tY1wB3cF6hJ0sD5gA8eU2";
    private static final Path LOG = Path.of("/home/dev/.claude/projects/acme/s.jsonl");

    private final Embedder embedder = TestModel.shared();

    private static Memory withToken(int line) {
        return Memory.builder(MemoryKind.EXCHANGE, "claude-code", "export GITHUB_TOKEN=" + TOKEN + " then push (" + line + ")")
                .session("s1").project("/home/dev/acme").metadata("gitBranch", "ci/" + TOKEN)
                .provenance(new Provenance(LOG, line, line, line * 100L, line * 100L + 99, List.of()))
                .build();
    }

    @Test
    void addedMemoriesAreRedactedUnderTheIdOfTheirRedactedTextAndCounted(@TempDir Path dir) {
        Memory m = withToken(1);
        Memory explicit = Memory.builder(MemoryKind.NOTE, "api", "the deploy token is " + TOKEN).id("my-own-id").build();
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(store.add(m)).isTrue();
            assertThat(store.add(explicit)).isTrue();
            assertThat(store.get(m.id())).as("the raw text's id is not stored").isEmpty();
            Memory stored = store.get(Redactor.standard().redact(m).memory().id()).orElseThrow();
            assertThat(stored.text()).isEqualTo("export GITHUB_TOKEN=[REDACTED:github-token] then push (1)");
            assertThat(stored.metadata()).containsEntry("gitBranch", "ci/[REDACTED:github-token]");
            assertThat(store.get("my-own-id").orElseThrow().text()).isEqualTo("the deploy token is [REDACTED:github-token]");
            assertThat(store.stats().redactions()).isEqualTo(Map.of("github-token", 3L));

            assertThat(store.add(m)).as("adding the same raw memory again is idempotent").isFalse();
            assertThat(store.search(SearchRequest.builder(TOKEN).limit(5).build()))
                    .allSatisfy(h -> assertThat(h.memory().text()).doesNotContain(TOKEN));

            assertThat(store.delete("my-own-id")).isTrue();
            assertThat(store.stats().redactions()).isEqualTo(Map.of("github-token", 2L));
        }
    }

    @Test
    void replaceSourceKeepsARedactedMemoryWhoseRawIdIsInKeep(@TempDir Path dir) {
        Memory m = withToken(1);
        Memory plain = Memory.builder(MemoryKind.EXCHANGE, "claude-code", "ran the tests").session("s1")
                .provenance(new Provenance(LOG, 2, 2, 200, 299, List.of())).build();
        SourceState source = new SourceState(LOG, 300, Instant.parse("2025-01-01T00:00:00Z"), 300, 2, "f", "claude-code",
                Instant.parse("2025-01-01T00:00:01Z"));
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.checkpoints().orElseThrow().replaceSource(List.of(m, plain), source, Set.of(m.id(), plain.id()));
            assertThat(store.stats().memories()).isEqualTo(2);
        }
    }

    @Test
    void theStoresRedactorCanHoldTheUsersRules(@TempDir Path dir) {
        Redactor rules = Redactor.builder().addRule("acme-token", Pattern.compile("acme_[a-z0-9]{16}")).build();
        Memory m = Memory.builder(MemoryKind.NOTE, "api", "use acme_0123456789abcdef for staging").build();
        try (MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().redactor(rules).build())) {
            store.add(m);
            assertThat(store.stats().redactions()).isEqualTo(Map.of("acme-token", 1L));
        }
    }

    @Test
    void migrationCountsThePlaceholdersAnOlderStoreHolds(@TempDir Path dir) throws Exception {
        Map<String, Long> counted;
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            store.add(withToken(1));
            store.add(Memory.builder(MemoryKind.NOTE, "api", "password: [REDACTED:password] and [REDACTED:not a type]")
                    .project("/p/[REDACTED:secret]").build());
            counted = store.stats().redactions();
        }
        assertThat(counted).isEqualTo(Map.of("github-token", 2L, "password", 1L, "secret", 1L));
        // Back to a version 1 store: no redactions or tombstones tables.
        OldStores.downgradeToVersion1(dir);
        try (MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(FunesStore.openReport(store).schemaVersionFound()).isEqualTo(1);
            assertThat(store.stats().redactions()).isEqualTo(counted);
        }
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("funes.db"));
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM tombstones")) {
            assertThat(rs.getInt(1)).isZero();
        }
    }
}
