package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The Indexer stores each exchange's decisions, conventions and lookups with it, redacted. */
class IndexerClassifyTest {

    // Assembled at run time, so no file holds a secret-shaped value.
    private static final String GITHUB = "ghp" + "_" + "Xb3kQ9mZ2vL7pW4nR8tY1uC6dF0gH5jK2sA9";

    @TempDir
    Path tmp;

    private Path session() {
        return Records.write(tmp.resolve("p").resolve(Records.SESSION + ".jsonl"), List.of(
                Records.request(1, "Please use the deploy token " + GITHUB + " for CI. Always run the linter before pushing."),
                Records.answer(2, "msg_1", "I switched CI to the token " + GITHUB + " instead of the old password, because it expires.")));
    }

    @Test
    void derivedMemoriesAreStoredWithTheirExchangeWithoutTheSecret() {
        InMemoryStore store = new InMemoryStore();
        IndexReport report = Indexer.builder(store).passages(false).build().index(List.of(session()));

        assertThat(report.problems()).isEmpty();
        Memory exchange = store.all().stream().filter(m -> m.kind() == MemoryKind.EXCHANGE).findFirst().orElseThrow();
        Memory decision = only(store, MemoryKind.DECISION);
        Memory convention = only(store, MemoryKind.CONVENTION);
        for (Memory m : List.of(decision, convention)) {
            assertThat(m.text() + m.metadata()).doesNotContain(GITHUB);
            assertThat(m.metadata()).containsEntry("derivedFrom", exchange.id());
        }
        assertThat(decision.text()).isEqualTo("Decision (assistant): I switched CI to the token [REDACTED:github-token]"
                + " instead of the old password, because it expires.");
        assertThat(decision.provenance().lineStart()).isEqualTo(2);
        assertThat(convention.text()).contains("Always run the linter before pushing.");
        // One batch, with the checkpoint: the derived memories went in with their exchange.
        assertThat(store.calls).hasSize(1);
        assertThat(store.calls.get(0).memories()).isEqualTo(3);
        assertThat(report.memoriesAdded()).isEqualTo(3);
    }

    @Test
    void readingTheLogAgainKeepsTheDerivedMemories() throws Exception {
        InMemoryStore store = new InMemoryStore();
        Indexer indexer = Indexer.builder(store).passages(false).build();
        Path log = session();
        indexer.index(List.of(log));
        List<String> before = store.all().stream().map(Memory::id).sorted().toList();

        // A changed modification time makes the indexer read the whole file again and replace what it gave.
        Files.setLastModifiedTime(log, FileTime.from(Instant.parse("2030-01-01T00:00:00Z")));
        IndexReport again = indexer.index(List.of(log));

        assertThat(again.filesIndexed()).isEqualTo(1);
        assertThat(store.all().stream().map(Memory::id).sorted().toList()).isEqualTo(before);
        assertThat(store.all()).extracting(Memory::kind)
                .contains(MemoryKind.DECISION, MemoryKind.CONVENTION, MemoryKind.EXCHANGE);
    }

    @Test
    void classificationCanBeTurnedOff() {
        InMemoryStore store = new InMemoryStore();
        Indexer.builder(store).passages(false).classify(false).build().index(List.of(session()));
        assertThat(store.all()).extracting(Memory::kind).containsOnly(MemoryKind.EXCHANGE);
    }

    @Test
    void aRuleDeepInALongRequestIsAConventionWhenPassagesKeepItWhole() {
        String filler = "The parser reads the manifest, then the lock file, then each module in turn. ".repeat(30);
        Path log = Records.write(tmp.resolve("long").resolve(Records.SESSION + ".jsonl"), List.of(
                Records.request(1, "Always run the linter first. " + filler
                        + "Never commit the generated client with the token " + GITHUB + ". " + filler),
                Records.answer(2, "msg_1", "Understood.")));

        // The exchange keeps the request's head and tail: the rule in its middle is cut.
        InMemoryStore rendered = new InMemoryStore();
        Indexer.builder(rendered).passages(false).build().index(List.of(log));
        assertThat(rendered.all()).filteredOn(m -> m.kind() == MemoryKind.CONVENTION)
                .extracting(Memory::text).containsExactly("Convention (user): Always run the linter first.");

        // With passages the record is read whole: the rule is found, redacted, once; the head's rule too, once.
        InMemoryStore store = new InMemoryStore();
        IndexReport report = Indexer.builder(store).build().index(List.of(log));
        assertThat(report.problems()).isEmpty();
        Memory exchange = store.all().stream().filter(m -> m.kind() == MemoryKind.EXCHANGE).findFirst().orElseThrow();
        List<Memory> conventions = store.all().stream().filter(m -> m.kind() == MemoryKind.CONVENTION).toList();
        assertThat(conventions).extracting(Memory::text).containsExactlyInAnyOrder(
                "Convention (user): Always run the linter first.",
                "Convention (user): Never commit the generated client with the token [REDACTED:github-token].");
        for (Memory c : conventions) {
            assertThat(c.metadata()).containsEntry("derivedFrom", exchange.id()).containsEntry("speaker", "user")
                    .doesNotContainKeys(Memory.PASSAGE_OF, Passages.HEADER_KEY);
            assertThat(c.provenance().lineStart()).isEqualTo(1);
        }
        assertThat(store.all()).allSatisfy(m -> assertThat(m.text() + m.metadata()).doesNotContain(GITHUB));
    }

    private static Memory only(InMemoryStore store, MemoryKind kind) {
        List<Memory> found = store.all().stream().filter(m -> m.kind() == kind).toList();
        assertThat(found).hasSize(1);
        return found.get(0);
    }
}
