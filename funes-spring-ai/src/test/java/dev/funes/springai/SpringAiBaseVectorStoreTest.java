package dev.funes.springai;

import dev.funes.MemoryStore;
import dev.funes.store.FunesStore;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.test.vectorstore.BaseVectorStoreTests;
import org.springframework.ai.vectorstore.VectorStore;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Spring AI's own vector-store contract ({@code BaseVectorStoreTests} of
 * {@code spring-ai-test:2.0.1}: delete by id, by filter expression and by its text), run
 * unmodified on a new Funes store with the real MiniLM model for each test.
 */
class SpringAiBaseVectorStoreTest extends BaseVectorStoreTests {

    @TempDir
    Path dir;

    @Override
    protected void executeTest(Consumer<VectorStore> test) {
        try (MemoryStore memory = FunesStore.open(dir, TestModel.embedder())) {
            test.accept(FunesVectorStore.builder(memory, TestModel.embedder()).build());
        }
    }
}
