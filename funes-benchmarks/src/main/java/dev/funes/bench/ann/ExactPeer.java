package dev.funes.bench.ann;

import dev.funes.bench.corpus.VectorCorpus;

/** Exact search: a plain Java loop over every vector (dot products of unit vectors). */
final class ExactPeer implements AnnPeer {

    static final String NAME = "exact";

    private float[] vectors;
    private int dimension;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        return "brute-force scan, plain Java loop, one thread";
    }

    @Override
    public void build(VectorCorpus corpus) {
        vectors = corpus.flatVectors();
        dimension = corpus.dimension();
    }

    @Override
    public int[] search(float[] query, int k) {
        return VectorCorpus.exactTopK(vectors, dimension, query, k);
    }

    @Override
    public void close() {
        vectors = null;
    }
}
