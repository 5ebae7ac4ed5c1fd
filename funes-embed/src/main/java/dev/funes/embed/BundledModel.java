package dev.funes.embed;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The embedding models Funes ships, read from the class path: each model's {@code .onnx} file and
 * tokenizer are in its artifact {@code dev.funes:funes-model-<id>} (copied from LangChain4j's
 * model jars). All return 384-dimensional vectors. {@code funes-embed} brings the {@link #DEFAULT}
 * model only; the others are optional, and the error opening a store built with a missing one names
 * its artifact.
 */
public enum BundledModel {

    /** all-MiniLM-L6-v2 quantized to int8: mean pooling, no prefixes, 256 tokens. */
    ALL_MINILM_L6_V2_Q("all-minilm-l6-v2-q", "all-minilm-l6-v2-q",
            "funes-model-all-minilm-l6-v2-q", Pooling.MEAN, "", "", 256),

    /** all-MiniLM-L6-v2 in fp32: mean pooling, no prefixes, 256 tokens. */
    ALL_MINILM_L6_V2("all-minilm-l6-v2", "all-minilm-l6-v2",
            "funes-model-all-minilm-l6-v2", Pooling.MEAN, "", "", 256),

    /**
     * bge-small-en-v1.5 quantized to int8: CLS pooling, the bge retrieval instruction before
     * queries, no document prefix, 512 tokens.
     */
    BGE_SMALL_EN_V15_Q("bge-small-en-v15-q", "bge-small-en-v1.5-q",
            "funes-model-bge-small-en-v15-q", Pooling.CLS,
            "Represent this sentence for searching relevant passages: ", "", 512),

    /**
     * e5-small-v2 quantized to int8: mean pooling, {@code "query: "} before queries and
     * {@code "passage: "} before documents (the model was trained with both), 512 tokens.
     */
    E5_SMALL_V2_Q("e5-small-v2-q", "e5-small-v2-q",
            "funes-model-e5-small-v2-q", Pooling.MEAN, "query: ", "passage: ", 512);

    /** The model used when none is chosen: small, fast, good enough for most memories. */
    public static final BundledModel DEFAULT = ALL_MINILM_L6_V2_Q;

    private final String id;
    private final String resourceStem;
    private final String artifactId;
    private final Pooling pooling;
    private final String queryPrefix;
    private final String documentPrefix;
    private final int maxTokens;

    BundledModel(String id, String resourceStem, String artifactId, Pooling pooling, String queryPrefix,
                 String documentPrefix, int maxTokens) {
        this.id = id;
        this.resourceStem = resourceStem;
        this.artifactId = artifactId;
        this.pooling = pooling;
        this.queryPrefix = queryPrefix;
        this.documentPrefix = documentPrefix;
        this.maxTokens = maxTokens;
    }

    /** The stable model id a store records, for example {@code all-minilm-l6-v2-q}. */
    public String id() {
        return id;
    }

    /** The length of this model's vectors. */
    public int dimension() {
        return 384;
    }

    /** How this model is run, with the default batch size. */
    public EmbedderOptions options() {
        return new EmbedderOptions(pooling, queryPrefix, documentPrefix, maxTokens,
                EmbedderOptions.DEFAULT_BATCH_SIZE);
    }

    /**
     * The bundled model with this id.
     *
     * @throws IllegalArgumentException if no bundled model has this id; the message lists the valid ids
     */
    public static BundledModel fromId(String id) {
        for (BundledModel model : values()) {
            if (model.id.equals(id)) {
                return model;
            }
        }
        throw new IllegalArgumentException("unknown bundled model id '" + id + "'; valid ids: " + validIds());
    }

    static String validIds() {
        return Arrays.stream(values()).map(BundledModel::id).collect(Collectors.joining(", "));
    }

    /**
     * Where the class path holds this model's {@code .onnx} file (a {@code jar:} URL into the
     * model's jar, or a {@code file:} URL when the class path holds its build's folder), for a caller that keeps a copy of it to pass to
     * {@link Embedders#bundled(BundledModel, java.nio.file.Path)}; null when the model's jar is not
     * on the class path.
     */
    public java.net.URL modelFileResource() {
        ClassLoader loader = BundledModel.class.getClassLoader();
        return (loader != null ? loader : ClassLoader.getSystemClassLoader()).getResource(modelResource());
    }

    /** The class-path name of the ONNX file. */
    String modelResource() {
        return resourceStem + ".onnx";
    }

    /** The class-path name of the tokenizer. */
    String tokenizerResource() {
        return resourceStem + "-tokenizer.json";
    }

    /** The Maven coordinates of the Funes artifact that brings this model, for error messages. */
    String artifact() {
        return "dev.funes:" + artifactId;
    }
}
