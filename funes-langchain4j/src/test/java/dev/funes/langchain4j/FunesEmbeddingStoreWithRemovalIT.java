package dev.funes.langchain4j;

import dev.funes.MemoryStore;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.store.embedding.EmbeddingStore;
import dev.langchain4j.store.embedding.EmbeddingStoreWithRemovalIT;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/** LangChain4j's own {@link EmbeddingStoreWithRemovalIT}, unmodified, on a new Funes store per test. */
class FunesEmbeddingStoreWithRemovalIT extends EmbeddingStoreWithRemovalIT {

    @TempDir
    Path dir;
    private MemoryStore store;
    private FunesEmbeddingStore embeddingStore;

    @BeforeEach
    void openStore() {
        store = FunesStore.open(dir, TestModel.embedder());
        embeddingStore = FunesEmbeddingStore.of(store);
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
