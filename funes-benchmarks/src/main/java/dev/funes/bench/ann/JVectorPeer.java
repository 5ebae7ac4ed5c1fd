package dev.funes.bench.ann;

import dev.funes.bench.corpus.VectorCorpus;
import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.GraphSearcher;
import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.ListRandomAccessVectorValues;
import io.github.jbellis.jvector.graph.SearchResult;
import io.github.jbellis.jvector.graph.similarity.BuildScoreProvider;
import io.github.jbellis.jvector.graph.similarity.DefaultSearchScoreProvider;
import io.github.jbellis.jvector.util.Bits;
import io.github.jbellis.jvector.vector.VectorSimilarityFunction;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVector graph in memory, built with the settings of the store's current index (max degree
 * 32, beam width 100, neighbour overflow 1.2, alpha 1.2, DOT_PRODUCT): the library Funes uses,
 * without the store around it. A search explores {@code ef} candidates (JVector's
 * {@code rerankK}) and returns the best k.
 */
final class JVectorPeer extends GraphPeer {

    static final String NAME = "jvector";

    private static final VectorTypeSupport VECTORS = VectorizationProvider.getInstance().getVectorTypeSupport();

    private ListRandomAccessVectorValues values;
    private GraphIndexBuilder builder;
    private ImmutableGraphIndex graph;
    private GraphSearcher searcher;

    JVectorPeer(int ef) {
        super(NAME, ef);
    }

    /** The JVector vectorization provider this JVM runs (SIMD or not). */
    static String provider() {
        return VectorizationProvider.getInstance().getClass().getSimpleName();
    }

    @Override
    public String describe() {
        return "JVector " + Versions.of("io.github.jbellis", "jvector-base")
                + " in-memory graph (degree 32, beam 100, overflow 1.2, alpha 1.2), DOT_PRODUCT, rerankK " + ef
                + ", provider " + provider();
    }

    @Override
    public void build(VectorCorpus corpus) {
        List<VectorFloat<?>> wrapped = new ArrayList<>(corpus.size());
        for (int i = 0; i < corpus.size(); i++) {
            wrapped.add(VECTORS.createFloatVector(corpus.vector(i)));
        }
        values = new ListRandomAccessVectorValues(wrapped, corpus.dimension());
        builder = GraphIndexBuilder.builder(BuildScoreProvider.randomAccessScoreProvider(values,
                        VectorSimilarityFunction.DOT_PRODUCT), corpus.dimension(), 32)
                .withBeamWidth(100).withNeighborOverflow(1.2f).withAlpha(1.2f).build();
        graph = builder.build(values);
        searcher = new GraphSearcher(graph);
    }

    @Override
    public int[] search(float[] query, int k) {
        var scores = DefaultSearchScoreProvider.exact(VECTORS.createFloatVector(query),
                VectorSimilarityFunction.DOT_PRODUCT, values);
        SearchResult result = searcher.search(scores, k, Math.max(k, ef), 0f, 0f, Bits.ALL);
        SearchResult.NodeScore[] nodes = result.getNodes();
        int[] ids = new int[nodes.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = nodes[i].node;
        }
        return ids;
    }

    @Override
    public void close() throws IOException {
        if (searcher != null) {
            searcher.close();
        }
        if (builder != null) {
            builder.close();
        }
    }
}
