package dev.funes;

/**
 * A store could not be opened, read or written: a locked or corrupt database, a store written by
 * a newer Funes, or a store built with another embedding model. The message says which and what
 * to do.
 */
public class StoreException extends FunesException {
    private static final long serialVersionUID = 1L;

    /** An error with a message. */
    public StoreException(String message) {
        super(message);
    }

    /** An error with a message and a cause. */
    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
