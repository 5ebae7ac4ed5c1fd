package dev.funes.bench.ann;

import dev.funes.bench.corpus.VectorCorpus;
import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.store.embedding.EmbeddingMatch;
import dev.langchain4j.store.embedding.EmbeddingSearchRequest;
import dev.langchain4j.store.embedding.inmemory.InMemoryEmbeddingStore;
import java.util.List;

/** LangChain4j's {@code InMemoryEmbeddingStore}: what a LangChain4j user gets by default. */
final class LangChain4jPeer implements AnnPeer {

    static final String NAME = "langchain4j-inmemory";

    private InMemoryEmbeddingStore<TextSegment> store;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "LangChain4j " + Versions.of("dev.langchain4j", "langchain4j")
                + " InMemoryEmbeddingStore (exact cosine over every embedding)";
    }

    @Override
    public void build(VectorCorpus corpus) {
        store = new InMemoryEmbeddingStore<>();
        for (int i = 0; i < corpus.size(); i++) {
            store.add(Integer.toString(i), Embedding.from(corpus.vector(i)));
        }
    }

    @Override
    public int[] search(float[] query, int k) {
        List<EmbeddingMatch<TextSegment>> matches = store.search(EmbeddingSearchRequest.builder()
                .queryEmbedding(Embedding.from(query)).maxResults(k).minScore(0.0).build()).matches();
        int[] ids = new int[matches.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = Integer.parseInt(matches.get(i).embeddingId());
        }
        return ids;
    }

    @Override
    public void close() {
        store = null;
    }
}
