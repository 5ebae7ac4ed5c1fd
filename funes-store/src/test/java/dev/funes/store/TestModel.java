package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.ForwardingEmbedder;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;

/**
 * The bundled default model, loaded once per test JVM and shared by the test classes that only
 * embed with it (the model is thread-safe): each class used to load and close a model of its own.
 * What {@link #shared()} returns does not close the model; the JVM's exit releases it.
 */
public final class TestModel {

    private TestModel() {
    }

    private static final class Holder {
        static final Embedder MODEL = Embedders.bundled(BundledModel.DEFAULT);
    }

    /** The shared model, behind a wrapper whose {@code close()} leaves it open for the next class. */
    public static Embedder shared() {
        return new ForwardingEmbedder(Holder.MODEL, false) { };
    }
}
