package com.example.memory;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import dev.funes.langchain4j.FunesContentRetriever;
import dev.funes.langchain4j.FunesEmbeddingStore;
import dev.funes.langchain4j.LangChain4jEmbedder;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.rag.content.retriever.ContentRetriever;
import dev.langchain4j.store.embedding.EmbeddingStore;
import java.nio.file.Path;
import java.util.List;

/**
 * The memory of a LangChain4j agent: a Funes store embedded by the application's own LangChain4j
 * {@link EmbeddingModel}, holding the agent's past session logs and the notes it is given.
 */
public final class AgentMemory implements AutoCloseable {

    private final EmbeddingModel model;
    private final Embedder embedder;
    private final MemoryStore store;
    private final EmbeddingStore<TextSegment> notes;

    /**
     * Opens (or creates) the store in {@code storeDir}. {@code modelId} names the model for good:
     * the store records it and refuses to open later with another one.
     */
    public AgentMemory(Path storeDir, EmbeddingModel model, String modelId) {
        this.model = model;
        this.embedder = LangChain4jEmbedder.builder(model, modelId).build();
        this.store = FunesStore.open(storeDir, embedder);
        this.notes = FunesEmbeddingStore.of(store);
    }

    /** Reads a folder of agent session logs (Claude Code, Codex, ...); unchanged files are skipped. */
    public IndexReport indexLogs(Path folder) {
        return Indexer.builder(store).build().index(List.of(folder));
    }

    /** Stores a note through LangChain4j's {@link EmbeddingStore} API and returns its id. */
    public String remember(String text, Metadata metadata) {
        TextSegment note = TextSegment.from(text, metadata);
        return notes.add(model.embed(note).content(), note);
    }

    /** LangChain4j's view of the store: entries are the notes and the memories read from logs. */
    public EmbeddingStore<TextSegment> embeddingStore() {
        return notes;
    }

    /** Funes's hybrid search (vectors and keywords) as a retriever for a RetrievalAugmentor or an AI service. */
    public ContentRetriever retriever(int maxResults) {
        return FunesContentRetriever.builder(store).maxResults(maxResults).build();
    }

    @Override
    public void close() {
        try {
            store.close();
        } finally {
            embedder.close();
        }
    }
}
