package dev.funes.bench.corpus;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32;

/**
 * The corpus cache's two file kinds, each written to a temporary file and moved in place, and
 * each ending with a CRC32 of all bytes before it.
 *
 * <p>Vectors ({@code .vec}): {@code "FUNESVEC"}, format version (int), count (int), dimension
 * (int), CRC32 of the companion texts file (long), model id ({@code writeUTF}), then
 * {@code count * dimension} big-endian floats, then the CRC32 (long). Texts ({@code .jsonl}): one
 * JSON object {@code {"agent":..., "text":...}} per line, the vectors' order.
 *
 * <p>Ground truth ({@code .truth}): {@code "FUNESGT1"}, count of corpus vectors (int), queries
 * (int), k (int), a fingerprint of the vectors searched (long), then {@code queries * k} ints
 * (each query's exact top k, best first), then the CRC32 (long).
 */
final class CorpusFiles {

    static final byte[] VEC_MAGIC = "FUNESVEC".getBytes(StandardCharsets.US_ASCII);
    static final byte[] TRUTH_MAGIC = "FUNESGT1".getBytes(StandardCharsets.US_ASCII);
    static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Vectors with their texts as read from the cache. */
    record Vectors(String modelId, int dimension, float[] flat, List<RealTexts.Text> texts) {
        int count() {
            return texts.size();
        }
    }

    private CorpusFiles() {
    }

    static void writeVectors(Path vec, Path texts, String modelId, int dimension, float[] flat,
                             List<RealTexts.Text> items) throws IOException {
        if (flat.length != items.size() * dimension) {
            throw new IllegalArgumentException(flat.length + " floats for " + items.size() + " texts of dimension " + dimension);
        }
        ByteArrayOutputStream textBytes = new ByteArrayOutputStream();
        for (RealTexts.Text t : items) {
            textBytes.write(JSON.writeValueAsBytes(new TextLine(t.agent(), t.text())));
            textBytes.write('\n');
        }
        byte[] textData = textBytes.toByteArray();
        replace(texts, false, out -> out.write(textData));
        replace(vec, true, raw -> {
            DataOutputStream out = new DataOutputStream(raw);
            out.write(VEC_MAGIC);
            out.writeInt(VERSION);
            out.writeInt(items.size());
            out.writeInt(dimension);
            out.writeLong(crc(textData, textData.length));
            out.writeUTF(modelId);
            for (float f : flat) {
                out.writeFloat(f);
            }
        });
    }

    /** A line of the texts file. */
    record TextLine(String agent, String text) {
    }

    /**
     * Reads vectors and texts written by {@link #writeVectors}.
     *
     * @throws IOException naming the file if it is truncated, damaged or does not match its texts
     */
    static Vectors readVectors(Path vec, Path texts) throws IOException {
        byte[] bytes = checked(vec, VEC_MAGIC);
        ByteBuffer in = ByteBuffer.wrap(bytes, VEC_MAGIC.length, bytes.length - VEC_MAGIC.length - Long.BYTES);
        int version = in.getInt();
        if (version != VERSION) {
            throw new IOException(vec + ": format version " + version + ", expected " + VERSION);
        }
        int count = in.getInt();
        int dimension = in.getInt();
        long textsCrc = in.getLong();
        byte[] idBytes = new byte[in.getShort() & 0xffff];
        in.get(idBytes);
        String modelId = new String(idBytes, StandardCharsets.UTF_8);
        if (in.remaining() != (long) count * dimension * Float.BYTES) {
            throw new IOException(vec + ": " + in.remaining() + " bytes of vectors, expected "
                    + (long) count * dimension * Float.BYTES);
        }
        float[] flat = new float[count * dimension];
        in.asFloatBuffer().get(flat);
        byte[] textData = Files.readAllBytes(texts);
        if (crc(textData, textData.length) != textsCrc) {
            throw new IOException(texts + ": checksum does not match " + vec + " (damaged or from another build)");
        }
        List<RealTexts.Text> items = new ArrayList<>(count);
        int line = 0;
        for (String s : new String(textData, StandardCharsets.UTF_8).split("\n")) {
            line++;
            if (s.isEmpty()) {
                continue;
            }
            TextLine t = JSON.readValue(s, TextLine.class);
            if (t.text() == null || t.agent() == null) {
                throw new IOException(texts + ":" + line + ": needs agent and text");
            }
            items.add(new RealTexts.Text(t.agent(), t.text()));
        }
        if (items.size() != count) {
            throw new IOException(texts + ": " + items.size() + " texts, " + vec + " has " + count + " vectors");
        }
        return new Vectors(modelId, dimension, flat, items);
    }

    static void writeTruth(Path file, int corpusSize, long fingerprint, int k, int[][] truth) throws IOException {
        replace(file, true, raw -> {
            DataOutputStream out = new DataOutputStream(raw);
            out.write(TRUTH_MAGIC);
            out.writeInt(corpusSize);
            out.writeInt(truth.length);
            out.writeInt(k);
            out.writeLong(fingerprint);
            for (int[] row : truth) {
                if (row.length != k) {
                    throw new IllegalArgumentException("a truth row of " + row.length + " ids, expected " + k);
                }
                for (int id : row) {
                    out.writeInt(id);
                }
            }
        });
    }

    /**
     * Reads a ground-truth file, or returns {@code null} when it was made for other vectors (a
     * different size, query count, k or fingerprint) and must be computed again.
     *
     * @throws IOException naming the file if it is truncated or damaged
     */
    static int[][] readTruth(Path file, int corpusSize, long fingerprint, int queries, int k) throws IOException {
        byte[] bytes = checked(file, TRUTH_MAGIC);
        ByteBuffer in = ByteBuffer.wrap(bytes, TRUTH_MAGIC.length, bytes.length - TRUTH_MAGIC.length - Long.BYTES);
        if (in.getInt() != corpusSize || in.getInt() != queries || in.getInt() != k || in.getLong() != fingerprint) {
            return null;
        }
        if (in.remaining() != (long) queries * k * Integer.BYTES) {
            throw new IOException(file + ": " + in.remaining() + " bytes of ids, expected " + (long) queries * k * Integer.BYTES);
        }
        int[][] truth = new int[queries][k];
        for (int[] row : truth) {
            for (int i = 0; i < k; i++) {
                row[i] = in.getInt();
                if (row[i] < 0 || row[i] >= corpusSize) {
                    throw new IOException(file + ": id " + row[i] + " outside the corpus of " + corpusSize);
                }
            }
        }
        return truth;
    }

    /** The file's bytes after checking its magic and its trailing CRC32. */
    private static byte[] checked(Path file, byte[] magic) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length < magic.length + Long.BYTES
                || !Arrays.equals(Arrays.copyOf(bytes, magic.length), magic)) {
            throw new IOException(file + ": not a " + new String(magic, StandardCharsets.US_ASCII) + " file");
        }
        long stored = ByteBuffer.wrap(bytes, bytes.length - Long.BYTES, Long.BYTES).getLong();
        if (crc(bytes, bytes.length - Long.BYTES) != stored) {
            throw new IOException(file + ": checksum mismatch (truncated or damaged; delete it to rebuild)");
        }
        return bytes;
    }

    static long crc(byte[] bytes, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return crc.getValue();
    }

    @FunctionalInterface
    private interface Body {
        void write(OutputStream out) throws IOException;
    }

    /** Writes the body (plus its CRC32 if asked) to a temporary file, then moves it over {@code file}. */
    private static void replace(Path file, boolean checksum, Body body) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), file.getFileName() + ".", ".tmp");
        try {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            body.write(buffer);
            byte[] bytes = buffer.toByteArray();
            try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(temp)))) {
                out.write(bytes);
                if (checksum) {
                    out.writeLong(crc(bytes, bytes.length));
                }
            }
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
