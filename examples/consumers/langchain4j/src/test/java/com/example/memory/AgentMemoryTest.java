package com.example.memory;

import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.query.Query;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentMemoryTest {

    /** The sample session of the Funes repository: 16 log lines about replacing a parser. */
    static final Path SAMPLE = Path.of("../../demo-session");

    @Test
    void retrievesLogMemoriesAndNotesEmbeddedByTheApplicationsModel(@TempDir Path storeDir) {
        EmbeddingModel model = new AllMiniLmL6V2QuantizedEmbeddingModel();
        try (AgentMemory memory = new AgentMemory(storeDir, model, "langchain4j:all-minilm-l6-v2-q")) {
            assertTrue(memory.indexLogs(SAMPLE).memoriesAdded() > 0);
            String noteId = memory.remember("Team rule: ledger files are parsed in two passes.",
                    Metadata.from("kind", "convention").put("author", "team"));

            // The retriever answers from the log, citing the file and lines each memory came from:
            // the best passage names the parser and why it failed, the answer holds its replacement.
            List<Content> answer = memory.retriever(3).retrieve(Query.from("Why did we stop using the streaming ledger parser?"));
            TextSegment best = answer.get(0).textSegment();
            assertTrue(best.text().contains("StreamingLedgerParser"), best.text());
            assertTrue(answer.stream().anyMatch(c -> c.textSegment().text().contains("two-pass")), answer.toString());
            assertTrue(best.metadata().getString("source").endsWith("sample-session.jsonl"));
            assertTrue(best.metadata().getInteger("lineStart") >= 1);

            // The EmbeddingStore finds the note by vector, with a LangChain4j filter on its metadata.
            List<EmbeddingMatch<TextSegment>> notes = memory.embeddingStore().search(EmbeddingSearchRequest.builder()
                    .queryEmbedding(model.embed("how are ledger files parsed?").content())
                    .filter(metadataKey("author").isEqualTo("team"))
                    .build()).matches();
            assertEquals(1, notes.size());
            assertEquals(noteId, notes.get(0).embeddingId());
        }
    }
}
