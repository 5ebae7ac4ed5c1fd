package dev.funes.embed;

/** How a model's per-token vectors become one vector per text. */
public enum Pooling {
    /** The mean of the token vectors under the attention mask (sentence-transformers models). */
    MEAN,
    /** The vector of the first token, {@code [CLS]} (bge and other retrieval models). */
    CLS
}
