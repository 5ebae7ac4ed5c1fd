package dev.funes.bench.ann;

import java.util.List;

/** The peers {@link AnnBenchmark} knows, by name. */
public final class AnnPeers {

    /** Every name {@link #create} accepts. */
    public static final List<String> NAMES = List.of(
            ExactPeer.NAME, LuceneHnswPeer.NAME, LangChain4jPeer.NAME, JVectorPeer.NAME, SegmentedIndexPeer.NAME);

    private AnnPeers() {
    }

    /**
     * A new, empty peer. {@code ef} is the search beam of the graph peers (candidates
     * explored per query, at least {@code k}; a larger one gives a higher recall and fewer
     * queries/s); the exact peers ignore it. {@code degree} is the graph degree of Funes's
     * index (0 for the store's default); the other peers keep their own.
     *
     * <p>Funes's own index is {@link SegmentedIndexPeer} ({@code dev.funes.store.SegmentedIndex});
     * {@link JVectorPeer} is the library under it, without segments or compression. Another
     * engine is one class implementing {@link AnnPeer} plus its name here and in {@link #NAMES}.
     *
     * @throws IllegalArgumentException for an unknown name; the message lists the known ones
     */
    public static AnnPeer create(String name, int ef, int degree) {
        return switch (name) {
            case ExactPeer.NAME -> new ExactPeer();
            case LuceneHnswPeer.NAME -> new LuceneHnswPeer(ef);
            case LangChain4jPeer.NAME -> new LangChain4jPeer();
            case JVectorPeer.NAME -> new JVectorPeer(ef);
            case SegmentedIndexPeer.NAME -> new SegmentedIndexPeer(ef, degree);
            default -> throw new IllegalArgumentException("unknown ANN peer '" + name + "'; known: " + NAMES);
        };
    }
}
