package dev.funes.store;

import io.github.jbellis.jvector.disk.RandomAccessReader;
import io.github.jbellis.jvector.disk.ReaderSupplier;
import io.github.jbellis.jvector.graph.GraphIndexBuilder;
import io.github.jbellis.jvector.graph.GraphSearcher;
import io.github.jbellis.jvector.graph.ImmutableGraphIndex;
import io.github.jbellis.jvector.graph.ListRandomAccessVectorValues;
import io.github.jbellis.jvector.graph.RandomAccessVectorValues;
import io.github.jbellis.jvector.graph.SearchResult;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndex;
import io.github.jbellis.jvector.graph.disk.OnDiskGraphIndexWriter;
import io.github.jbellis.jvector.graph.disk.feature.Feature;
import io.github.jbellis.jvector.graph.disk.feature.FeatureId;
import io.github.jbellis.jvector.graph.disk.feature.InlineVectors;
import io.github.jbellis.jvector.graph.similarity.BuildScoreProvider;
import io.github.jbellis.jvector.graph.similarity.DefaultSearchScoreProvider;
import io.github.jbellis.jvector.util.Bits;
import io.github.jbellis.jvector.vector.VectorSimilarityFunction;
import io.github.jbellis.jvector.vector.VectorizationProvider;
import io.github.jbellis.jvector.vector.types.VectorFloat;
import io.github.jbellis.jvector.vector.types.VectorTypeSupport;

import java.io.Closeable;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * One JVector graph over a fixed set of vectors, in its file ({@code vectors.ann}): how it is
 * built and written, loaded and validated, and searched.
 *
 * <p>The file starts with a Funes header and the ordinal to vector-id map, then holds the JVector
 * on-disk graph (with the vectors inline) up to its end; docs/STORE-FORMAT.md has the layout.
 * Ordinal {@code i} is the {@code i}-th smallest vector id, so the map is sorted.
 *
 * <p>Thread-safe: each search opens its own {@link GraphSearcher} (JVector's searchers and views
 * are per-thread; the graph itself is shared). The caller must not {@link #close()} a graph that
 * searches may still be using.
 */
final class AnnGraph implements Closeable {

    static final byte[] MAGIC = "FUNESANN".getBytes(StandardCharsets.US_ASCII);
    static final int FORMAT_VERSION = 1;
    /** Header bytes before the model id (magic .. model id length). */
    private static final int FIXED_HEADER = 8 + 4 + 4 + 4 + 8 + 8 + 8 + 8 + 4 + 16 + 2;
    private static final int MAX_MODEL_ID_BYTES = 1024;

    /* Graph parameters: JVector's usual defaults for text embeddings of a few hundred dimensions. */
    private static final int MAX_DEGREE = 32;
    private static final int BEAM_WIDTH = 100;
    private static final float NEIGHBOR_OVERFLOW = 1.2f;
    private static final float ALPHA = 1.2f;

    private static final VectorTypeSupport VECTORS = VectorizationProvider.getInstance().getVectorTypeSupport();
    private static final VectorSimilarityFunction SIMILARITY = VectorSimilarityFunction.DOT_PRODUCT;

    /** Why a file cannot serve as the index; the store rebuilds it then. */
    static final class InvalidIndexException extends Exception {
        private static final long serialVersionUID = 1L;

        InvalidIndexException(String reason) {
            super(reason);
        }

        InvalidIndexException(String reason, Throwable cause) {
            super(reason, cause);
        }
    }

    /** A vector and its similarity to a query. */
    record Scored(long vectorId, double similarity) {
    }

    private final Path file;
    private final ReaderSupplier readers;
    private final OnDiskGraphIndex graph;
    private final long[] vectorIds;
    private final long maxVectorId;

    private AnnGraph(Path file, ReaderSupplier readers, OnDiskGraphIndex graph, long[] vectorIds, long maxVectorId) {
        this.file = file;
        this.readers = readers;
        this.graph = graph;
        this.vectorIds = vectorIds;
        this.maxVectorId = maxVectorId;
    }

    /** Number of vectors (nodes) in the graph. */
    int size() {
        return vectorIds.length;
    }

    /** The largest vector id the graph was built over; every vector with a smaller id is in it or was deleted. */
    long maxVectorId() {
        return maxVectorId;
    }

    /** The vector ids of ordinals 0, 1, ...: strictly increasing. A copy. */
    long[] vectorIds() {
        return vectorIds.clone();
    }

    boolean contains(long vectorId) {
        return Arrays.binarySearch(vectorIds, vectorId) >= 0;
    }

    /**
     * The {@code k} nearest vectors to the query among those {@code allowed} admits (all when it
     * is {@code null}), best first. A small allowed set is scanned exactly: a graph search
     * restricted to a few nodes wanders far and may miss some.
     */
    List<Scored> search(float[] query, int k, VectorIdSet allowed) {
        if (allowed != null && allowed.size() <= Math.max(2_000, 4 * k)) {
            return exact(query, k, allowed);
        }
        VectorFloat<?> q = VECTORS.createFloatVector(query);
        Bits accept = allowed == null ? Bits.ALL : ordinal -> allowed.contains(vectorIds[ordinal]);
        try (GraphSearcher searcher = new GraphSearcher(graph)) {
            var view = (RandomAccessVectorValues) searcher.getView();
            var scores = DefaultSearchScoreProvider.exact(q, SIMILARITY, view);
            SearchResult result = searcher.search(scores, Math.min(k, vectorIds.length), accept);
            List<Scored> hits = new ArrayList<>(result.getNodes().length);
            for (SearchResult.NodeScore node : result.getNodes()) {
                // JVector maps a dot product d of unit vectors to (1 + d) / 2.
                hits.add(new Scored(vectorIds[node.node], 2.0 * node.score - 1.0));
            }
            return hits;
        } catch (IOException e) {
            throw new UncheckedIOException("searching the ANN index " + file + " failed", e);
        }
    }

    private List<Scored> exact(float[] query, int k, VectorIdSet allowed) {
        TopK top = new TopK(k);
        try (var view = graph.getView()) {
            allowed.forEach(id -> {
                int ordinal = Arrays.binarySearch(vectorIds, id);
                if (ordinal >= 0) {
                    top.offer(id, dot(query, view.getVector(ordinal)));
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("reading the ANN index " + file + " failed", e);
        }
        return top.sorted();
    }

    private static double dot(float[] a, VectorFloat<?> b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b.get(i);
        }
        return sum;
    }

    /** Releases the file mapping. */
    @Override
    public void close() throws IOException {
        try {
            graph.close();
        } finally {
            readers.close();
        }
    }

    // ---------------------------------------------------------------- building and writing

    /**
     * Builds a graph over the vectors and writes it to {@code file} atomically: a temporary file
     * in the same directory is written, forced to disk and renamed over {@code file}.
     *
     * @param vectorIds strictly increasing vector ids; {@code vectors[i]} belongs to {@code vectorIds[i]}
     */
    static void write(Path file, UUID storeId, String modelId, int dimension, long[] vectorIds, List<float[]> vectors)
            throws IOException {
        if (vectorIds.length == 0 || vectorIds.length != vectors.size()) {
            throw new IllegalArgumentException("need one vector per id, and at least one");
        }
        byte[] model = modelId.getBytes(StandardCharsets.UTF_8);
        if (model.length > MAX_MODEL_ID_BYTES) {
            throw new IllegalArgumentException("model id longer than " + MAX_MODEL_ID_BYTES + " bytes: " + modelId);
        }
        int headerLength = FIXED_HEADER + model.length + 4;
        long graphOffset = headerLength + (long) Long.BYTES * vectorIds.length;

        List<VectorFloat<?>> wrapped = new ArrayList<>(vectors.size());
        for (float[] v : vectors) {
            wrapped.add(VECTORS.createFloatVector(v));
        }
        var values = new ListRandomAccessVectorValues(wrapped, dimension);

        Path dir = file.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(dir, file.getFileName().toString() + ".", ".tmp");
        try {
            try (var out = new DataOutputStream(Files.newOutputStream(temp))) {
                out.write(new byte[headerLength]); // rewritten once the length and checksum are known
                for (long id : vectorIds) {
                    out.writeLong(id);
                }
            }
            GraphIndexBuilder builder = GraphIndexBuilder
                    .builder(BuildScoreProvider.randomAccessScoreProvider(values, SIMILARITY), dimension, MAX_DEGREE)
                    .withBeamWidth(BEAM_WIDTH)
                    .withNeighborOverflow(NEIGHBOR_OVERFLOW)
                    .withAlpha(ALPHA)
                    .build();
            try (builder) {
                ImmutableGraphIndex graph = builder.build(values);
                try (var writer = new OnDiskGraphIndexWriter.Builder(graph, temp)
                        .withStartOffset(graphOffset)
                        .with(new InlineVectors(dimension))
                        .build()) {
                    writer.write(Feature.singleStateFactory(FeatureId.INLINE_VECTORS,
                            ordinal -> new InlineVectors.State(values.getVector(ordinal))));
                }
            }
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long fileLength = channel.size();
                int bodyCrc = crc(channel, headerLength, fileLength);
                ByteBuffer header = ByteBuffer.allocate(headerLength);
                header.put(MAGIC).putInt(FORMAT_VERSION).putInt(headerLength).putInt(dimension)
                      .putLong(vectorIds.length).putLong(vectorIds[vectorIds.length - 1]).putLong(graphOffset)
                      .putLong(fileLength).putInt(bodyCrc)
                      .putLong(storeId.getMostSignificantBits()).putLong(storeId.getLeastSignificantBits())
                      .putShort((short) model.length).put(model);
                CRC32C headerCrc = new CRC32C();
                headerCrc.update(header.array(), 0, header.position());
                header.putInt((int) headerCrc.getValue()).flip();
                for (long position = 0; header.hasRemaining(); ) {
                    position += channel.write(header, position);
                }
                channel.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            syncDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private static void syncDirectory(Path dir) {
        // Makes the rename durable on Linux; other systems may refuse to open a directory, and the
        // index is derived anyway, so a lost rename only costs a rebuild.
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // best effort
        }
    }

    private static int crc(FileChannel channel, long from, long to) throws IOException {
        CRC32C crc = new CRC32C();
        ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
        long position = from;
        while (position < to) {
            buffer.clear().limit((int) Math.min(buffer.capacity(), to - position));
            int read = channel.read(buffer, position);
            if (read < 0) {
                throw new IOException("unexpected end of file at " + position);
            }
            buffer.flip();
            crc.update(buffer);
            position += read;
        }
        return (int) crc.getValue();
    }

    // ---------------------------------------------------------------- loading

    /**
     * Loads and validates an index file: magic, format version, header checksum, model, length,
     * body checksum, the id map and the JVector graph's own header. Everything is read through
     * one mapping of the file, so a concurrent rename cannot mix two files.
     *
     * @throws InvalidIndexException with the reason when the file is missing, unreadable,
     *                               corrupt, of another format version or another model
     */
    static AnnGraph load(Path file, UUID storeId, String modelId, int dimension) throws InvalidIndexException {
        ReaderSupplier readers;
        try {
            readers = new MappedReaders(file);
        } catch (NoSuchFileException e) {
            throw new InvalidIndexException("index file missing");
        } catch (AccessDeniedException e) {
            throw new InvalidIndexException("index file unreadable (access denied)", e);
        } catch (IOException e) {
            throw new InvalidIndexException("index file unreadable (" + e + ")", e);
        }
        try {
            return validate(file, readers, storeId, modelId, dimension);
        } catch (InvalidIndexException | RuntimeException | IOException e) {
            try {
                readers.close();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof InvalidIndexException invalid) {
                throw invalid;
            }
            throw new InvalidIndexException("index file unreadable (" + e + ")", e);
        }
    }

    private static AnnGraph validate(Path file, ReaderSupplier readers, UUID storeId, String modelId, int dimension)
            throws IOException, InvalidIndexException {
        long[] vectorIds;
        long maxVectorId;
        long graphOffset;
        long fileLength;
        try (RandomAccessReader in = readers.get()) {
            fileLength = in.length();
            if (fileLength < FIXED_HEADER + 4) {
                throw new InvalidIndexException("index file truncated (" + fileLength + " bytes)");
            }
            byte[] fixed = new byte[FIXED_HEADER];
            in.seek(0);
            in.readFully(fixed);
            ByteBuffer h = ByteBuffer.wrap(fixed);
            byte[] magic = new byte[MAGIC.length];
            h.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new InvalidIndexException("not a Funes index file (bad magic)");
            }
            int version = h.getInt();
            if (version != FORMAT_VERSION) {
                throw new InvalidIndexException("index format version " + version + ", this Funes writes version "
                        + FORMAT_VERSION);
            }
            int headerLength = h.getInt();
            int fileDimension = h.getInt();
            long count = h.getLong();
            maxVectorId = h.getLong();
            graphOffset = h.getLong();
            long recordedLength = h.getLong();
            int bodyCrc = h.getInt();
            UUID fileStoreId = new UUID(h.getLong(), h.getLong());
            int modelLength = Short.toUnsignedInt(h.getShort());
            if (modelLength > MAX_MODEL_ID_BYTES || headerLength != FIXED_HEADER + modelLength + 4
                    || headerLength > fileLength) {
                throw new InvalidIndexException("index header corrupt (bad lengths)");
            }
            byte[] model = new byte[modelLength];
            in.readFully(model);
            int headerCrc = in.readInt();
            CRC32C crc = new CRC32C();
            crc.update(fixed);
            crc.update(model);
            if ((int) crc.getValue() != headerCrc) {
                throw new InvalidIndexException("index header checksum mismatch");
            }
            if (recordedLength != fileLength) {
                throw new InvalidIndexException("index file truncated or extended (" + fileLength + " bytes, header says "
                        + recordedLength + ")");
            }
            if (!fileStoreId.equals(storeId)) {
                throw new InvalidIndexException("index file belongs to another store (" + fileStoreId + ")");
            }
            String fileModel = new String(model, StandardCharsets.UTF_8);
            if (!fileModel.equals(modelId) || fileDimension != dimension) {
                throw new InvalidIndexException("index built for model " + fileModel + " (" + fileDimension
                        + " dimensions), the store uses " + modelId + " (" + dimension + ")");
            }
            if (count < 1 || count > Integer.MAX_VALUE || graphOffset != headerLength + Long.BYTES * count
                    || graphOffset >= fileLength) {
                throw new InvalidIndexException("index header corrupt (bad vector count " + count + ")");
            }
            if (bodyChecksum(in, headerLength, fileLength) != bodyCrc) {
                throw new InvalidIndexException("index file checksum mismatch (corrupt)");
            }
            vectorIds = new long[(int) count];
            in.seek(headerLength);
            for (int i = 0; i < vectorIds.length; i++) {
                vectorIds[i] = in.readLong();
                if (i > 0 && vectorIds[i] <= vectorIds[i - 1]) {
                    throw new InvalidIndexException("index id map corrupt (not increasing at ordinal " + i + ")");
                }
            }
            if (vectorIds[vectorIds.length - 1] != maxVectorId) {
                throw new InvalidIndexException("index id map corrupt (last id " + vectorIds[vectorIds.length - 1]
                        + " != " + maxVectorId + ")");
            }
        }
        OnDiskGraphIndex graph = OnDiskGraphIndex.load(readers, graphOffset);
        if (graph.size(0) != vectorIds.length || graph.getIdUpperBound() != vectorIds.length
                || graph.getDimension() != dimension) {
            graph.close();
            throw new InvalidIndexException("index graph does not match its header (" + graph.size(0) + " nodes, "
                    + vectorIds.length + " ids)");
        }
        return new AnnGraph(file, readers, graph, vectorIds, maxVectorId);
    }

    private static int bodyChecksum(RandomAccessReader in, long from, long to) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] chunk = new byte[1 << 20];
        in.seek(from);
        for (long position = from; position < to; ) {
            int n = (int) Math.min(chunk.length, to - position);
            byte[] target = n == chunk.length ? chunk : new byte[n];
            in.readFully(target);
            crc.update(target, 0, n);
            position += n;
        }
        return (int) crc.getValue();
    }
}
