package dev.funes.springai;

import dev.funes.Embedder;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;

/** One real bundled model (MiniLM int8, ONNX) for all the tests of a run; loading it takes a second. */
final class TestModel {

    private static Embedder embedder;

    private TestModel() {
    }

    static synchronized Embedder embedder() {
        if (embedder == null) {
            Embedder loaded = Embedders.bundled(BundledModel.DEFAULT);
            Runtime.getRuntime().addShutdownHook(new Thread(loaded::close, "close-test-embedder"));
            embedder = loaded;
        }
        return embedder;
    }
}
