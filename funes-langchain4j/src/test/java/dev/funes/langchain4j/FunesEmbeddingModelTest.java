package dev.funes.langchain4j;

import dev.funes.Embedder;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The adapter gives LangChain4j exactly the vectors of the Funes embedder. */
class FunesEmbeddingModelTest {

    private final Embedder embedder = TestModel.embedder();

    @Test
    void documentsAndQueriesAreTheEmbeddersVectors() {
        List<String> texts = List.of("CI checks out the merge commit", "two-pass parser");
        List<Embedding> documents = FunesEmbeddingModel.of(embedder)
                .embedAll(texts.stream().map(TextSegment::from).toList()).content();
        List<float[]> expected = embedder.embedDocuments(texts);
        assertThat(documents).hasSize(2);
        assertThat(documents.get(0).vector()).containsExactly(expected.get(0));
        assertThat(documents.get(1).vector()).containsExactly(expected.get(1));

        assertThat(FunesEmbeddingModel.forQueries(embedder).embed("which commit does CI test?").content().vector())
                .containsExactly(embedder.embedQuery("which commit does CI test?"));
        assertThat(FunesEmbeddingModel.of(embedder).embedAll(List.of()).content()).isEmpty();
    }

    @Test
    void dimensionAndNameComeFromTheEmbedderWithoutEmbedding() {
        FunesEmbeddingModel model = FunesEmbeddingModel.of(embedder);
        assertThat(model.dimension()).isEqualTo(384);
        assertThat(model.modelName()).isEqualTo(embedder.modelId()).isEqualTo("all-minilm-l6-v2-q");
    }
}
