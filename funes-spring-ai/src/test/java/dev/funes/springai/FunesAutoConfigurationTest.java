package dev.funes.springai;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.springai.autoconfigure.FunesAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.ai.document.Document;
import org.springframework.ai.rag.Query;
import org.springframework.ai.rag.retrieval.search.DocumentRetriever;
import org.springframework.ai.vectorstore.SearchRequest;
import org.springframework.ai.vectorstore.VectorStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The Spring Boot auto-configuration, booted for real: a store on disk and the bundled ONNX model. */
class FunesAutoConfigurationTest {

    @TempDir
    Path dir;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(FunesAutoConfiguration.class));
    }

    @Test
    void bootListsTheAutoConfiguration() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
                .contains(FunesAutoConfiguration.class.getName());
    }

    @Test
    void aContextStartsAddsSearchesAndClosesTheStoreAndTheModelWithIt() {
        AtomicReference<MemoryStore> store = new AtomicReference<>();
        AtomicReference<Embedder> embedder = new AtomicReference<>();
        runner().withPropertyValues("funes.store.path=" + dir).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(VectorStore.class).hasSingleBean(DocumentRetriever.class);
            VectorStore vectorStore = context.getBean(VectorStore.class);
            assertThat(vectorStore).isInstanceOf(FunesVectorStore.class);
            vectorStore.add(List.of(
                    new Document("ci", "CI checks out the merge commit, not the branch head", Map.of("kind", "decision")),
                    new Document("cake", "The birthday cake needs three eggs", Map.of())));
            assertThat(vectorStore.similaritySearch(SearchRequest.builder().query("which commit does CI build").topK(1)
                    .filterExpression("kind == 'decision'").build())).extracting(Document::getId).containsExactly("ci");
            assertThat(context.getBean(DocumentRetriever.class).retrieve(new Query("which commit does CI build")))
                    .extracting(Document::getId).first().isEqualTo("ci");
            store.set(context.getBean(MemoryStore.class));
            embedder.set(context.getBean(Embedder.class));
            assertThat(embedder.get().modelId()).isEqualTo("all-minilm-l6-v2-q");
        });
        assertThatThrownBy(() -> store.get().get("ci")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> embedder.get().embedQuery("x")).isInstanceOf(IllegalStateException.class);

        // The documents are on disk: a new context finds them.
        runner().withPropertyValues("funes.store.path=" + dir).run(context -> assertThat(
                context.getBean(VectorStore.class).similaritySearch("merge commit")).extracting(Document::getId).contains("ci"));
    }

    @Test
    void funesModelChoosesANewStoresModelAndAnotherOneThanAStoresFailsTheStart() {
        runner().withPropertyValues("funes.store.path=" + dir, "funes.model=all-minilm-l6-v2-q")
                .run(context -> assertThat(context).hasNotFailed());
        runner().withPropertyValues("funes.store.path=" + dir, "funes.model=bge-small-en-v15-q").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("funes.model is bge-small-en-v15-q")
                        .hasMessageContaining("was built with all-minilm-l6-v2-q"));
    }

    @Test
    void theApplicationsOwnBeansWin() {
        runner().withPropertyValues("funes.store.path=" + dir)
                .withBean("myEmbedder", Embedder.class, TestModel::embedder, d -> d.setDestroyMethodName(""))
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Embedder.class);
                    assertThat(context.getBean(Embedder.class)).isSameAs(TestModel.embedder());
                    assertThat(context.getBean(VectorStore.class).similaritySearch("anything")).isEmpty();
                });
        assertThat(TestModel.embedder().embedQuery("still open")).hasSize(384);
    }
}
