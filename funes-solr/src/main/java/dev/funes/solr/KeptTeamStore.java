package dev.funes.solr;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * A team store opened at its first use and kept for the later ones, for a process that searches
 * the team collection again and again (the MCP server): one connection for its life, its HTTP
 * connections kept alive, where opening a store per search would connect and look the
 * collection's model up each time.
 *
 * <p>An opening that fails (no node reachable, the collection not set up, credentials refused) is
 * not remembered: the next use tries again. A store once opened stays: its connection tries every
 * node of the URL on every request, so a collection that could not be reached answers again as
 * soon as a node does. Thread-safe; closing it closes the store.
 */
public final class KeptTeamStore implements AutoCloseable {

    private final Supplier<SolrMemoryStore> opener;
    private SolrMemoryStore store;
    private boolean closed;

    /**
     * @param opener opens the team store (and may fail); called at the first use, and again at
     *               each use until it succeeds
     */
    public KeptTeamStore(Supplier<SolrMemoryStore> opener) {
        this.opener = Objects.requireNonNull(opener, "opener");
    }

    /**
     * The store, opened now if it is not yet.
     *
     * @throws RuntimeException      what the opener threw; the next call tries again
     * @throws IllegalStateException once closed
     */
    public synchronized SolrMemoryStore get() {
        if (closed) {
            throw new IllegalStateException("the team store is closed");
        }
        if (store == null) {
            store = Objects.requireNonNull(opener.get(), "the opener returned no store");
        }
        return store;
    }

    /** Closes the store, if one was opened; later uses fail. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        if (store != null) {
            store.close();
            store = null;
        }
    }
}
