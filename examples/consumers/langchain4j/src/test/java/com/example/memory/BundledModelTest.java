package com.example.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.langchain4j.FunesEmbeddingModel;
import dev.funes.langchain4j.FunesEmbeddingStore;
import dev.funes.store.FunesStore;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import dev.langchain4j.store.embedding.EmbeddingStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Funes's own local models as LangChain4j's EmbeddingModel, the other way to embed. */
class BundledModelTest {

    @Test
    void bgeSmallFromFunesResolvesAndSearchesUnderTheLangChain4jBom(@TempDir Path storeDir) {
        try (Embedder embedder = Embedders.bundled(BundledModel.BGE_SMALL_EN_V15_Q);
             MemoryStore store = FunesStore.open(storeDir, embedder)) {
            EmbeddingModel model = FunesEmbeddingModel.of(embedder);
            EmbeddingStore<TextSegment> notes = FunesEmbeddingStore.of(store);
            for (String text : List.of("The nightly import runs at two in the morning.", "Ledger files are parsed in two passes.")) {
                notes.add(model.embed(text).content(), TextSegment.from(text));
            }
            List<EmbeddingMatch<TextSegment>> matches = notes.search(EmbeddingSearchRequest.builder()
                    .queryEmbedding(model.embed("how is a ledger file read?").content()).maxResults(1).build()).matches();
            assertEquals("Ledger files are parsed in two passes.", matches.get(0).embedded().text());
            assertEquals("bge-small-en-v15-q", embedder.modelId());
        }
    }
}
