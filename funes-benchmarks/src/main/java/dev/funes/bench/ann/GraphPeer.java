package dev.funes.bench.ann;

/**
 * What the approximate (graph) peers share: a name, and a search beam {@link #ef} that the
 * benchmark may change between measurements ({@link #searchBeam}).
 */
abstract class GraphPeer implements AnnPeer {

    private final String name;
    /** Candidates a search explores; the peer keeps the best k of them. */
    protected int ef;

    GraphPeer(String name, int ef) {
        this.name = name;
        this.ef = ef;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final boolean approximate() {
        return true;
    }

    @Override
    public void searchBeam(int ef) {
        this.ef = ef;
    }
}
