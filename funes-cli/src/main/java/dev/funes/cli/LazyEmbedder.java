package dev.funes.cli;

import dev.funes.Embedder;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A bundled model's embedder that loads the model (ONNX Runtime, the tokenizer, a session: most
 * of a command's start-up) only when a vector is first asked for. Its id and dimension come from
 * {@link BundledModel}, so a store opens, counts, checks quickly and searches by words without
 * it; {@link #preload()} starts loading on another thread when the caller knows a vector will be
 * needed, so that the load overlaps opening the store.
 *
 * <p>Thread-safe. {@link #close()} waits for a load in progress and closes what it loaded.
 */
final class LazyEmbedder implements Embedder {

    private final String modelId;
    private final int dimension;
    private final FutureTask<Embedder> load;
    private final AtomicBoolean started = new AtomicBoolean();
    private boolean closed; // guarded by this

    LazyEmbedder(String modelId, int dimension, Supplier<Embedder> loader) {
        this.modelId = Objects.requireNonNull(modelId, "modelId");
        this.dimension = dimension;
        Objects.requireNonNull(loader, "loader");
        this.load = new FutureTask<>(loader::get);
    }

    /**
     * The bundled model {@code model}, loaded on first use; ONNX Runtime's native libraries and
     * the model's file come from their kept copies when the launcher names a folder for them
     * ({@link KeptOnnxRuntime}, {@link KeptModelFile}).
     */
    static LazyEmbedder of(BundledModel model) {
        return new LazyEmbedder(model.id(), model.dimension(), () -> {
            KeptOnnxRuntime.use();
            java.nio.file.Path kept = KeptModelFile.of(model);
            return kept == null ? Embedders.bundled(model) : Embedders.bundled(model, kept);
        });
    }

    /** Starts loading the model on a daemon thread, unless it is loading or loaded already. */
    void preload() {
        synchronized (this) {
            if (closed || !started.compareAndSet(false, true)) {
                return;
            }
        }
        Thread loader = new Thread(load, "funes-model-load");
        loader.setDaemon(true);
        loader.start();
    }

    /** Whether the model is loaded (or failed to load): an embedding now does not wait for it. */
    boolean isLoaded() {
        return load.isDone();
    }

    /** Whether the model was asked to load (by {@link #preload()} or a first embedding). */
    boolean loadStarted() {
        return started.get();
    }

    @Override
    public String modelId() {
        return modelId;
    }

    @Override
    public int dimension() {
        return dimension;
    }

    @Override
    public List<float[]> embedDocuments(List<String> texts) {
        return model().embedDocuments(texts);
    }

    @Override
    public float[] embedQuery(String query) {
        return model().embedQuery(query);
    }

    /** The loaded model: loads it on this thread, or waits for the load already started. */
    private Embedder model() {
        boolean here;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("embedder " + modelId + " is closed");
            }
            here = started.compareAndSet(false, true);
        }
        if (here) {
            load.run();
        }
        return loaded();
    }

    private Embedder loaded() {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return load.get();
                } catch (InterruptedException e) {
                    interrupted = true; // the load cannot be abandoned half way: wait for it, then say so
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (started.get()) {
            Embedder model;
            try {
                model = loaded();
            } catch (RuntimeException e) {
                return; // it failed to load: nothing to release, and whoever needed it was told
            }
            model.close();
        }
    }
}
