package dev.funes.bench.ann;

import dev.funes.bench.IngestAndSearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the approximate (graph) peers share: a name, and a search beam {@link #ef} that the
 * benchmark may change between measurements ({@link #searchBeam}).
 */
abstract class GraphPeer implements AnnPeer {

    private final String name;
    /** Candidates a search explores; the peer keeps the best k of them. */
    protected int ef;
    /** Where the index is kept across runs ({@link #keepIn}), or {@code null} for a temporary folder. */
    protected Path kept;
    /** Whether {@link #kept} holds a complete index to open rather than build. */
    protected boolean reuse;

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

    /** Removes {@code dir} and everything in it, unless it is the kept index. */
    protected final void deleteUnlessKept(Path dir) throws IOException {
        if (dir == null || dir.equals(kept) || !Files.exists(dir)) {
            return;
        }
        IngestAndSearch.deleteTree(dir);
    }

    /** A folder for the index: the kept one (emptied unless reused), else a new temporary one. */
    protected final Path indexDir(String prefix) throws IOException {
        if (kept == null) {
            return Files.createTempDirectory(prefix);
        }
        if (!reuse) {
            IngestAndSearch.deleteTree(kept);
        }
        Files.createDirectories(kept);
        return kept;
    }

    @Override
    public void searchBeam(int ef) {
        this.ef = ef;
    }
}
