package dev.funes;

/** An embedding model could not be loaded or failed on its input. */
public class EmbeddingException extends FunesException {
    private static final long serialVersionUID = 1L;

    /** An error with a message and a cause. */
    public EmbeddingException(String message, Throwable cause) {
        super(message, cause);
    }

    /** An error with a message. */
    public EmbeddingException(String message) {
        super(message);
    }
}
