package dev.funes.springai;

import dev.funes.MemoryStore;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.retrieval.search.VectorStoreDocumentRetriever;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Funes's hybrid search as Spring AI's DocumentRetriever, over memories read from a real log. */
class FunesDocumentRetrieverTest {

    @TempDir
    Path dir;
    private MemoryStore memory;

    @BeforeEach
    void open() {
        memory = FunesStore.open(dir, TestModel.embedder());
        Indexer.builder(memory).build().index(List.of(FunesVectorStoreTest.SAMPLE));
        FunesVectorStore.builder(memory, TestModel.embedder()).build().add(List.of(
                new Document("rule", "Team rule: ledger files are parsed in two passes; the streaming parser is retired.",
                        Map.of("kind", "convention", "project", "/home/dev/projects/ledger-sync"))));
    }

    @AfterEach
    void close() {
        memory.close();
    }

    private static Query query(String text) {
        return new Query(text);
    }

    @Test
    void retrievesMemoriesWithProvenanceBestFirstAtMostTopK() throws Exception {
        List<Document> found = FunesDocumentRetriever.builder(memory).topK(3).build().retrieve(query("streaming parser"));
        assertThat(found).hasSize(3);
        assertThat(found).extracting(Document::getScore).isSortedAccordingTo((a, b) -> Double.compare(b, a));
        Document fromLog = found.stream().filter(d -> d.getMetadata().containsKey("source")).findFirst().orElseThrow();
        int start = (Integer) fromLog.getMetadata().get("lineStart");
        int end = (Integer) fromLog.getMetadata().get("lineEnd");
        assertThat(Files.readAllLines(FunesVectorStoreTest.SAMPLE).subList(start - 1, end)).isNotEmpty();
        assertThat(memory.get(fromLog.getId())).isPresent();
        assertThat(FunesDocumentRetriever.builder(memory).build().retrieve(query("streaming parser")))
                .hasSize(FunesDocumentRetriever.DEFAULT_TOP_K);
    }

    @Test
    void aFilterExpressionSetHereOrInTheQueryContextSelectsTheMemories() {
        FunesDocumentRetriever conventions = FunesDocumentRetriever.builder(memory).topK(10)
                .filterExpression("kind == 'convention'").build();
        List<Document> rules = conventions.retrieve(query("how are ledger files parsed"));
        assertThat(rules).extracting(Document::getId).contains("rule");
        assertThat(rules).allSatisfy(d -> assertThat(d.getMetadata()).containsEntry("kind", "convention"));

        FunesDocumentRetriever any = FunesDocumentRetriever.builder(memory).topK(10).build();
        Query fromLogs = new Query("how are ledger files parsed", List.of(),
                Map.of(VectorStoreDocumentRetriever.FILTER_EXPRESSION, "agent == 'claude-code'"));
        List<Document> found = any.retrieve(fromLogs);
        assertThat(found).isNotEmpty().allSatisfy(d -> assertThat(d.getMetadata()).containsEntry("agent", "claude-code"));
        // The query's expression replaces the retriever's.
        assertThat(conventions.retrieve(fromLogs)).extracting(Document::getId).doesNotContain("rule").isNotEmpty();
    }

    @Test
    void theFileFilterKeepsMemoriesNamingTheFileAndBadInputIsRefused() {
        List<Document> all = FunesDocumentRetriever.builder(memory).topK(50).build().retrieve(query("parser"));
        List<Document> naming = FunesDocumentRetriever.builder(memory).topK(50).file("TwoPassLedgerParser.java").build()
                .retrieve(query("parser"));
        assertThat(naming).isNotEmpty().hasSizeLessThan(all.size()).allSatisfy(d -> assertThat(
                dev.funes.SearchRequest.namesFile(memory.get(d.getId()).orElseThrow(), "TwoPassLedgerParser.java")).isTrue());
        assertThat(FunesDocumentRetriever.builder(memory).topK(50).file("Nowhere.java").build().retrieve(query("parser")))
                .isEmpty();
        assertThatThrownBy(() -> FunesDocumentRetriever.builder(memory).file(" ")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FunesDocumentRetriever.builder(memory).topK(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topK must be between 1 and 1000");
        assertThatThrownBy(() -> FunesDocumentRetriever.builder(memory).filterExpression("active > true"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not order Booleans");
    }
}
