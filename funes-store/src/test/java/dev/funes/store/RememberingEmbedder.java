package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.ForwardingEmbedder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The real model, asked once per text: tests that index the same log into several stores (a
 * store and the fresh store it is compared with, one generation after another) embed each text
 * once. Every vector is the model's own for that text; only tests that compare stores by their
 * memories, not by vector bytes, use it (a batch's padding may move a vector's last bits). Closes
 * the delegate.
 */
final class RememberingEmbedder extends ForwardingEmbedder {

    private final Map<String, float[]> documents = new HashMap<>();
    private final Map<String, float[]> queries = new HashMap<>();

    RememberingEmbedder(Embedder delegate) {
        super(delegate, true);
    }

    @Override
    public synchronized List<float[]> embedDocuments(List<String> texts) {
        List<String> missing = texts.stream().filter(t -> !documents.containsKey(t)).distinct().toList();
        if (!missing.isEmpty()) {
            List<float[]> vectors = delegate().embedDocuments(missing);
            for (int i = 0; i < missing.size(); i++) {
                documents.put(missing.get(i), vectors.get(i));
            }
        }
        List<float[]> out = new ArrayList<>(texts.size());
        for (String text : texts) {
            out.add(documents.get(text).clone());
        }
        return out;
    }

    @Override
    public synchronized float[] embedQuery(String query) {
        return queries.computeIfAbsent(query, delegate()::embedQuery).clone();
    }
}
