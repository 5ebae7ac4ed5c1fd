package dev.funes.store;

import io.github.jbellis.jvector.disk.RandomAccessReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link MappedReaders} reads what {@link DataInputStream} reads from the same bytes, whole chunks
 * or split across chunk boundaries (8- and 16-byte chunks make every kind of read cross one).
 */
class MappedReadersTest {

    @TempDir
    Path dir;

    @Test
    void readsLikeADataInputStreamWithAnyChunkSize() throws IOException {
        byte[] bytes = new byte[1_000];
        new Random(7).nextBytes(bytes);
        Path file = Files.write(dir.resolve("data.bin"), bytes);
        for (int bits : new int[] {3, 4, 5, MappedReaders.CHUNK_BITS}) {
            for (int start = 0; start < 24; start++) {
                try (MappedReaders readers = new MappedReaders(file, bits);
                     RandomAccessReader r = readers.get()) {
                    DataInputStream expected = new DataInputStream(new ByteArrayInputStream(bytes));
                    expected.skipNBytes(start);
                    r.seek(start);
                    String where = "chunk bits " + bits + ", start " + start;
                    assertEquals(bytes.length, r.length(), where);
                    assertEquals(expected.readInt(), r.readInt(), where);
                    assertEquals(expected.readLong(), r.readLong(), where);
                    assertEquals(expected.readFloat(), r.readFloat(), where);
                    int[] ints = new int[7];
                    r.read(ints, 2, 5);
                    for (int i = 2; i < 7; i++) {
                        assertEquals(expected.readInt(), ints[i], where);
                    }
                    float[] floats = new float[9];
                    r.read(floats, 0, 9);
                    for (float f : floats) {
                        assertEquals(expected.readFloat(), f, where);
                    }
                    long[] longs = new long[5];
                    r.readFully(longs);
                    for (long l : longs) {
                        assertEquals(expected.readLong(), l, where);
                    }
                    byte[] some = new byte[37];
                    r.readFully(some);
                    assertArrayEquals(expected.readNBytes(37), some, where);
                    ByteBuffer buffer = ByteBuffer.allocate(41);
                    r.readFully(buffer);
                    assertArrayEquals(expected.readNBytes(41), buffer.array(), where);
                    assertEquals(start + 4 + 8 + 4 + 20 + 36 + 40 + 37 + 41, r.getPosition(), where);
                }
            }
        }
    }

    @Test
    void readersAreIndependentAndReadingPastTheEndFails() throws IOException {
        byte[] bytes = new byte[64];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) i;
        }
        Path file = Files.write(dir.resolve("small.bin"), bytes);
        MappedReaders readers = new MappedReaders(file, 4);
        RandomAccessReader a = readers.get();
        RandomAccessReader b = readers.get();
        a.seek(60);
        assertEquals(0x3C3D3E3F, a.readInt());
        assertEquals(0x00010203, b.readInt());
        assertThrows(EOFException.class, a::readInt);
        b.seek(57);
        assertThrows(EOFException.class, b::readLong);
        assertEquals(57, b.getPosition(), "a failed read does not move the reader");
        readers.close();
        assertEquals(0x393A3B3C, b.readInt(), "readers stay valid after the supplier is closed");
    }
}
