package dev.funes.embed;

import dev.funes.Embedder;

/** The embedder contract on the bundled {@link BundledModel#E5_SMALL_V2_Q}. */
class E5SmallV2QEmbedderTest extends EmbedderContract {

    @Override
    Embedder open(int batchSize) {
        return Embedders.bundled(BundledModel.E5_SMALL_V2_Q, batchSize);
    }

    @Override
    String modelIdPattern() {
        // Stores record this id: changing it orphans their vectors.
        return "e5-small-v2-q";
    }

    @Override
    boolean hasQueryPrefix() {
        return true;
    }
}
