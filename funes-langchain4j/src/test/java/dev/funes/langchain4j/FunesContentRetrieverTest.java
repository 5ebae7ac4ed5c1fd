package dev.funes.langchain4j;

import dev.funes.MemoryStore;
import dev.funes.ingest.Indexer;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.document.Metadata;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.rag.content.ContentMetadata;
import dev.langchain4j.rag.query.Query;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static dev.langchain4j.store.embedding.filter.MetadataFilterBuilder.metadataKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link FunesContentRetriever} over real logs indexed into a real store. */
class FunesContentRetrieverTest {

    @TempDir
    Path dir;
    private MemoryStore store;

    @BeforeEach
    void open() {
        store = FunesStore.open(dir, TestModel.embedder());
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void answersWithTheMemoryItsScoreItsIdAndTheLinesItCameFrom() throws Exception {
        Indexer.builder(store).build().index(List.of(FunesEmbeddingStoreTest.SAMPLE));
        List<Content> contents = FunesContentRetriever.builder(store).maxResults(2).build()
                .retrieve(Query.from("why did we move away from the streaming parser?"));

        assertThat(contents).hasSize(2);
        Content best = contents.get(0);
        assertThat(best.textSegment().text()).contains("two-pass");
        Metadata meta = best.textSegment().metadata();
        Path source = Path.of(meta.getString("source"));
        assertThat(source).isEqualTo(FunesEmbeddingStoreTest.SAMPLE.toRealPath());
        List<String> cited = Files.readAllLines(source, StandardCharsets.UTF_8)
                .subList(meta.getInteger("lineStart") - 1, meta.getInteger("lineEnd"));
        assertThat(String.join("\n", cited)).contains("two-pass");
        assertThat(meta.getString("agent")).isEqualTo("claude-code");
        assertThat(store.get((String) best.metadata().get(ContentMetadata.EMBEDDING_ID))).isPresent();
        assertThat((Double) best.metadata().get(ContentMetadata.SCORE))
                .isGreaterThanOrEqualTo((Double) contents.get(1).metadata().get(ContentMetadata.SCORE));
    }

    @Test
    void filtersApplyExactlyAndEmbeddingsWithoutTextAreNeverReturned() {
        FunesEmbeddingStore embeddingStore = FunesEmbeddingStore.of(store);
        FunesEmbeddingModel model = FunesEmbeddingModel.of(TestModel.embedder());
        TextSegment a = TextSegment.from("the release checklist lives in docs/RELEASE.md", Metadata.from("team", "infra"));
        TextSegment b = TextSegment.from("the release is cut every second Tuesday", Metadata.from("team", "product"));
        embeddingStore.addAll(List.of(model.embed(a).content(), model.embed(b).content()), List.of(a, b));
        // Shares the placeholder's words; must not come back as content.
        embeddingStore.add(model.embed("release").content());

        List<Content> all = FunesContentRetriever.builder(store).build().retrieve(Query.from("release stored through LangChain4j"));
        assertThat(all).extracting(Content::textSegment).containsExactlyInAnyOrder(a, b);

        List<Content> infra = FunesContentRetriever.builder(store).filter(metadataKey("team").isEqualTo("infra")).build()
                .retrieve(Query.from("when is the release"));
        assertThat(infra).extracting(Content::textSegment).containsExactly(a);

        assertThat(FunesContentRetriever.builder(store).filter(metadataKey("agent").isEqualTo("x")
                .and(metadataKey("agent").isEqualTo("y"))).build().retrieve(Query.from("release"))).isEmpty();
        assertThatThrownBy(() -> FunesContentRetriever.builder(store).maxResults(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void findsTheWrongBranchExchangeInTheRealClaudeCodeLogs() throws Exception {
        Path fixtures = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("fixtures/claude-code");
        assumeTrue(Files.isDirectory(fixtures), "the shared Claude Code fixtures are absent: " + fixtures);
        Indexer.builder(store).build().index(List.of(fixtures));
        List<Content> contents = FunesContentRetriever.builder(store).maxResults(3)
                .filter(metadataKey("agent").isEqualTo("claude-code")).build()
                .retrieve(Query.from("why did CI check the wrong branch"));
        Path large = fixtures.resolve("episodic-memory-large.jsonl").toRealPath();
        assertThat(contents).anySatisfy(c -> {
            Metadata meta = c.textSegment().metadata();
            assertThat(Path.of(meta.getString("source"))).isEqualTo(large);
            assertThat(meta.getInteger("lineStart")).isLessThanOrEqualTo(134);
            assertThat(meta.getInteger("lineEnd")).isGreaterThanOrEqualTo(125);
        });
    }
}
