package dev.funes.langchain4j;

import dev.funes.MemoryStore;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.store.embedding.EmbeddingStore;
import dev.langchain4j.store.embedding.EmbeddingStoreIT;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** LangChain4j's own {@link EmbeddingStoreIT}, unmodified, on a real Funes store per test and the bundled MiniLM. */
class FunesEmbeddingStoreIT extends EmbeddingStoreIT {

    @TempDir
    Path dir;
    private MemoryStore store;
    private FunesEmbeddingStore embeddingStore;

    @Override
    protected void ensureStoreIsReady() {
        store = FunesStore.open(dir, TestModel.embedder());
        embeddingStore = FunesEmbeddingStore.of(store);
    }

    @Override
    protected void clearStore() {
        embeddingStore.removeAll();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Override
    protected EmbeddingStore<TextSegment> embeddingStore() {
        return embeddingStore;
    }

    @Override
    protected EmbeddingModel embeddingModel() {
        return FunesEmbeddingModel.of(TestModel.embedder());
    }
}
