package dev.funes.solr;

import dev.funes.store.StoreOptions;

import java.util.Objects;

/**
 * How a {@link SolrMemoryStore} ranks and what it stamps on what it writes.
 *
 * @param store  ranking (fusion, rerank, candidates) and the redactor every memory passes through
 *               before it is sent; the SQLite-only knobs are ignored
 * @param origin the machine memories are published from, stamped on each; null for none
 * @param owner  who publishes them, stamped on each; null for none
 */
public record TeamOptions(StoreOptions store, String origin, String owner) {

    /** Validates the fields. */
    public TeamOptions {
        Objects.requireNonNull(store, "store");
    }

    /** The local store's defaults, nothing stamped. */
    public static TeamOptions defaults() {
        return new TeamOptions(StoreOptions.defaults(), null, null);
    }
}
