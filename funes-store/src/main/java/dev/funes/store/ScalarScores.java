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

    /** Vectors in the segment. */
    private final int count;
    /** The sign codes ({@link #signs()}), made at their first use. */
    private volatile Signs signs;

    private ScalarScores(byte[] codes, int base, int count, int subspaces, int[] sizes, int[] offsets, float[][] centroids) {
        this.count = count;
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
        return new ScalarScores(array, first.offset(), count, m, sizes, offsets, centroids);
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

    /**
     * One bit per dimension of every vector, the sign of its PQ reconstruction, made from the
     * codes at the first call (one pass over them) and kept: what {@link Signs#estimate} ranks
     * by, much cheaper than the codes' table lookups. Null when a subspace is wider than 32
     * dimensions.
     */
    /** Whether {@link #signs()} has made the sign codes. For tests. */
    boolean signsMade() {
        return signs != null;
    }

    Signs signs() {
        Signs made = signs;
        if (made == null) {
            synchronized (this) {
                made = signs;
                if (made == null) {
                    made = Signs.of(this);
                    signs = made;
                }
            }
        }
        return made;
    }

    /**
     * The sign bits of a segment's vectors, and the estimate a scan of many of them ranks by
     * first: for a query {@code q} and a vector {@code v}, the sum of {@code |q_i|} over the
     * dimensions where {@code q_i} and {@code v_i} have the same sign, with {@code |q_i|} rounded
     * to 2 bits of its largest value. A vector close to the query agrees with it in sign where
     * the query is large; the estimate is a cheap first cut, never the score a hit is given.
     */
    static final class Signs {
        /** The largest of a query's magnitudes, rounded to two bits. */
        static final int MAGNITUDE_MAX = 3;

        private final long[] bits;
        private final int words;
        private final int dimension;

        private Signs(long[] bits, int words, int dimension) {
            this.bits = bits;
            this.words = words;
            this.dimension = dimension;
        }

        static Signs of(ScalarScores scores) {
            int subspaces = scores.subspaces;
            int dimension = scores.offsets[subspaces - 1] + scores.sizes[subspaces - 1];
            int words = (dimension + 63) >>> 6;
            int[] masks = new int[subspaces * CLUSTERS];
            for (int s = 0; s < subspaces; s++) {
                int size = scores.sizes[s];
                if (size > 32) {
                    return null;
                }
                float[] book = scores.centroids[s];
                for (int c = 0; c < CLUSTERS; c++) {
                    int mask = 0;
                    for (int i = 0; i < size; i++) {
                        if (book[c * size + i] >= 0) {
                            mask |= 1 << i;
                        }
                    }
                    masks[s * CLUSTERS + c] = mask;
                }
            }
            long[] bits = new long[scores.count * words];
            byte[] codes = scores.codes;
            for (int v = 0; v < scores.count; v++) {
                int at = scores.base + v * subspaces;
                int row = v * words;
                for (int s = 0; s < subspaces; s++) {
                    long mask = masks[s * CLUSTERS + (codes[at + s] & 0xff)] & 0xffffffffL;
                    int bit = scores.offsets[s];
                    int word = row + (bit >>> 6);
                    int shift = bit & 63;
                    bits[word] |= mask << shift;
                    if (shift + scores.sizes[s] > 64) {
                        bits[word + 1] |= mask >>> (64 - shift);
                    }
                }
            }
            return new Signs(bits, words, dimension);
        }

        /** The query's signs and its magnitude planes, word by word (sign, low bit, high bit): what {@link #estimate} reads. */
        long[] query(float[] query) {
            float max = 0;
            for (float x : query) {
                max = Math.max(max, Math.abs(x));
            }
            long[] q = new long[3 * words];
            for (int i = 0; i < dimension && i < query.length; i++) {
                int at = 3 * (i >>> 6);
                long bit = 1L << (i & 63);
                if (query[i] >= 0) {
                    q[at] |= bit;
                }
                int magnitude = max == 0 ? 0 : Math.round(Math.abs(query[i]) / max * MAGNITUDE_MAX);
                if ((magnitude & 1) != 0) {
                    q[at + 1] |= bit;
                }
                if ((magnitude & 2) != 0) {
                    q[at + 2] |= bit;
                }
            }
            return q;
        }

        /** The estimate for vector {@code ordinal}: higher is likelier closer; 0 to 3 times the dimension. */
        int estimate(long[] query, int ordinal) {
            int sum = 0;
            int row = ordinal * words;
            for (int i = 0, at = 0; i < words; i++, at += 3) {
                long same = ~(query[at] ^ bits[row + i]);
                sum += Long.bitCount(same & query[at + 1]) + (Long.bitCount(same & query[at + 2]) << 1);
            }
            return sum;
        }
    }
}
