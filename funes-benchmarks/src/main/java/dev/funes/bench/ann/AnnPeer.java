package dev.funes.bench.ann;

import dev.funes.bench.corpus.VectorCorpus;
import java.io.IOException;
import java.nio.file.Path;

/**
 * One approximate (or exact) nearest-neighbour search engine measured by {@link AnnBenchmark}:
 * it indexes a corpus's vectors under their row numbers and answers top-k queries. Adding an
 * engine is one class implementing this plus one line in {@link AnnPeers#create}.
 */
public interface AnnPeer extends AutoCloseable {

    /** The name the benchmark's {@code peer} parameter uses. */
    String name();

    /** What ran: library, version, settings (and the vectorization provider, where known). */
    String describe();

    /**
     * Indexes every vector of the corpus, vector {@code i} under id {@code i}. Called once,
     * before any search.
     *
     * @throws IOException if the engine's files cannot be written
     */
    void build(VectorCorpus corpus) throws IOException;

    /**
     * Asks the peer to keep its index in {@code dir} instead of a temporary folder, and not to
     * delete it on close; with {@code reuse}, the index already there (built by an earlier run on
     * the same corpus) is opened instead of being built again. Called before {@link #build}; peers
     * without files on disk ignore it (the default).
     *
     * @return whether the peer keeps its index there
     */
    default boolean keepIn(Path dir, boolean reuse) {
        return false;
    }

    /** Whether this peer is approximate, with a search beam to trade recall for speed. */
    default boolean approximate() {
        return false;
    }

    /**
     * Sets the search beam (candidates explored per query) of a graph peer, for the searches that
     * follow; exact peers ignore it.
     */
    default void searchBeam(int ef) {
    }

    /** The ids of the (approximately) {@code k} nearest vectors to {@code query}, best first. */
    int[] search(float[] query, int k);

    /** Releases memory and deletes temporary files. */
    @Override
    void close() throws IOException;
}
