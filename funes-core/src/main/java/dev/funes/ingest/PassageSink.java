package dev.funes.ingest;

import dev.funes.Memory;

import java.util.function.Consumer;

/**
 * A sink that also wants each exchange's {@linkplain dev.funes.MemoryKind#PASSAGE passages}: the
 * full content of its records, cut small. A format's readers hand passages only to such a sink,
 * right after the exchange memory they belong to; any other sink receives the memories alone.
 * Such a sink may also tell its reader that it wants nothing more ({@link #stopped()}).
 */
interface PassageSink extends Consumer<Memory> {

    /** Whether this sink wants passages now; a sink may implement this type and still decline. */
    default boolean passages() {
        return true;
    }

    /**
     * Whether this sink wants no more memories: it ignores what it is handed from now on, and a
     * reader may end its parse early (what the parse returns then goes unused).
     */
    default boolean stopped() {
        return false;
    }

    /** Whether {@code sink} wants passages. */
    static boolean wants(Consumer<Memory> sink) {
        return sink instanceof PassageSink p && p.passages();
    }

    /** Whether {@code sink} wants no more memories ({@link #stopped()}). */
    static boolean stopped(Consumer<Memory> sink) {
        return sink instanceof PassageSink p && p.stopped();
    }
}
