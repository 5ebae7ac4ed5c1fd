package dev.funes;

/** The root of the errors Funes reports; unchecked, with a message meant for the user. */
public class FunesException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** An error with a message. */
    public FunesException(String message) {
        super(message);
    }

    /** An error with a message and a cause. */
    public FunesException(String message, Throwable cause) {
        super(message, cause);
    }
}
