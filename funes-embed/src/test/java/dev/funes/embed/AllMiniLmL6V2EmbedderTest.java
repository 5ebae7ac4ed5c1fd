package dev.funes.embed;

import dev.funes.Embedder;

/** The embedder contract on the bundled {@link BundledModel#ALL_MINILM_L6_V2}. */
class AllMiniLmL6V2EmbedderTest extends EmbedderContract {

    @Override
    Embedder open(int batchSize) {
        return Embedders.bundled(BundledModel.ALL_MINILM_L6_V2, batchSize);
    }

    @Override
    String modelIdPattern() {
        // Stores record this id: changing it orphans their vectors.
        return "all-minilm-l6-v2";
    }

    @Override
    boolean hasQueryPrefix() {
        return false;
    }
}
