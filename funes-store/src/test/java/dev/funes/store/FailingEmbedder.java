package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import dev.funes.ForwardingEmbedder;

import java.util.List;

/**
 * A real embedder that fails, as a model can, on texts containing a marker: lets tests break a
 * batch half-way through, or a search's query embedding. Every other text goes to the real model. Does not close the delegate.
 */
final class FailingEmbedder extends ForwardingEmbedder {

    static final String MARKER = "UNEMBEDDABLE";

    FailingEmbedder(Embedder delegate) {
        super(delegate, false); // the delegate belongs to the test class
    }

    @Override
    public List<float[]> embedDocuments(List<String> texts) {
        for (String text : texts) {
            if (text.contains(MARKER)) {
                throw new EmbeddingException("cannot embed a text containing " + MARKER);
            }
        }
        return super.embedDocuments(texts);
    }

    @Override
    public float[] embedQuery(String query) {
        if (query.contains(MARKER)) {
            throw new EmbeddingException("cannot embed a query containing " + MARKER);
        }
        return super.embedQuery(query);
    }
}
