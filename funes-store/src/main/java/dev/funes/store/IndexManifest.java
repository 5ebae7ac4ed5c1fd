package dev.funes.store;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The manifest of a {@link SegmentedIndex}: the segments it lists and the deleted ids, in a
 * checksummed file replaced atomically, and its codec.
 *
 * @param identity    the store, model and dimension the index belongs to
 * @param nextSegment the number of the next segment file
 * @param segments    the listed segments, oldest first
 * @param tombstones  the deleted ids still present in a segment, sorted
 */
record IndexManifest(IndexSegment.Identity identity, long nextSegment, List<Segment> segments, long[] tombstones) {

    /** The manifest's file name. */
    static final String FILE = "manifest";
    private static final byte[] MAGIC = "FUNESMAN".getBytes(StandardCharsets.US_ASCII);
    private static final int VERSION = 1;

    /** A manifest line: one segment. */
    record Segment(String name, int count, long fileLength, int bodyCrc) {
    }

    /** Writes a manifest atomically: temporary file, fsync, rename, fsync of the directory. */
    static void write(Path file, IndexManifest m) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(MAGIC);
            out.writeInt(VERSION);
            out.writeLong(m.identity().storeId().getMostSignificantBits());
            out.writeLong(m.identity().storeId().getLeastSignificantBits());
            byte[] model = m.identity().modelId().getBytes(StandardCharsets.UTF_8);
            out.writeShort(model.length);
            out.write(model);
            out.writeInt(m.identity().dimension());
            out.writeLong(m.nextSegment());
            out.writeInt(m.segments().size());
            for (Segment e : m.segments()) {
                byte[] name = e.name().getBytes(StandardCharsets.UTF_8);
                out.writeShort(name.length);
                out.write(name);
                out.writeInt(e.count());
                out.writeLong(e.fileLength());
                out.writeInt(e.bodyCrc());
            }
            out.writeInt(m.tombstones().length);
            for (long t : m.tombstones()) {
                out.writeLong(t);
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes.toByteArray());
        ByteBuffer tail = ByteBuffer.allocate(4).putInt((int) crc.getValue());
        bytes.write(tail.array());
        Path dir = file.toAbsolutePath().getParent();
        Path temp = Files.createTempFile(dir, file.getFileName() + ".", ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                ByteBuffer buffer = ByteBuffer.wrap(bytes.toByteArray());
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            IndexSegment.syncDirectory(dir);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Reads and validates a manifest.
     *
     * @param expected the identity it must carry, or {@code null} to accept any
     */
    static IndexManifest read(Path file, IndexSegment.Identity expected) throws IndexSegment.InvalidIndexException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IndexSegment.InvalidIndexException("index manifest missing");
        } catch (IOException e) {
            throw new IndexSegment.InvalidIndexException("index manifest unreadable (" + e + ")", e);
        }
        if (bytes.length < MAGIC.length + 8
                || !Arrays.equals(Arrays.copyOf(bytes, MAGIC.length), MAGIC)) {
            throw new IndexSegment.InvalidIndexException("index manifest corrupt (not a Funes manifest)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(bytes, bytes.length - 4, 4).getInt()) {
            throw new IndexSegment.InvalidIndexException("index manifest corrupt (checksum mismatch)");
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes, 0, bytes.length - 4);
            in.position(MAGIC.length);
            int version = in.getInt();
            if (version != VERSION) {
                throw new IndexSegment.InvalidIndexException("index manifest format version " + version
                        + ", this Funes writes version " + VERSION);
            }
            UUID storeId = new UUID(in.getLong(), in.getLong());
            byte[] model = new byte[Short.toUnsignedInt(in.getShort())];
            in.get(model);
            IndexSegment.Identity identity = new IndexSegment.Identity(storeId,
                    new String(model, StandardCharsets.UTF_8), in.getInt());
            if (expected != null && !storeId.equals(expected.storeId())) {
                throw new IndexSegment.InvalidIndexException("index manifest belongs to another store (" + storeId + ")");
            }
            if (expected != null && !identity.equals(expected)) {
                throw new IndexSegment.InvalidIndexException("index built for model " + identity.modelId() + " ("
                        + identity.dimension() + " dimensions), the store uses " + expected.modelId() + " ("
                        + expected.dimension() + ")");
            }
            long next = in.getLong();
            int count = in.getInt();
            List<Segment> entries = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                byte[] name = new byte[Short.toUnsignedInt(in.getShort())];
                in.get(name);
                String n = new String(name, StandardCharsets.UTF_8);
                if (!n.matches("seg-[0-9]+\\.ann")) {
                    throw new IndexSegment.InvalidIndexException("index manifest corrupt (segment name " + n + ")");
                }
                entries.add(new Segment(n, in.getInt(), in.getLong(), in.getInt()));
            }
            long[] tombstones = new long[in.getInt()];
            for (int i = 0; i < tombstones.length; i++) {
                tombstones[i] = in.getLong();
            }
            if (in.hasRemaining()) {
                throw new IndexSegment.InvalidIndexException("index manifest corrupt (trailing bytes)");
            }
            return new IndexManifest(identity, next, List.copyOf(entries), tombstones);
        } catch (RuntimeException e) {
            throw new IndexSegment.InvalidIndexException("index manifest corrupt (" + e + ")", e);
        }
    }

    /**
     * What tells the manifest file in {@code dir} apart from the one it replaces (file key, time,
     * size); empty when there is none.
     */
    static Object stamp(Path dir) {
        try {
            BasicFileAttributes a = Files.readAttributes(dir.resolve(FILE), BasicFileAttributes.class);
            return Arrays.asList(a.fileKey(), a.lastModifiedTime(), a.size());
        } catch (IOException e) {
            return List.of();
        }
    }
}
