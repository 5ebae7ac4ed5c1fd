package com.example.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.springai.FunesVectorStore;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application boots with Funes as its vector store, on a store of its own. */
@SpringBootTest
class TeamNotesTest {

    @TempDir
    static Path store;

    @DynamicPropertySource
    static void funesStore(DynamicPropertyRegistry registry) {
        registry.add("funes.store.path", store::toString);
    }

    @Autowired
    VectorStore vectorStore;

    @Autowired
    TeamNotes notes;

    @Test
    void addsNotesThroughTheVectorStoreAndFindsThemAgain() {
        assertThat(vectorStore).isInstanceOf(FunesVectorStore.class);
        notes.add("ledger-parser", "Ledger files are parsed in two passes; the streaming parser is retired.", "ledger");
        notes.add("ledger-import", "The nightly ledger import runs at two in the morning.", "ledger");
        notes.add("web-parser", "The web client parses JSON responses with a streaming parser.", "web");

        // Similarity search within one team: the filter keeps the web note out.
        assertThat(notes.search("ledger", "which parser reads ledger files?"))
                .extracting(Document::getId).containsExactly("ledger-parser", "ledger-import");
        // Hybrid search over the whole store.
        assertThat(notes.recall("streaming parser retired")).extracting(Document::getId).first().isEqualTo("ledger-parser");
    }
}
