package dev.funes.bench.ann;

import dev.funes.bench.corpus.VectorCorpus;
import dev.funes.store.SegmentedIndex;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Funes's own dense index, {@link SegmentedIndex}, with the store's default options (memtable of
 * 20,000 vectors sealed into on-disk segments, PQ codes in RAM for segments of 10,000 or more with
 * full-precision rerank from the file, background merges of 4) in a temporary folder: the vectors
 * added with one {@code addAll} (built straight into one segment with JVector's parallel builder,
 * the state of a bulk load or of a fully merged index; a corpus under the memtable's size goes
 * through the memtable), then {@code seal()} and {@code awaitMerges()}. The
 * search beam {@code ef} is the index's per-segment candidates, {@code overquery = ef / k}; the
 * store itself searches with overquery 4 (for its k of 100 candidates).
 */
final class SegmentedIndexPeer extends GraphPeer {

    static final String NAME = "funes-segmented";

    private Path dir;
    private int dimension;
    private SegmentedIndex index;
    private int openEf;

    private final int degree;

    /** @param degree the graphs' degree, 0 for the store's default */
    SegmentedIndexPeer(int ef, int degree) {
        super(NAME, ef);
        this.degree = degree;
    }

    @Override
    public String describe() {
        SegmentedIndex.Options o = options();
        String segments = "";
        if (index != null) {
            SegmentedIndex.Stats stats = index.stats();
            StringBuilder sizes = new StringBuilder();
            for (SegmentedIndex.SegmentStats s : stats.segments()) {
                sizes.append(sizes.length() == 0 ? "" : " + ").append(s.vectors()).append(s.compressed() ? " PQ" : "");
            }
            segments = ", segments " + sizes + ", memtable " + stats.memtableVectors();
        }
        return "Funes SegmentedIndex (JVector " + Versions.of("io.github.jbellis", "jvector-base") + ", memtable "
                + o.memtableLimit() + ", PQ from " + o.pqThreshold() + ", degree " + o.maxDegree() + ", beam "
                + o.beamWidth() + ", merge fan-in " + o.mergeFanIn() + "), overquery " + o.overquery() + segments
                + ", provider " + JVectorPeer.provider();
    }

    private SegmentedIndex.Options options() {
        SegmentedIndex.Options o = SegmentedIndex.Options.defaults();
        if (degree > 0) {
            o = o.withMaxDegree(degree);
        }
        return o.withOverquery(Math.max(1.0, ef / (double) VectorCorpus.K));
    }

    @Override
    public boolean keepIn(Path dir, boolean reuse) {
        this.kept = dir;
        this.reuse = reuse;
        return true;
    }

    @Override
    public void build(VectorCorpus corpus) throws IOException {
        dir = indexDir("funes-ann-segmented-");
        dimension = corpus.dimension();
        index = SegmentedIndex.open(dir, dimension, options());
        openEf = ef;
        if (reuse) {
            return;
        }
        long[] ids = new long[corpus.size()];
        float[][] vectors = new float[corpus.size()][];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = i;
            vectors[i] = corpus.vector(i);
        }
        index.addAll(ids, vectors);
        index.seal();
        index.awaitMerges();
    }

    @Override
    public int[] search(float[] query, int k) {
        if (ef != openEf) {
            // The overquery is an option of the open index: reopen the same segments with the new one.
            try {
                index.close();
                index = SegmentedIndex.open(dir, dimension, options());
                openEf = ef;
            } catch (IOException e) {
                throw new IllegalStateException("cannot reopen the index in " + dir, e);
            }
        }
        List<SegmentedIndex.Hit> hits = index.search(query, k, null);
        int[] ids = new int[hits.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (int) hits.get(i).id();
        }
        return ids;
    }

    @Override
    public void close() throws IOException {
        if (index != null) {
            index.close();
        }
        deleteUnlessKept(dir);
    }
}
