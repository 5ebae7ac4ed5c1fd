package dev.funes.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.funes.FunesException;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.output.Response;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A LangChain4j model as Funes's embedder: the models here are LangChain4j {@link EmbeddingModel}s
 * over the real bundled MiniLM (through {@link FunesEmbeddingModel}, or reshaping its vectors), so
 * the vectors can be compared with the embedder's own.
 */
class LangChain4jEmbedderTest {

    private static final String ID = "langchain4j:minilm-test";
    private final Embedder minilm = TestModel.embedder();

    @Test
    void documentVectorsAreTheModelsAndQueriesGetThePrefix() {
        Embedder embedder = LangChain4jEmbedder.builder(FunesEmbeddingModel.of(minilm), ID)
                .queryPrefix("query: ").build();
        assertThat(embedder.modelId()).isEqualTo(ID);
        assertThat(embedder.dimension()).isEqualTo(384);

        List<String> texts = List.of("CI checks out the merge commit", "the two-pass ledger parser");
        List<float[]> vectors = embedder.embedDocuments(texts);
        List<float[]> expected = minilm.embedDocuments(texts);
        assertThat(vectors).hasSize(2);
        assertClose(vectors.get(0), expected.get(0));
        assertClose(vectors.get(1), expected.get(1));
        assertThat(embedder.embedDocuments(List.of())).isEmpty();

        assertClose(embedder.embedQuery("which commit does CI test?"),
                minilm.embedDocuments(List.of("query: which commit does CI test?")).get(0));
    }

    @Test
    void unnormalizedVectorsAreNormalized() {
        Embedder embedder = LangChain4jEmbedder.builder(reshaped(v -> scaled(v, 3.5f)), ID).dimension(384).build();
        float[] vector = embedder.embedDocuments(List.of("a parser that reads twice")).get(0);
        assertThat(norm(vector)).isCloseTo(1.0, within(1e-5));
        assertClose(vector, minilm.embedDocuments(List.of("a parser that reads twice")).get(0));
    }

    @Test
    void aModelThatMisbehavesGetsAnErrorNamingIt() {
        Embedder shorter = LangChain4jEmbedder.builder(reshaped(v -> java.util.Arrays.copyOf(v, 100)), ID)
                .dimension(384).build();
        assertThatThrownBy(() -> shorter.embedDocuments(List.of("text")))
                .isInstanceOf(EmbeddingException.class).hasMessageContaining(ID).hasMessageContaining("dimension 100");
        Embedder zero = LangChain4jEmbedder.builder(reshaped(v -> new float[v.length]), ID).dimension(384).build();
        assertThatThrownBy(() -> zero.embedQuery("text"))
                .isInstanceOf(EmbeddingException.class).hasMessageContaining(ID).hasMessageContaining("zero");
        EmbeddingModel failing = model(segments -> {
            throw new IllegalStateException("service unavailable");
        });
        Embedder broken = LangChain4jEmbedder.builder(failing, ID).dimension(384).build();
        assertThatThrownBy(() -> broken.embedDocuments(List.of("text")))
                .isInstanceOf(EmbeddingException.class).hasMessageContaining(ID).hasMessageContaining("service unavailable");
        assertThatThrownBy(() -> LangChain4jEmbedder.builder(failing, " "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("model id");

        Embedder closed = LangChain4jEmbedder.builder(FunesEmbeddingModel.of(minilm), ID).build();
        closed.close();
        assertThatThrownBy(() -> closed.embedQuery("text")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aStoreBuiltWithItIndexesSearchesAndKeepsItsModelId(@TempDir Path dir) {
        try (Embedder embedder = LangChain4jEmbedder.builder(FunesEmbeddingModel.of(minilm), ID).build();
             MemoryStore store = FunesStore.open(dir, embedder)) {
            assertThat(Indexer.builder(store).build().index(List.of(FunesEmbeddingStoreTest.SAMPLE)).memoriesAdded())
                    .isPositive();
            List<SearchHit> hits = store.search(SearchRequest.builder("transfer refers to unknown account").limit(3).build());
            assertThat(hits).isNotEmpty();
            assertThat(hits.get(0).memory().text()).contains("ACC-2231");
        }
        assertThat(FunesStore.recordedModelId(dir)).contains(ID);
        Embedder other = LangChain4jEmbedder.builder(FunesEmbeddingModel.of(minilm), "langchain4j:another").build();
        assertThatThrownBy(() -> FunesStore.open(dir, other).close())
                .isInstanceOf(FunesException.class).hasMessageContaining(ID);
    }

    /** A LangChain4j model giving MiniLM's vectors reshaped by {@code change}. */
    private EmbeddingModel reshaped(UnaryOperator<float[]> change) {
        return model(segments -> minilm.embedDocuments(segments.stream().map(TextSegment::text).toList())
                .stream().map(v -> Embedding.from(change.apply(v))).toList());
    }

    /** A LangChain4j model embedding with {@code embed} (the interface has no abstract method to lambda). */
    private static EmbeddingModel model(java.util.function.Function<List<TextSegment>, List<Embedding>> embed) {
        return new EmbeddingModel() {
            @Override
            public Response<List<Embedding>> embedAll(List<TextSegment> segments) {
                return Response.from(embed.apply(segments));
            }
        };
    }

    private static float[] scaled(float[] vector, float factor) {
        float[] out = vector.clone();
        for (int i = 0; i < out.length; i++) {
            out[i] *= factor;
        }
        return out;
    }

    private static double norm(float[] vector) {
        double sum = 0;
        for (float v : vector) {
            sum += (double) v * v;
        }
        return Math.sqrt(sum);
    }

    private static void assertClose(float[] actual, float[] expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < actual.length; i++) {
            assertThat(actual[i]).as("component %d", i).isCloseTo(expected[i], within(1e-5f));
        }
    }
}
