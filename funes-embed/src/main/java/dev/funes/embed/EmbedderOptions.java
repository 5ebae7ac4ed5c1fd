package dev.funes.embed;

import java.util.Objects;

/**
 * How to run an ONNX text-embedding export: its pooling, its query and document prefixes, its
 * window and the batch size. Built with {@link #builder()}, validated on construction, immutable.
 *
 * <pre>{@code
 * EmbedderOptions options = EmbedderOptions.builder()
 *         .pooling(Pooling.CLS)
 *         .queryPrefix("Represent this sentence for searching relevant passages: ")
 *         .maxTokens(512)
 *         .build();
 * }</pre>
 *
 * <p>Pooling, prefixes and window change the vectors a model returns; the batch size does not.
 *
 * @param pooling        how token vectors become one vector
 * @param queryPrefix    prepended to every query by {@link dev.funes.Embedder#embedQuery(String)}, never
 *                       to documents; empty for none
 * @param documentPrefix put before the text of every window of every document embedded by
 *                       {@link dev.funes.Embedder#embedDocuments(java.util.List)}, never before
 *                       queries; empty for none. A long document cut into windows gets it in each
 *                       window, so every window is read as a passage (e5's {@code "passage: "})
 * @param maxTokens      the model's window in tokens, special tokens included; at least 8
 * @param batchSize      at most how many token windows go through the model at once; at least 1.
 *                       Batches also stop at 512 padded tokens, and models whose vectors depend on
 *                       their batch neighbours (dynamically quantized int8 exports, found by a probe
 *                       when the model loads) always run one window at a time
 */
public record EmbedderOptions(Pooling pooling, String queryPrefix, String documentPrefix, int maxTokens,
                              int batchSize) {

    /** The default window, the usual limit of BERT-style encoders. */
    public static final int DEFAULT_MAX_TOKENS = 512;
    /**
     * The default batch size. Batches are also capped at 512 padded tokens, so this only matters
     * for short texts; on two cores, short texts embed about 1.5 times faster in batches than
     * one at a time.
     */
    public static final int DEFAULT_BATCH_SIZE = 32;

    /** Validates the options. */
    public EmbedderOptions {
        Objects.requireNonNull(pooling, "pooling");
        Objects.requireNonNull(queryPrefix, "queryPrefix");
        Objects.requireNonNull(documentPrefix, "documentPrefix");
        if (maxTokens < 8) {
            throw new IllegalArgumentException("maxTokens must be at least 8, was " + maxTokens);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batchSize must be at least 1, was " + batchSize);
        }
    }

    /**
     * A builder starting from mean pooling, no prefixes, {@value #DEFAULT_MAX_TOKENS} tokens
     * and batches of {@value #DEFAULT_BATCH_SIZE}.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** The same options with another batch size. */
    public EmbedderOptions withBatchSize(int batchSize) {
        return new EmbedderOptions(pooling, queryPrefix, documentPrefix, maxTokens, batchSize);
    }

    /** Builds {@link EmbedderOptions}; every setter returns this builder. */
    public static final class Builder {
        private Pooling pooling = Pooling.MEAN;
        private String queryPrefix = "";
        private String documentPrefix = "";
        private int maxTokens = DEFAULT_MAX_TOKENS;
        private int batchSize = DEFAULT_BATCH_SIZE;

        private Builder() {
        }

        /** How token vectors become one vector. */
        public Builder pooling(Pooling pooling) {
            this.pooling = pooling;
            return this;
        }

        /** The instruction the model expects before queries; empty for none. */
        public Builder queryPrefix(String queryPrefix) {
            this.queryPrefix = queryPrefix;
            return this;
        }

        /** The text the model expects before every document (or window of one); empty for none. */
        public Builder documentPrefix(String documentPrefix) {
            this.documentPrefix = documentPrefix;
            return this;
        }

        /** The model's window in tokens, special tokens included. */
        public Builder maxTokens(int maxTokens) {
            this.maxTokens = maxTokens;
            return this;
        }

        /** How many token windows go through the model at once. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /**
         * The options.
         *
         * @throws IllegalArgumentException if a value is out of range
         */
        public EmbedderOptions build() {
            return new EmbedderOptions(pooling, queryPrefix, documentPrefix, maxTokens, batchSize);
        }
    }
}
