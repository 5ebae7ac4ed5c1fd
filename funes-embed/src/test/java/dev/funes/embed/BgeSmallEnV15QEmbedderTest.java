package dev.funes.embed;

import dev.funes.Embedder;

/** The embedder contract on the bundled {@link BundledModel#BGE_SMALL_EN_V15_Q}. */
class BgeSmallEnV15QEmbedderTest extends EmbedderContract {

    @Override
    Embedder open(int batchSize) {
        return Embedders.bundled(BundledModel.BGE_SMALL_EN_V15_Q, batchSize);
    }

    @Override
    String modelIdPattern() {
        // Stores record this id: changing it orphans their vectors.
        return "bge-small-en-v15-q";
    }

    @Override
    boolean hasQueryPrefix() {
        return true;
    }
}
