package dev.funes.embed;

import dev.funes.EmbeddingException;

/** Small vector arithmetic on float arrays. */
final class Vectors {

    private Vectors() {
    }

    /**
     * Scales the vector to unit length in place and returns it.
     *
     * @throws EmbeddingException if the vector is zero or not finite
     */
    static float[] normalize(float[] vector) {
        double sum = 0;
        for (float v : vector) {
            sum += (double) v * v;
        }
        if (sum == 0 || !Double.isFinite(sum)) {
            throw new EmbeddingException("the model returned a vector that cannot be normalized (norm² " + sum + ")");
        }
        float scale = (float) (1 / Math.sqrt(sum));
        for (int i = 0; i < vector.length; i++) {
            vector[i] *= scale;
        }
        return vector;
    }

    /** {@code target += weight * vector}. */
    static void addScaled(float[] target, float[] vector, float weight) {
        for (int i = 0; i < target.length; i++) {
            target[i] += weight * vector[i];
        }
    }
}
