package dev.funes.embed;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes a one-node ONNX model (an Identity on an int64 [batch, tokens] tensor), encoding the
 * protobuf by hand: enough to give the loader a real model with the wrong inputs or outputs.
 */
final class TinyOnnx {

    private static final int INT64 = 7;

    private TinyOnnx() {
    }

    /** A model whose input {@code inputName} is returned unchanged as output {@code y}. */
    static byte[] identity(String inputName) {
        byte[] node = concat(string(1, inputName), string(2, "y"), string(4, "Identity"));
        byte[] graph = concat(message(1, node), string(2, "identity"),
                message(11, valueInfo(inputName)), message(12, valueInfo("y")));
        byte[] opset = varint(2, 13);
        return concat(varint(1, 8), message(7, graph), message(8, opset));
    }

    private static byte[] valueInfo(String name) {
        byte[] shape = concat(message(1, string(2, "batch")), message(1, string(2, "tokens")));
        byte[] tensorType = concat(varint(1, INT64), message(2, shape));
        return concat(string(1, name), message(2, message(1, tensorType)));
    }

    private static byte[] varint(int field, long value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeVarint(out, (long) field << 3);
        writeVarint(out, value);
        return out.toByteArray();
    }

    private static byte[] string(int field, String value) {
        return message(field, value.getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] message(int field, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeVarint(out, ((long) field << 3) | 2);
        writeVarint(out, body.length);
        out.writeBytes(body);
        return out.toByteArray();
    }

    private static void writeVarint(ByteArrayOutputStream out, long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
