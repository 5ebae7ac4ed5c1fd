package dev.funes.langchain4j;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import dev.langchain4j.store.embedding.filter.Filter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the LangChain4j suites do not cover: the mapping onto Funes memories and filters. */
class FunesEmbeddingStoreTest {

    /** The project-written sample Claude Code session the examples use. */
    static final Path SAMPLE = Path.of("../examples/demo-session/sample-session.jsonl");

    @TempDir
    Path dir;
    private MemoryStore store;
    private FunesEmbeddingStore embeddingStore;
    private final EmbeddingModel model = FunesEmbeddingModel.of(TestModel.embedder());

    @BeforeEach
    void open() {
        store = FunesStore.open(dir, TestModel.embedder());
        embeddingStore = FunesEmbeddingStore.of(store);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private String add(String text, Metadata metadata) {
        TextSegment segment = TextSegment.from(text, metadata);
        return embeddingStore.add(model.embed(segment).content(), segment);
    }

    private List<EmbeddingMatch<TextSegment>> search(String query, Filter filter) {
        return embeddingStore.search(EmbeddingSearchRequest.builder().queryEmbedding(model.embed(query).content())
                .maxResults(1000).filter(filter).build()).matches();
    }

    @Test
    void reservedKeysBecomeTheMemorysFieldsAndTheMetadataComesBackWithItsTypes() {
        Instant t = Instant.parse("2025-10-14T09:12:03.120Z");
        Metadata metadata = new Metadata(Map.of("project", "/home/dev/ledger", "agent", "my-agent", "session", "s-1",
                "kind", "decision", "timestamp", t.toEpochMilli(), "ratio", 0.25f, "count", 3));
        String id = add("use a two-pass parser", metadata);

        Memory memory = store.get(id).orElseThrow();
        assertThat(memory.kind()).isEqualTo(MemoryKind.DECISION);
        assertThat(memory.agent()).isEqualTo("my-agent");
        assertThat(memory.project()).isEqualTo("/home/dev/ledger");
        assertThat(memory.session()).isEqualTo("s-1");
        assertThat(memory.startedAt()).isEqualTo(t);
        assertThat(memory.provenance()).isNull();
        // Funes's own hybrid search finds it with Funes filters.
        assertThat(store.search(SearchRequest.builder("parser").agent("my-agent").kinds(MemoryKind.DECISION).build()))
                .extracting(h -> h.memory().id()).containsExactly(id);

        EmbeddingMatch<TextSegment> match = search("parser", null).get(0);
        assertThat(match.embedded()).isEqualTo(TextSegment.from("use a two-pass parser", metadata));
        assertThat(match.embedded().metadata().getFloat("ratio")).isEqualTo(0.25f);
        assertThat(match.embedded().metadata().getInteger("count")).isEqualTo(3);
    }

    @Test
    void entriesWithoutAgentOrKindAreNotesOfTheDefaultAgentAndAKindThatIsNoLabelStaysMetadata() {
        String plain = add("plain", new Metadata());
        String odd = add("odd kind", Metadata.from("kind", "Decision"));
        assertThat(store.get(plain).orElseThrow().agent()).isEqualTo(FunesEmbeddingStore.DEFAULT_AGENT);
        assertThat(store.get(plain).orElseThrow().kind()).isEqualTo(MemoryKind.NOTE);
        assertThat(store.get(odd).orElseThrow().kind()).isEqualTo(MemoryKind.NOTE);
        assertThat(search("odd", metadataKey("kind").isEqualTo("Decision"))).extracting(EmbeddingMatch::embeddingId)
                .containsExactly(odd);
        assertThat(search("odd", metadataKey("kind").isEqualTo("note"))).isEmpty();
    }

    @Test
    void aTimestampThatIsNotEpochMillisecondsIsRefusedAndNothingIsStored() {
        Embedding e = model.embed("x").content();
        TextSegment good = TextSegment.from("good", new Metadata().put("timestamp", 5L));
        TextSegment bad = TextSegment.from("bad", new Metadata().put("timestamp", 1.5e12));
        assertThatThrownBy(() -> embeddingStore.addAll(List.of(e, e), List.of(good, bad)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'timestamp' must be epoch milliseconds").hasMessageContaining("Double");
        assertThatThrownBy(() -> embeddingStore.add(e, TextSegment.from("far", new Metadata().put("timestamp", "999999999999999999"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside years 0 to 9999");
        assertThatThrownBy(() -> embeddingStore.add(e, TextSegment.from("far", new Metadata().put("timestamp", Long.MAX_VALUE))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside years 0 to 9999");
        assertThat(store.stats().memories()).isZero();
    }

    @Test
    void aStringTimestampIsReadAsATimeOrKeptAsMetadata() {
        String iso = add("iso", new Metadata().put("timestamp", "2026-12-04T10:15:30Z"));
        String offset = add("offset", new Metadata().put("timestamp", "2026-12-04T11:15:30+01:00"));
        String date = add("date", new Metadata().put("timestamp", "2026-12-04"));
        String digits = add("digits", new Metadata().put("timestamp", "1764843330000"));
        String words = add("words", new Metadata().put("timestamp", "yesterday afternoon"));

        Instant t = Instant.parse("2026-12-04T10:15:30Z");
        assertThat(store.get(iso).orElseThrow().startedAt()).isEqualTo(t);
        assertThat(store.get(offset).orElseThrow().endedAt()).isEqualTo(t);
        assertThat(store.get(date).orElseThrow().startedAt()).isEqualTo(Instant.parse("2026-12-04T00:00:00Z"));
        assertThat(store.get(digits).orElseThrow().startedAt()).isEqualTo(Instant.ofEpochMilli(1764843330000L));
        assertThat(store.get(words).orElseThrow().startedAt()).isNull();
        // What was given comes back as given, a String.
        assertThat(embeddingStore.search(EmbeddingSearchRequest.builder().queryEmbedding(model.embed("words").content())
                .maxResults(5).build()).matches()).filteredOn(m -> m.embeddingId().equals(words)).singleElement()
                .satisfies(m -> assertThat(m.embedded().metadata().getString("timestamp")).isEqualTo("yesterday afternoon"));
    }

    @Test
    void whatIsAddedIsRedactedLikeEveryMemoryTheStoreTakes() {
        String token = "gh" + "p_" + "Zq8vX2mL4rT7wY1bN5cK9dF3hJ6gP0sA2eQx";
        String id = add("CI reads GITHUB_TOKEN=" + token, Metadata.from("agent", "bot " + token).put("note", token));
        Memory stored = store.get(id).orElseThrow();
        assertThat(stored.text()).isEqualTo("CI reads GITHUB_TOKEN=[REDACTED:github-token]");
        assertThat(stored.agent()).doesNotContain(token);
        assertThat(stored.metadata().values()).noneMatch(v -> v.contains(token));
    }

    @Test
    void addingAnIdAgainReplacesTheEntry() {
        Embedding e1 = model.embed("first").content();
        Embedding e2 = model.embed("second").content();
        embeddingStore.add("fixed-id", e1);
        embeddingStore.addAll(List.of("fixed-id"), List.of(e2), List.of(TextSegment.from("second")));
        List<EmbeddingMatch<TextSegment>> all = search("second", null);
        assertThat(all).hasSize(1);
        assertThat(all.get(0).embedded().text()).isEqualTo("second");
        assertThat(all.get(0).embedding()).isEqualTo(e2);
    }

    @Test
    void vectorsOfTheWrongSizeAreRefused() {
        float[] small = {1, 2, 3};
        assertThatThrownBy(() -> embeddingStore.search(EmbeddingSearchRequest.builder()
                .queryEmbedding(Embedding.from(small)).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("query vector has 3 dimensions");
        assertThatThrownBy(() -> embeddingStore.add(Embedding.from(new float[] {1, 2, 3})))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("384");
    }

    @Test
    void memoriesReadFromLogsAreEntriesWithTheirProvenanceAndFunesFiltersGiveExactlyTheFiltersAnswer() throws Exception {
        Indexer.builder(store).build().index(List.of(SAMPLE));
        add("a note of my own", Metadata.from("project", "/home/dev/projects/ledger-sync"));
        List<EmbeddingMatch<TextSegment>> all = search("streaming parser", null);
        assertThat(all).hasSizeGreaterThan(1);

        EmbeddingMatch<TextSegment> fromLog = all.stream()
                .filter(m -> "exchange".equals(m.embedded().metadata().getString("kind"))).findFirst().orElseThrow();
        Metadata meta = fromLog.embedded().metadata();
        assertThat(meta.getString("agent")).isEqualTo("claude-code");
        assertThat(meta.getString("source")).isEqualTo(SAMPLE.toRealPath().toString());
        int start = meta.getInteger("lineStart");
        int end = meta.getInteger("lineEnd");
        List<String> cited = Files.readAllLines(SAMPLE).subList(start - 1, end);
        assertThat(String.join("\n", cited)).contains(meta.getString("session"));
        assertThat(meta.getLong("timestamp")).isEqualTo(Instant.parse(meta.getString("endedAt")).toEpochMilli());
        assertThat(store.get(fromLog.embeddingId())).isPresent();

        long t = meta.getLong("timestamp");
        List<Filter> filters = List.of(
                metadataKey("agent").isEqualTo("claude-code"),
                metadataKey("project").isEqualTo("/home/dev/projects/ledger-sync"),
                metadataKey("kind").isIn("summary", "exchange"),
                metadataKey("kind").isEqualTo("note").and(metadataKey("agent").isEqualTo("langchain4j")),
                metadataKey("timestamp").isGreaterThanOrEqualTo(t),
                metadataKey("timestamp").isGreaterThan(t),
                metadataKey("timestamp").isLessThan(t),
                metadataKey("timestamp").isLessThanOrEqualTo((double) t + 0.5),
                metadataKey("timestamp").isGreaterThan(t - 1).and(metadataKey("timestamp").isLessThan(t + 1)),
                metadataKey("agent").isEqualTo("claude-code").or(metadataKey("agent").isEqualTo("langchain4j")),
                Filter.not(metadataKey("agent").isEqualTo("claude-code")),
                metadataKey("session").isEqualTo(meta.getString("session")).and(metadataKey("lineStart").isLessThan(start + 1)),
                metadataKey("agent").isEqualTo("claude-code").and(metadataKey("agent").isEqualTo("codex")));
        for (Filter filter : filters) {
            List<String> expected = all.stream().filter(m -> filter.test(m.embedded().metadata()))
                    .map(EmbeddingMatch::embeddingId).toList();
            assertThat(search("streaming parser", filter)).as(filter.toString())
                    .extracting(EmbeddingMatch::embeddingId).containsExactlyElementsOf(expected);
        }
    }

    @Test
    void removeAllByFilterRemovesLogMemoriesToo() {
        Indexer.builder(store).build().index(List.of(SAMPLE));
        String mine = add("keep me", new Metadata());
        long before = store.stats().memories();
        embeddingStore.removeAll(metadataKey("agent").isEqualTo("claude-code"));
        assertThat(store.stats().memories()).isEqualTo(1).isLessThan(before);
        assertThat(store.get(mine)).isPresent();
        assertThat(store.recentSessions(10)).isEmpty();
        embeddingStore.removeAll();
        assertThat(store.stats().memories()).isZero();
        assertThat(store.stats().vectors()).isZero();
    }
}
