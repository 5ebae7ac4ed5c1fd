package dev.funes.store;

import io.github.jbellis.jvector.disk.RandomAccessReader;
import io.github.jbellis.jvector.disk.ReaderSupplier;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Readers of one index file that all share a single memory mapping of it, made when the file is
 * opened. JVector's {@code MappedChunkReader.Supplier} maps the whole file again for every
 * reader, that is for every search, so each search paid for a fresh mapping (page faults on every
 * page it touched, and an unmapping later); with one mapping the pages stay mapped between
 * searches.
 *
 * <p>The file is mapped in chunks of 2<sup>{@value #CHUNK_BITS}</sup> bytes (1 GiB), so files over 2 GiB work;
 * a read across a chunk boundary is split. Big-endian, as JVector writes. Thread-safe: readers
 * only use absolute reads of the shared buffers and keep their own position. The mapping is
 * released when the supplier is no longer referenced (Java cannot unmap explicitly); readers
 * handed out stay valid after {@link #close()}, so a search still running keeps working.
 */
final class MappedReaders implements ReaderSupplier {

    static final int CHUNK_BITS = 30;

    private final Path file;
    private final int chunkBits;
    private final long chunkMask;
    private final ByteBuffer[] chunks;
    private final long length;

    /** Maps {@code file} (read-only); the file may be renamed or replaced afterwards. */
    MappedReaders(Path file) throws IOException {
        this(file, CHUNK_BITS);
    }

    /** Maps {@code file} in chunks of 2<sup>chunkBits</sup> bytes; tests use small chunks to split reads. */
    MappedReaders(Path file, int chunkBits) throws IOException {
        if (chunkBits < 3 || chunkBits > CHUNK_BITS) {
            throw new IllegalArgumentException("chunkBits must be 3 to " + CHUNK_BITS + ", was " + chunkBits);
        }
        this.file = file;
        this.chunkBits = chunkBits;
        long chunk = 1L << chunkBits;
        this.chunkMask = chunk - 1;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            length = channel.size();
            int n = (int) ((length + chunk - 1) >>> chunkBits);
            chunks = new ByteBuffer[n];
            for (int i = 0; i < n; i++) {
                long start = (long) i << chunkBits;
                chunks[i] = channel.map(FileChannel.MapMode.READ_ONLY, start, Math.min(chunk, length - start));
            }
        }
    }

    @Override
    public RandomAccessReader get() {
        return new Reader();
    }

    /** Nothing to release: the mapping goes with the last reference to it. */
    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "MappedReaders[" + file + ", " + length + " bytes]";
    }

    /** One reader: a position over the shared chunks. */
    private final class Reader implements RandomAccessReader {

        private long position;

        @Override
        public void seek(long offset) {
            position = offset;
        }

        @Override
        public long getPosition() {
            return position;
        }

        @Override
        public long length() {
            return length;
        }

        /** The chunk holding {@code size} bytes at the position, or null when they span two chunks. */
        private ByteBuffer chunkFor(int size) throws EOFException {
            if (position < 0 || position + size > length) {
                throw new EOFException("reading " + size + " bytes at " + position + " past the end (" + length
                        + " bytes) of " + file);
            }
            int c = (int) (position >>> chunkBits);
            return (position + size - 1) >>> chunkBits == c ? chunks[c] : null;
        }

        private int offset() {
            return (int) (position & chunkMask);
        }

        @Override
        public int readInt() throws IOException {
            ByteBuffer b = chunkFor(Integer.BYTES);
            int v = b != null ? b.getInt(offset()) : (int) readSplit(Integer.BYTES);
            if (b != null) {
                position += Integer.BYTES;
            }
            return v;
        }

        @Override
        public long readLong() throws IOException {
            ByteBuffer b = chunkFor(Long.BYTES);
            long v = b != null ? b.getLong(offset()) : readSplit(Long.BYTES);
            if (b != null) {
                position += Long.BYTES;
            }
            return v;
        }

        @Override
        public float readFloat() throws IOException {
            return Float.intBitsToFloat(readInt());
        }

        /** A big-endian value of {@code size} bytes read byte by byte (it spans two chunks). */
        private long readSplit(int size) throws IOException {
            byte[] bytes = new byte[size];
            readFully(bytes);
            long v = 0;
            for (byte b : bytes) {
                v = (v << 8) | (b & 0xFF);
            }
            return v;
        }

        @Override
        public void readFully(byte[] bytes) throws IOException {
            chunkFor(bytes.length); // bounds
            int done = 0;
            while (done < bytes.length) {
                ByteBuffer b = chunks[(int) (position >>> chunkBits)];
                int n = (int) Math.min(bytes.length - done, b.capacity() - offset());
                b.get(offset(), bytes, done, n);
                done += n;
                position += n;
            }
        }

        @Override
        public void readFully(ByteBuffer buffer) throws IOException {
            chunkFor(buffer.remaining()); // bounds
            while (buffer.hasRemaining()) {
                ByteBuffer b = chunks[(int) (position >>> chunkBits)];
                int n = (int) Math.min(buffer.remaining(), b.capacity() - offset());
                buffer.put(b.slice(offset(), n));
                position += n;
            }
        }

        @Override
        public void readFully(long[] values) throws IOException {
            ByteBuffer b = chunkFor(values.length * Long.BYTES);
            if (b != null) {
                b.slice(offset(), values.length * Long.BYTES).asLongBuffer().get(values);
                position += (long) values.length * Long.BYTES;
            } else {
                for (int i = 0; i < values.length; i++) {
                    values[i] = readLong();
                }
            }
        }

        @Override
        public void read(int[] values, int from, int count) throws IOException {
            ByteBuffer b = chunkFor(count * Integer.BYTES);
            if (b != null) {
                b.slice(offset(), count * Integer.BYTES).asIntBuffer().get(values, from, count);
                position += (long) count * Integer.BYTES;
            } else {
                for (int i = 0; i < count; i++) {
                    values[from + i] = readInt();
                }
            }
        }

        @Override
        public void read(float[] values, int from, int count) throws IOException {
            ByteBuffer b = chunkFor(count * Float.BYTES);
            if (b != null) {
                b.slice(offset(), count * Float.BYTES).asFloatBuffer().get(values, from, count);
                position += (long) count * Float.BYTES;
            } else {
                for (int i = 0; i < count; i++) {
                    values[from + i] = readFloat();
                }
            }
        }

        @Override
        public void close() {
        }
    }
}
