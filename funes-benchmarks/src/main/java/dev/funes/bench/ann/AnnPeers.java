package dev.funes.bench.ann;

import java.util.List;

/** The peers {@link AnnBenchmark} knows, by name. */
public final class AnnPeers {

    /** Every name {@link #create} accepts. */
    public static final List<String> NAMES = List.of(
            ExactPeer.NAME, LuceneHnswPeer.NAME, LangChain4jPeer.NAME, JVectorPeer.NAME);

    private AnnPeers() {
    }

    /**
     * A new, empty peer. {@code ef} is the search beam of the graph peers (candidates
     * explored per query, at least {@code k}; a larger one gives a higher recall and fewer
     * queries/s); the exact peers ignore it.
     *
     * <p>The store's own ANN index is not public yet, so Funes has no peer here beyond
     * {@link JVectorPeer} (the library and graph settings the store's index uses today). When
     * {@code dev.funes.store.SegmentedIndex} is public, its peer is one class implementing
     * {@link AnnPeer} (open in a temporary folder, {@code add(i, vector)} for every row,
     * {@code seal()} and {@code awaitMerges()} in {@code build}; {@code search(q, k, id -> true)})
     * plus its name here and in {@link #NAMES}.
     *
     * @throws IllegalArgumentException for an unknown name; the message lists the known ones
     */
    public static AnnPeer create(String name, int ef) {
        return switch (name) {
            case ExactPeer.NAME -> new ExactPeer();
            case LuceneHnswPeer.NAME -> new LuceneHnswPeer(ef);
            case LangChain4jPeer.NAME -> new LangChain4jPeer();
            case JVectorPeer.NAME -> new JVectorPeer(ef);
            default -> throw new IllegalArgumentException("unknown ANN peer '" + name + "'; known: " + NAMES);
        };
    }
}
