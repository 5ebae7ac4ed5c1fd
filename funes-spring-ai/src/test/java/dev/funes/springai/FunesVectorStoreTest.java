package dev.funes.springai;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.filter.Filter;
import org.springframework.ai.vectorstore.filter.FilterExpressionTextParser;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What the contract does not cover: the mapping onto Funes memories, fields and filters. */
class FunesVectorStoreTest {

    /** The project-written sample Claude Code session the examples use. */
    static final Path SAMPLE = Path.of("../examples/demo-session/sample-session.jsonl");

    @TempDir
    Path dir;
    private MemoryStore memory;
    private FunesVectorStore store;

    @BeforeEach
    void open() {
        memory = FunesStore.open(dir, TestModel.embedder());
        store = FunesVectorStore.builder(memory, TestModel.embedder()).build();
    }

    @AfterEach
    void close() {
        memory.close();
    }

    private List<Document> search(String query, String filter) {
        return store.similaritySearch(org.springframework.ai.vectorstore.SearchRequest.builder().query(query).topK(1000)
                .filterExpression(filter).build());
    }

    private List<Document> search(String query, Filter.Expression filter) {
        return store.similaritySearch(org.springframework.ai.vectorstore.SearchRequest.builder().query(query).topK(1000)
                .filterExpression(filter).build());
    }

    @Test
    void reservedKeysBecomeTheMemorysFieldsAndFunesOwnSearchFindsTheDocument() {
        Instant t = Instant.parse("2025-10-14T09:12:03.120Z");
        Map<String, Object> metadata = Map.of("project", "/home/dev/ledger", "agent", "my-agent", "session", "s-1",
                "kind", "decision", "timestamp", t.toEpochMilli(), "ratio", 0.25f, "count", 3, "done", false);
        store.add(List.of(new Document("d-1", "use a two-pass parser", metadata)));

        Memory m = memory.get("d-1").orElseThrow();
        assertThat(m.kind()).isEqualTo(MemoryKind.DECISION);
        assertThat(m.agent()).isEqualTo("my-agent");
        assertThat(m.project()).isEqualTo("/home/dev/ledger");
        assertThat(m.session()).isEqualTo("s-1");
        assertThat(m.startedAt()).isEqualTo(t);
        assertThat(memory.search(SearchRequest.builder("parser").agent("my-agent").kinds(MemoryKind.DECISION).build()))
                .extracting(h -> h.memory().id()).containsExactly("d-1");

        Document found = search("parser", (String) null).get(0);
        Map<String, Object> back = new HashMap<>(found.getMetadata());
        back.remove("distance");
        assertThat(back).isEqualTo(metadata);
        assertThat(back.get("ratio")).isInstanceOf(Float.class);
        assertThat(back.get("timestamp")).isInstanceOf(Long.class);
    }

    @Test
    void documentsWithoutAgentOrKindAreNotesOfTheDefaultAgent() {
        store.add(List.of(new Document("plain", "plain", Map.of()), new Document("odd", "odd kind", Map.of("kind", "Decision"))));
        assertThat(memory.get("plain").orElseThrow().agent()).isEqualTo(FunesVectorStore.DEFAULT_AGENT);
        assertThat(memory.get("odd").orElseThrow().kind()).isEqualTo(MemoryKind.NOTE);
        assertThat(search("odd", "kind == 'Decision'")).extracting(Document::getId).containsExactly("odd");
        assertThat(search("odd", "kind == 'note'")).isEmpty();
        FunesVectorStore mine = FunesVectorStore.builder(memory, TestModel.embedder()).defaultAgent("my-app").build();
        mine.add(List.of(new Document("mine", "mine", Map.of())));
        assertThat(memory.get("mine").orElseThrow().agent()).isEqualTo("my-app");
    }

    @Test
    void whatFunesCannotStoreIsRefusedNamingTheDocumentAndNothingOfTheBatchIsStored() {
        Document good = new Document("good", "good", Map.of());
        assertThatThrownBy(() -> store.add(List.of(good, new Document("listy", "x", Map.of("tags", List.of("a"))))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("document listy")
                .hasMessageContaining("'tags'").hasMessageContaining("java.util");
        assertThatThrownBy(() -> store.add(List.of(good, new Document("t", "x", Map.of("timestamp", 1.5e12)))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("document t")
                .hasMessageContaining("'timestamp' must be epoch milliseconds");
        assertThatThrownBy(() -> store.add(List.of(good, new Document("blank", " ", Map.of()))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("document blank has no text");
        assertThat(memory.stats().memories()).isZero();
        store.add(List.of());
        assertThat(memory.stats().memories()).isZero();
    }

    @Test
    void anEmbedderOfAnotherDimensionIsRefusedAndTheNativeClientIsTheFunesStore() {
        assertThat(store.<MemoryStore>getNativeClient()).isEqualTo(Optional.of(memory));
        assertThat(store.getName()).isEqualTo("FunesVectorStore");
        assertThatThrownBy(() -> FunesVectorStore.builder(memory, new dev.funes.Embedder() {
            public String modelId() {
                return "other";
            }

            public int dimension() {
                return 3;
            }

            public List<float[]> embedDocuments(List<String> texts) {
                throw new UnsupportedOperationException();
            }

            public float[] embedQuery(String query) {
                throw new UnsupportedOperationException();
            }

            public void close() {
            }
        }).build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 dimensions")
                .hasMessageContaining("holds 384");
    }

    @Test
    void memoriesReadFromLogsAreDocumentsWithProvenanceAndSqlFiltersNeverChangeAnAnswer() throws Exception {
        Indexer.builder(memory).build().index(List.of(SAMPLE));
        store.add(List.of(new Document("mine", "a note of my own about the streaming parser",
                Map.of("project", "/home/dev/projects/ledger-sync"))));
        List<Document> all = search("streaming parser", (String) null);
        assertThat(all).hasSizeGreaterThan(2);

        Document fromLog = all.stream().filter(d -> "exchange".equals(d.getMetadata().get("kind"))).findFirst().orElseThrow();
        Map<String, Object> meta = fromLog.getMetadata();
        assertThat(meta).containsEntry("agent", "claude-code").containsEntry("source", SAMPLE.toRealPath().toString());
        int start = (Integer) meta.get("lineStart");
        int end = (Integer) meta.get("lineEnd");
        List<String> cited = Files.readAllLines(SAMPLE).subList(start - 1, end);
        assertThat(String.join("\n", cited)).contains((String) meta.get("session"));
        long t = (Long) meta.get("timestamp");
        assertThat(t).isEqualTo(Instant.parse((String) meta.get("endedAt")).toEpochMilli());

        FilterExpressionTextParser parser = new FilterExpressionTextParser();
        List<Filter.Expression> filters = List.of(
                parser.parse("agent == 'claude-code'"),
                parser.parse("project == '/home/dev/projects/ledger-sync'"),
                parser.parse("kind IN ['summary', 'exchange']"),
                parser.parse("kind == 'note' && agent == 'spring-ai'"),
                // The text form reads a number beyond Integer only with an L suffix.
                parser.parse("timestamp >= " + t + "L"),
                parser.parse("timestamp > " + t + "L"),
                parser.parse("timestamp < " + t + "L"),
                new Filter.Expression(Filter.ExpressionType.LTE, new Filter.Key("timestamp"), new Filter.Value(t + 0.5)),
                parser.parse("timestamp > " + (t - 1) + "L && timestamp < " + (t + 1) + "L"),
                parser.parse("agent == 'claude-code' || agent == 'spring-ai'"),
                parser.parse("NOT(agent == 'claude-code')"),
                parser.parse("session == '" + meta.get("session") + "' && lineStart < " + (start + 1)),
                parser.parse("agent == 'claude-code' && agent == 'codex'"),
                new Filter.Expression(Filter.ExpressionType.LTE, new Filter.Key("timestamp"), new Filter.Value(new Date(t))),
                new Filter.Expression(Filter.ExpressionType.GT, new Filter.Key("timestamp"),
                        new Filter.Value(Instant.ofEpochMilli(t - 1))));
        int nonEmpty = 0;
        for (Filter.Expression filter : filters) {
            List<String> expected = all.stream().filter(d -> Expressions.test(filter, Documents.metadata(memory.get(d.getId()).orElseThrow())))
                    .map(Document::getId).toList();
            assertThat(search("streaming parser", filter)).as(filter.toString()).extracting(Document::getId)
                    .containsExactlyElementsOf(expected);
            nonEmpty += expected.isEmpty() ? 0 : 1;
        }
        assertThat(nonEmpty).as("filters that select something").isGreaterThan(8);
        // The default agent is the memory's field only: the document's own metadata has no agent.
        assertThat(search("streaming parser", "project == '/home/dev/projects/ledger-sync' && agent IS NULL"))
                .extracting(Document::getId).containsExactly("mine");
        assertThat(search("streaming parser", "agent == 'spring-ai'")).isEmpty();
    }

    @Test
    void deleteByFilterRemovesLogMemoriesToo() {
        Indexer.builder(memory).build().index(List.of(SAMPLE));
        store.add(List.of(new Document("keep", "keep me", Map.of())));
        long before = memory.stats().memories();
        store.delete("agent == 'claude-code'");
        assertThat(memory.stats().memories()).isEqualTo(1).isLessThan(before);
        assertThat(memory.get("keep")).isPresent();
        assertThatThrownBy(() -> store.delete(List.of("keep", " "))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be null or blank");
        assertThat(memory.get("keep")).isPresent();
    }
}
