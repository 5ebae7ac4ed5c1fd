package dev.funes;

/**
 * Another writer held the store's write lock for longer than this writer was willing to wait.
 * Nothing of the failed write was stored; the same write can be tried again once that writer is
 * done. The message names the store and, when it described itself, the other writer (process id,
 * command, what it was doing).
 */
public class StoreBusyException extends StoreException {
    private static final long serialVersionUID = 1L;

    /** An error with a message. */
    public StoreBusyException(String message) {
        super(message);
    }
}
