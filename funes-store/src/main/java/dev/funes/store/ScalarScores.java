package dev.funes.store;

import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.similarity.ScoreFunction;
import io.github.jbellis.jvector.quantization.PQVectors;
import io.github.jbellis.jvector.quantization.ProductQuantization;
import io.github.jbellis.jvector.vector.DefaultVectorizationProvider;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.ByteSequence;
import io.github.jbellis.jvector.vector.types.VectorFloat;

/**
 * The similarities a search of a product-quantized segment computes, in plain Java with four
 * independent sums, for JVMs where JVector has no Vector API ({@link DefaultVectorizationProvider}:
 * Java 17 to 19, or 20+ without {@code --add-modules jdk.incubator.vector}). JVector's scalar code
 * adds every term to one sum, so each addition waits for the one before it (four cycles or so on
 * current cores); four sums let the processor overlap them. The walk on PQ codes adds 96 table
 * entries per node (384 dimensions), the rerank 384 products per candidate.
 *
 * <p>Same values as JVector's up to the order of the float additions: {@code (1 + d) / 2} of the
 * (approximate or exact) dot product {@code d}, as JVector maps a dot product of unit vectors.
 *
 * <p>Holds the segment's codes as one array, without a copy: used only when JVector keeps them in
 * one Java array (up to 2 GiB of codes, 22M vectors at 384 dimensions), otherwise {@link #of}
 * returns null and JVector scores.
 */
final class ScalarScores {

    /** Centroids per subspace (PQ with 8-bit codes). */
    private static final int CLUSTERS = 256;

    private final byte[] codes;
    private final int base;
    private final int subspaces;
    private final int[] sizes;
    private final int[] offsets;
    /** Per subspace: its {@value #CLUSTERS} centroids, each {@code sizes[m]} floats, one after the other. */
    private final float[][] centroids;

    private ScalarScores(byte[] codes, int base, int subspaces, int[] sizes, int[] offsets, float[][] centroids) {
        this.codes = codes;
        this.base = base;
        this.subspaces = subspaces;
        this.sizes = sizes;
        this.offsets = offsets;
        this.centroids = centroids;
    }

    /** Whether JVector runs without the Vector API here, so that these scores are the faster ones. */
    static boolean wanted() {
        return VectorizationProvider.getInstance() instanceof DefaultVectorizationProvider;
    }

    /**
     * Scores over {@code pqv}'s codes, or null when they are not one Java byte array (another
     * vectorization provider, or more codes than an array holds) or not of the form used here.
     */
    static ScalarScores of(PQVectors pqv) {
        int count = pqv.count();
        ProductQuantization pq = pqv.getCompressor();
        int m = pq.getSubspaceCount();
        if (count == 0 || pq.getClusterCount() != CLUSTERS || pq.getGlobalCentroid() != null) {
            return null;
        }
        ByteSequence<?> first = pqv.get(0);
        ByteSequence<?> last = pqv.get(count - 1);
        if (!(first.get() instanceof byte[] array) || last.get() != array
                || last.offset() != first.offset() + (long) (count - 1) * m || first.length() != m) {
            return null;
        }
        int[] sizes = new int[m];
        int[] offsets = new int[m];
        float[][] centroids = new float[m][];
        int offset = 0;
        for (int s = 0; s < m; s++) {
            sizes[s] = pq.getSubvectorSize(s);
            offsets[s] = offset;
            offset += sizes[s];
            VectorFloat<?> book = pq.getCodebookVector(s);
            float[] copy = new float[book.length()];
            for (int i = 0; i < copy.length; i++) {
                copy[i] = book.get(i);
            }
            if (copy.length != CLUSTERS * sizes[s]) {
                return null;
            }
            centroids[s] = copy;
        }
        if (offset != pq.getOriginalDimension()) {
            return null;
        }
        return new ScalarScores(array, first.offset(), m, sizes, offsets, centroids);
    }

    /**
     * The walk's similarity to the query, from the codes, through a table of the query's dot
     * product with every centroid of every subspace (98,304 products at 384 dimensions, more
     * than the walk's additions at the default beam: the part of a search worth making fast).
     * Subspaces of 4 dimensions, the usual ones, get a loop of their own with the query's four
     * values held; the sums are added in JVector's order, so the table is the same.
     */
    ScoreFunction.ApproximateScoreFunction approximate(float[] query) {
        float[] table = new float[subspaces * CLUSTERS];
        for (int s = 0; s < subspaces; s++) {
            float[] book = centroids[s];
            int size = sizes[s];
            int from = offsets[s];
            int row = s * CLUSTERS;
            if (size == 4) {
                float q0 = query[from];
                float q1 = query[from + 1];
                float q2 = query[from + 2];
                float q3 = query[from + 3];
                for (int c = 0, at = 0; c < CLUSTERS; c++, at += 4) {
                    table[row + c] = q0 * book[at] + q1 * book[at + 1] + q2 * book[at + 2] + q3 * book[at + 3];
                }
            } else {
                for (int c = 0; c < CLUSTERS; c++) {
                    float sum = 0;
                    int at = c * size;
                    for (int i = 0; i < size; i++) {
                        sum += query[from + i] * book[at + i];
                    }
                    table[row + c] = sum;
                }
            }
        }
        return new Approximate(table);
    }

    private final class Approximate implements ScoreFunction.ApproximateScoreFunction {
        private final float[] table;

        Approximate(float[] table) {
            this.table = table;
        }

        @Override
        public float similarityTo(int node) {
            byte[] c = codes;
            float[] t = table;
            int at = base + node * subspaces;
            float s0 = 0;
            float s1 = 0;
            float s2 = 0;
            float s3 = 0;
            int s = 0;
            for (; s + 3 < subspaces; s += 4) {
                s0 += t[s * CLUSTERS + (c[at + s] & 0xff)];
                s1 += t[(s + 1) * CLUSTERS + (c[at + s + 1] & 0xff)];
                s2 += t[(s + 2) * CLUSTERS + (c[at + s + 2] & 0xff)];
                s3 += t[(s + 3) * CLUSTERS + (c[at + s + 3] & 0xff)];
            }
            for (; s < subspaces; s++) {
                s0 += t[s * CLUSTERS + (c[at + s] & 0xff)];
            }
            return (1 + ((s0 + s1) + (s2 + s3))) / 2;
        }
    }

    /** The rerank's exact similarity, from the full vectors {@code view} reads. */
    static ScoreFunction.ExactScoreFunction exact(float[] query, RandomAccessVectorValues view) {
        VectorFloat<?> buffer = IndexSegment.VECTORS.createFloatVector(query.length);
        return node -> {
            view.getVectorInto(node, buffer, 0);
            return (1 + dot(query, (float[]) buffer.get())) / 2;
        };
    }

    /** The dot product with four independent sums. */
    static float dot(float[] a, float[] b) {
        float s0 = 0;
        float s1 = 0;
        float s2 = 0;
        float s3 = 0;
        int i = 0;
        int n = a.length;
        for (; i + 3 < n; i += 4) {
            s0 += a[i] * b[i];
            s1 += a[i + 1] * b[i + 1];
            s2 += a[i + 2] * b[i + 2];
            s3 += a[i + 3] * b[i + 3];
        }
        for (; i < n; i++) {
            s0 += a[i] * b[i];
        }
        return (s0 + s1) + (s2 + s3);
    }
}
