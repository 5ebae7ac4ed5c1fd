package dev.funes.embed;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.translate.NoBatchifyTranslator;
import ai.djl.translate.TranslatorContext;
import java.util.List;

/**
 * Feeds a batch of token windows to a BERT-style ONNX export and pools its token vectors into
 * one L2-normalized vector per window.
 *
 * <p>Pooling runs in plain Java on the output buffer: DJL's ONNX Runtime arrays support few
 * operators without a second engine (PyTorch), which Funes does not ship.
 */
final class WindowBatchTranslator implements NoBatchifyTranslator<List<TokenWindow>, float[][]> {

    static final String INPUT_IDS = "input_ids";
    static final String ATTENTION_MASK = "attention_mask";
    static final String TOKEN_TYPE_IDS = "token_type_ids";
    static final List<String> KNOWN_INPUTS = List.of(INPUT_IDS, ATTENTION_MASK, TOKEN_TYPE_IDS);

    private static final String LENGTHS = "lengths";

    private final List<String> inputNames;
    private final Pooling pooling;

    /**
     * @param inputNames the model's inputs, each one of {@link #KNOWN_INPUTS}
     * @param pooling    how token vectors become one vector
     */
    WindowBatchTranslator(List<String> inputNames, Pooling pooling) {
        this.inputNames = List.copyOf(inputNames);
        this.pooling = pooling;
    }

    @Override
    public NDList processInput(TranslatorContext ctx, List<TokenWindow> windows) {
        int rows = windows.size();
        int width = 0;
        for (TokenWindow window : windows) {
            width = Math.max(width, window.length());
        }
        // Padding ids stay 0: the attention mask hides them, so their value does not matter.
        long[] ids = new long[rows * width];
        long[] typeIds = new long[rows * width];
        long[] mask = new long[rows * width];
        int[] lengths = new int[rows];
        for (int row = 0; row < rows; row++) {
            TokenWindow window = windows.get(row);
            int offset = row * width;
            System.arraycopy(window.ids(), 0, ids, offset, window.length());
            System.arraycopy(window.typeIds(), 0, typeIds, offset, window.length());
            for (int i = 0; i < window.length(); i++) {
                mask[offset + i] = 1;
            }
            lengths[row] = window.length();
        }
        ctx.setAttachment(LENGTHS, lengths);

        NDManager manager = ctx.getNDManager();
        Shape shape = new Shape(rows, width);
        NDList inputs = new NDList(inputNames.size());
        for (String name : inputNames) {
            long[] data = switch (name) {
                case INPUT_IDS -> ids;
                case ATTENTION_MASK -> mask;
                case TOKEN_TYPE_IDS -> typeIds;
                default -> throw new IllegalStateException("unexpected model input " + name);
            };
            NDArray array = manager.create(data, shape);
            array.setName(name);
            inputs.add(array);
        }
        return inputs;
    }

    @Override
    public float[][] processOutput(TranslatorContext ctx, NDList outputs) {
        int[] lengths = (int[]) ctx.getAttachment(LENGTHS);
        NDArray hidden = tokenVectors(outputs);
        Shape shape = hidden.getShape();
        if (shape.get(0) != lengths.length) {
            throw new IllegalStateException("model returned " + shape.get(0) + " rows for " + lengths.length + " windows");
        }
        int width = Math.toIntExact(shape.get(1));
        int dimension = Math.toIntExact(shape.get(2));
        float[] data = hidden.toFloatArray();
        float[][] pooled = new float[lengths.length][];
        for (int row = 0; row < lengths.length; row++) {
            int rowOffset = row * width * dimension;
            float[] vector = new float[dimension];
            if (pooling == Pooling.CLS) {
                System.arraycopy(data, rowOffset, vector, 0, dimension);
            } else {
                for (int token = 0; token < lengths[row]; token++) {
                    int offset = rowOffset + token * dimension;
                    for (int d = 0; d < dimension; d++) {
                        vector[d] += data[offset + d];
                    }
                }
                // The mean's divisor is dropped: normalization cancels it.
            }
            pooled[row] = Vectors.normalize(vector);
        }
        return pooled;
    }

    /**
     * The per-token vectors: {@code last_hidden_state} when the model names it so, otherwise
     * its first three-dimensional float output (exports differ in naming).
     */
    private static NDArray tokenVectors(NDList outputs) {
        NDArray found = null;
        for (NDArray output : outputs) {
            boolean candidate = output.getShape().dimension() == 3 && output.getDataType() == DataType.FLOAT32;
            if (candidate && "last_hidden_state".equals(output.getName())) {
                return output;
            }
            if (candidate && found == null) {
                found = output;
            }
        }
        if (found == null) {
            StringBuilder seen = new StringBuilder();
            for (NDArray output : outputs) {
                seen.append(' ').append(output.getName()).append(output.getShape()).append(output.getDataType());
            }
            throw new IllegalStateException("model has no float32 output of shape [batch, tokens, dimension];"
                    + " outputs:" + seen);
        }
        return found;
    }
}
