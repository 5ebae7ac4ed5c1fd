package dev.funes.embed;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.engine.Engine;
import ai.djl.engine.EngineException;
import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.inference.Predictor;
import ai.djl.translate.TranslateException;
import dev.funes.Embedder;
import dev.funes.EmbeddingException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link Embedder} running a BERT-style ONNX export through DJL's ONNX Runtime engine, with a
 * HuggingFace tokenizer. See {@link Embedders} for how long texts and batches are handled.
 *
 * <p>One lock guards the tokenizer, the predictor and {@link #close()}: a DJL predictor is not
 * thread-safe, ONNX Runtime already spreads one batch over every core, and holding the lock while
 * tokenizing means {@code close()} can never free the native tokenizer under a running call. A
 * long {@link #embedDocuments} takes the lock once per batch, so queries from other threads
 * interleave with it.
 *
 * <p>Queries run through a second session of the same model with one intra-op thread
 * ({@link #QUERY_THREADS}). A session's intra-op threads spin while they wait for work, and a
 * hybrid search runs its full-text ranking on both cores of a small machine at the same moment
 * as the query embedding: a spinning pool that lost its core to the ranking made the 1M hybrid
 * search about 1.8 times slower (docs/BENCHMARKS.md). One short query gains little from a
 * second thread anyway, and documents keep the session that uses every core. The document
 * session is made on the first {@link #embedDocuments}: a command that only searches never pays
 * for it (0.2 s of CPU, docs/BENCHMARKS.md).
 */
final class OnnxEmbedder implements Embedder {

    private static final Logger LOG = LoggerFactory.getLogger(OnnxEmbedder.class);

    /**
     * At most this many padded tokens per model run. Measured with all-MiniLM-L6-v2 fp32 on two
     * cores: 256 to 512 embed short texts and 256-token windows fastest; 1,024 is about 10% slower
     * on full windows and 2,048 about 15%, because attention cost grows with the batch.
     */
    static final int MAX_BATCH_TOKENS = 512;
    /** Intra-op threads of the session that embeds queries; see the class comment. */
    static final int QUERY_THREADS = 1;
    /** DJL's name of its ONNX Runtime engine. */
    static final String ENGINE = "OnnxRuntime";
    /** Two texts of different lengths, so that embedding them together pads the short one. */
    private static final List<String> PROBE = List.of("",
            "a probe text long enough that the empty one is padded when both share a batch");

    private final String modelId;
    private final EmbedderOptions options;
    private final HuggingFaceTokenizer tokenizer;
    private final ModelFile modelFile;
    private final String what;
    private final List<String> inputs;
    private Model model; // guarded by lock; null until the first document is embedded
    private Predictor<List<TokenWindow>, float[][]> predictor; // guarded by lock
    private final Model queryModel;
    private final Predictor<List<TokenWindow>, float[][]> queryPredictor;
    private final ReentrantLock lock = new ReentrantLock();
    private final int dimension;
    private final int batchSize;
    /** The document prefix's tokens without special tokens; empty arrays when there is none. */
    private final long[] prefixIds;
    private final long[] prefixTypeIds;
    /** How many special tokens the tokenizer puts before a text ({@code [CLS]}); 0 without a document prefix. */
    private final int prefixLead;
    private boolean closed; // guarded by lock

    private OnnxEmbedder(String modelId, EmbedderOptions options, HuggingFaceTokenizer tokenizer, ModelFile modelFile,
                         String what, List<String> inputs, Model queryModel,
                         Predictor<List<TokenWindow>, float[][]> queryPredictor) {
        this.modelId = modelId;
        this.options = options;
        this.tokenizer = tokenizer;
        this.modelFile = modelFile;
        this.what = what;
        this.inputs = inputs;
        this.queryModel = queryModel;
        this.queryPredictor = queryPredictor;
        Encoding prefix = options.documentPrefix().isEmpty() ? null : encode(options.documentPrefix(), -1);
        this.prefixIds = prefix == null ? new long[0] : textTokens(prefix, prefix.getIds());
        this.prefixTypeIds = prefix == null ? new long[0] : textTokens(prefix, prefix.getTypeIds());
        this.prefixLead = prefix == null ? 0 : leadingSpecialTokens(prefix);
        // The query session answers the probe: whether a model's vectors depend on their batch is
        // the model's property, not its session's thread count.
        List<float[]> alone = List.of(embed(PROBE.subList(0, 1), false, 1, queryPredictor).get(0),
                embed(PROBE.subList(1, 2), false, 1, queryPredictor).get(0));
        this.dimension = alone.get(0).length;
        this.batchSize = batchIndependent(alone, embed(PROBE, false, 2, queryPredictor)) ? options.batchSize() : 1;
    }

    /**
     * Whether a text gets the same vector alone and in a padded batch. Dynamically quantized
     * exports (int8 models with DynamicQuantizeLinear, such as the bundled ones) scale each
     * tensor by its own range, padding included, so a text's vector would depend on its batch
     * neighbours (cosine down to 0.98 in measurements); such models run one window at a time.
     */
    private boolean batchIndependent(List<float[]> alone, List<float[]> together) {
        for (int i = 0; i < alone.size(); i++) {
            for (int d = 0; d < dimension; d++) {
                if (Math.abs(alone.get(i)[d] - together.get(i)[d]) > 1e-4f) {
                    LOG.debug("{} gives batch-dependent vectors: embedding one window at a time", modelId);
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Loads a model. ONNX Runtime reads {@code modelFile} completely while loading, so the caller
     * may delete it once this returns.
     *
     * @param modelId       the id to report
     * @param modelFile     the {@code .onnx} file
     * @param tokenizerJson a HuggingFace {@code tokenizer.json}, read and left open
     * @param what          names the model's origin in error messages
     */
    static OnnxEmbedder open(String modelId, ModelFile modelFile, InputStream tokenizerJson, EmbedderOptions options,
                             String what) {
        DjlSettings.applyOfflineDefaults();
        long start = System.nanoTime();
        HuggingFaceTokenizer tokenizer = null;
        Model queryModel = null;
        Predictor<List<TokenWindow>, float[][]> queryPredictor = null;
        startEngine();
        try {
            try {
                // The tokenizer files set their own truncation and padding (MiniLM's pads
                // everything to 128 tokens); windows and padding are done here instead.
                tokenizer = HuggingFaceTokenizer.newInstance(tokenizerJson,
                        Map.of("addSpecialTokens", "true", "truncation", "false", "padding", "false"));
            } catch (EngineException | LinkageError e) {
                throw new EmbeddingException(NativePlatforms.tokenizerUnavailable(NativePlatforms.current(), what,
                        rootMessage(e)), e);
            } catch (IOException | RuntimeException e) {
                throw new EmbeddingException("cannot read the tokenizer of " + what + ": " + rootMessage(e), e);
            }
            try {
                queryModel = Model.newInstance(modelId + "-query", Device.cpu(), ENGINE);
                load(queryModel, modelFile, Map.of("intraOpNumThreads", Integer.toString(QUERY_THREADS)));
            } catch (Exception e) {
                throw new EmbeddingException("cannot load the ONNX model of " + what + ": " + rootMessage(e), e);
            }
            List<String> inputs = queryModel.describeInput().keys();
            for (String input : inputs) {
                if (!WindowBatchTranslator.KNOWN_INPUTS.contains(input)) {
                    throw new EmbeddingException("the ONNX model of " + what + " takes an input named '" + input
                            + "'; supported inputs: " + WindowBatchTranslator.KNOWN_INPUTS);
                }
            }
            if (!inputs.contains(WindowBatchTranslator.INPUT_IDS)) {
                throw new EmbeddingException("the ONNX model of " + what + " has no input_ids input; inputs: " + inputs);
            }
            queryPredictor = queryModel.newPredictor(new WindowBatchTranslator(inputs, options.pooling()));
            OnnxEmbedder embedder;
            try {
                embedder = new OnnxEmbedder(modelId, options, tokenizer, modelFile, what, inputs, queryModel, queryPredictor);
            } catch (EmbeddingException e) {
                throw new EmbeddingException("the ONNX model of " + what + " fails on a test input: " + e.getMessage(), e);
            }
            LOG.debug("loaded {} from {} ({} dimensions, inputs {}, batches of up to {}) in {} ms", modelId, what,
                    embedder.dimension, inputs, embedder.batchSize, (System.nanoTime() - start) / 1_000_000);
            return embedder;
        } catch (RuntimeException e) {
            closeQuietly(queryPredictor, queryModel, tokenizer);
            if (e instanceof EmbeddingException) {
                throw e;
            }
            throw new EmbeddingException("cannot start the model of " + what + ": " + rootMessage(e), e);
        }
    }

    /** Makes a session of the model's file; the file need exist only meanwhile. */
    private static void load(Model model, ModelFile file, Map<String, String> sessionOptions) throws Exception {
        Path path = file.open();
        try {
            model.load(path, null, sessionOptions);
        } finally {
            file.done(path);
        }
    }

    /**
     * The session that embeds documents, on every core, made the first time it is needed.
     *
     * @throws EmbeddingException if the model cannot be loaded (its file gone or changed since the
     *                            query session was made of it)
     */
    private Predictor<List<TokenWindow>, float[][]> documentSession() {
        lock.lock();
        try {
            ensureOpen();
            if (predictor == null) {
                Model loaded = Model.newInstance(modelId, Device.cpu(), ENGINE);
                try {
                    load(loaded, modelFile, null);
                    predictor = loaded.newPredictor(new WindowBatchTranslator(inputs, options.pooling()));
                    model = loaded;
                } catch (Exception e) {
                    loaded.close();
                    throw new EmbeddingException("cannot load the ONNX model of " + what + ": " + rootMessage(e), e);
                }
            }
            return predictor;
        } finally {
            lock.unlock();
        }
    }

    /** Whether the document session was made; for tests. */
    boolean documentSessionOpen() {
        lock.lock();
        try {
            return predictor != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The model's {@code .onnx} file, each time a session is made of it: {@link #open()} gives a
     * path, {@link #done(Path)} says it is no longer needed (a temporary copy is then deleted).
     */
    interface ModelFile {
        Path open() throws IOException;

        void done(Path file);
    }

    /**
     * Starts DJL's ONNX Runtime engine, which loads ONNX Runtime's native library. On a platform
     * the ONNX Runtime jar has no library for, this is where it fails, with a {@link LinkageError}
     * the first time and a {@link NoClassDefFoundError} after: both become an error saying which
     * platforms are supported and how to bring another ONNX Runtime.
     */
    private static void startEngine() {
        try {
            Engine.getEngine(ENGINE);
        } catch (LinkageError | RuntimeException e) {
            throw new EmbeddingException(NativePlatforms.onnxRuntimeUnavailable(NativePlatforms.current(),
                    NativePlatforms.onnxRuntimeVersion(), rootMessage(e)), e);
        }
    }

    @Override
    public String modelId() {
        return modelId;
    }

    @Override
    public int dimension() {
        return dimension;
    }

    @Override
    public List<float[]> embedDocuments(List<String> texts) {
        Objects.requireNonNull(texts, "texts");
        for (String text : texts) {
            Objects.requireNonNull(text, "texts contains null");
        }
        if (texts.isEmpty()) {
            lock.lock();
            try {
                ensureOpen(); // a closed embedder refuses even no work
            } finally {
                lock.unlock();
            }
            return new ArrayList<>();
        }
        return embed(texts, true, batchSize, documentSession());
    }

    private List<float[]> embed(List<String> texts, boolean documents, int maxBatch,
                                Predictor<List<TokenWindow>, float[][]> session) {
        List<TokenWindow> windows = tokenize(texts, documents);
        // Sorting by length keeps padding small; owners restore the order afterwards.
        windows.sort(Comparator.comparingInt(TokenWindow::length));
        float[][] sums = new float[texts.size()][];
        int from = 0;
        while (from < windows.size()) {
            int to = from + 1;
            // Windows are sorted, so the next one sets the padded width of the grown batch.
            while (to < windows.size() && to - from < maxBatch
                    && (long) (to - from + 1) * windows.get(to).length() <= MAX_BATCH_TOKENS) {
                to++;
            }
            List<TokenWindow> batch = windows.subList(from, to);
            float[][] vectors = predict(batch, session);
            for (int i = 0; i < vectors.length; i++) {
                TokenWindow window = batch.get(i);
                if (sums[window.owner()] == null) {
                    sums[window.owner()] = new float[vectors[i].length];
                }
                Vectors.addScaled(sums[window.owner()], vectors[i], window.weight());
            }
            from = to;
        }
        List<float[]> result = new ArrayList<>(texts.size());
        for (float[] sum : sums) {
            result.add(Vectors.normalize(sum));
        }
        return result;
    }

    @Override
    public float[] embedQuery(String query) {
        Objects.requireNonNull(query, "query");
        return embed(List.of(options.queryPrefix() + query), false, batchSize, queryPredictor).get(0);
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                closeQuietly(queryPredictor, queryModel, predictor, model, tokenizer);
                predictor = null;
                model = null;
                LOG.debug("closed {}", modelId);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "OnnxEmbedder[" + modelId + ", " + options + "]";
    }

    /**
     * Splits every text into windows of at most {@code maxTokens} tokens, the document prefix at
     * the start of each window's text when {@code documents} is set.
     */
    private List<TokenWindow> tokenize(List<String> texts, boolean documents) {
        List<TokenWindow> windows = new ArrayList<>(texts.size());
        long[] ids = documents ? prefixIds : new long[0];
        long[] typeIds = documents ? prefixTypeIds : new long[0];
        lock.lock();
        try {
            ensureOpen();
            for (int i = 0; i < texts.size(); i++) {
                split(i, encode(texts.get(i), i), ids, typeIds, windows);
            }
        } finally {
            lock.unlock();
        }
        return windows;
    }

    /** Tokenizes one text; {@code index} names it in the error, -1 for the document prefix. */
    private Encoding encode(String text, int index) {
        try {
            return tokenizer.encode(text);
        } catch (RuntimeException e) {
            throw new EmbeddingException(modelId + " could not tokenize " + (index < 0 ? "its document prefix" : "text "
                    + index) + ": " + rootMessage(e), e);
        }
    }

    private static int leadingSpecialTokens(Encoding encoding) {
        long[] special = encoding.getSpecialTokenMask();
        int lead = 0;
        while (lead < special.length && special[lead] == 1) {
            lead++;
        }
        return lead;
    }

    /** The values of an encoding's text tokens, its leading and trailing special tokens left out. */
    private static long[] textTokens(Encoding encoding, long[] values) {
        long[] special = encoding.getSpecialTokenMask();
        int from = leadingSpecialTokens(encoding);
        int to = values.length;
        while (to > from && special[to - 1] == 1) {
            to--;
        }
        return Arrays.copyOfRange(values, from, to);
    }

    /**
     * Cuts the text tokens into consecutive windows, each wrapped in the encoding's leading and
     * trailing special tokens ({@code [CLS]} and {@code [SEP]} for BERT) with the prefix tokens
     * after the leading ones, keeping at most {@link Embedders#MAX_WINDOWS}.
     */
    private void split(int owner, Encoding encoding, long[] prefixIds, long[] prefixTypeIds,
                       List<TokenWindow> windows) {
        long[] ids = encoding.getIds();
        long[] typeIds = encoding.getTypeIds();
        long[] special = encoding.getSpecialTokenMask();
        int lead = leadingSpecialTokens(encoding);
        if (lead == ids.length && prefixIds.length > 0) {
            // An empty text is all special tokens ([CLS][SEP]): the prefix goes where text would.
            lead = Math.min(prefixLead, ids.length);
        }
        int end = ids.length;
        while (end > lead && special[end - 1] == 1) {
            end--;
        }
        int trail = ids.length - end;
        int capacity = options.maxTokens() - lead - trail - prefixIds.length;
        if (capacity < 1) {
            throw new EmbeddingException(modelId + ": a window of " + options.maxTokens()
                    + " tokens has no room for text between " + (lead + trail) + " special tokens"
                    + (prefixIds.length > 0 ? " and a document prefix of " + prefixIds.length + " tokens" : ""));
        }
        int textTokens = end - lead;
        if (textTokens <= capacity && prefixIds.length == 0) {
            windows.add(new TokenWindow(owner, ids, typeIds, Math.max(1, textTokens)));
            return;
        }
        int count = 0;
        int from = lead;
        do {
            int to = Math.min(end, from + capacity);
            windows.add(new TokenWindow(owner, slice(ids, lead, prefixIds, from, to, trail),
                    slice(typeIds, lead, prefixTypeIds, from, to, trail), Math.max(1, to - from)));
            from += capacity;
            count++;
        } while (from < end && count < Embedders.MAX_WINDOWS);
        if (end - lead > capacity * Embedders.MAX_WINDOWS) {
            LOG.debug("text {}: {} tokens, only the first {} are embedded", owner, textTokens,
                    capacity * Embedders.MAX_WINDOWS);
        }
    }

    /** The first {@code lead} values, then the prefix, then {@code from..to}, then the last {@code trail}. */
    private static long[] slice(long[] values, int lead, long[] prefix, int from, int to, int trail) {
        long[] out = new long[lead + prefix.length + (to - from) + trail];
        System.arraycopy(values, 0, out, 0, lead);
        System.arraycopy(prefix, 0, out, lead, prefix.length);
        System.arraycopy(values, from, out, lead + prefix.length, to - from);
        System.arraycopy(values, values.length - trail, out, lead + prefix.length + to - from, trail);
        return out;
    }

    private float[][] predict(List<TokenWindow> batch, Predictor<List<TokenWindow>, float[][]> session) {
        lock.lock();
        try {
            ensureOpen();
            try {
                return session.predict(batch);
            } catch (TranslateException | RuntimeException e) {
                throw new EmbeddingException(modelId + " failed on a batch of " + batch.size() + " windows: "
                        + rootMessage(e), e);
            }
        } finally {
            lock.unlock();
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("embedder " + modelId + " is closed");
        }
    }

    /** The innermost message: DJL wraps the useful one (ONNX Runtime's, the tokenizer's) in generic ones. */
    static String rootMessage(Throwable error) {
        String message = error.toString();
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null) {
                message = cause.getMessage();
            }
        }
        return message;
    }

    private static void closeQuietly(AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                LOG.warn("failed to release {}", resource, e);
            }
        }
    }

    /** For tests: how many windows at most go through the model at once. */
    int batchSize() {
        return batchSize;
    }

    /** For tests: the windows a document is split into, as token counts. */
    int[] windowLengths(String text) {
        return tokenize(List.of(text), true).stream().mapToInt(TokenWindow::length).toArray();
    }

    /** For tests: the token ids of the windows a document ({@code true}) or query is split into. */
    List<long[]> windowIds(String text, boolean document) {
        return tokenize(List.of(text), document).stream().map(TokenWindow::ids).toList();
    }
}
