package dev.funes;

import java.util.List;

/**
 * An {@link Embedder} that hands every call to another one: a base for wrappers that change one
 * thing (count or time the calls, remember vectors, refuse some texts) and leave the rest as the
 * wrapped embedder has it. Subclasses override what they change.
 *
 * <p>{@link #close()} closes the wrapped embedder unless the wrapper was made with
 * {@code closesDelegate} false, for a model its owner closes.
 */
public abstract class ForwardingEmbedder implements Embedder {

    private final Embedder delegate;
    private final boolean closesDelegate;

    /**
     * @param delegate       the embedder every call goes to
     * @param closesDelegate whether {@link #close()} closes it
     */
    protected ForwardingEmbedder(Embedder delegate, boolean closesDelegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
        this.closesDelegate = closesDelegate;
    }

    /** The embedder every call goes to. */
    protected final Embedder delegate() {
        return delegate;
    }

    @Override
    public String modelId() {
        return delegate.modelId();
    }

    @Override
    public int dimension() {
        return delegate.dimension();
    }

    @Override
    public List<float[]> embedDocuments(List<String> texts) {
        return delegate.embedDocuments(texts);
    }

    @Override
    public float[] embedQuery(String query) {
        return delegate.embedQuery(query);
    }

    @Override
    public void close() {
        if (closesDelegate) {
            delegate.close();
        }
    }
}
