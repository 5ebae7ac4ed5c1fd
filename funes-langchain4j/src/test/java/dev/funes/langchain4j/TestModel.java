package dev.funes.langchain4j;

import dev.funes.Embedder;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;

/**
 * The bundled MiniLM (real ONNX), loaded once for all tests of this JVM: LangChain4j's suites
 * create their test instances freely, and loading the model per test would dominate the run.
 * Closed when the JVM exits.
 */
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
