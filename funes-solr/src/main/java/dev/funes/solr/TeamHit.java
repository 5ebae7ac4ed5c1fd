package dev.funes.solr;

import dev.funes.SearchHit;

import java.util.Objects;

/**
 * A hit of the team collection with who published its memory.
 *
 * @param hit    the hit
 * @param origin the machine it was published from, or null when not recorded
 * @param owner  who published it, or null when not recorded
 */
public record TeamHit(SearchHit hit, String origin, String owner) {

    /** Validates the fields. */
    public TeamHit {
        Objects.requireNonNull(hit, "hit");
    }
}
