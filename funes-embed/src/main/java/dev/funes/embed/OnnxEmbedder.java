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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link Embedder} running a BERT-style ONNX export through DJL's ONNX Runtime engine, with a
 * HuggingFace tokenizer. See {@link Embedders} for how long texts and batches are handled.
 *
 * <p>One lock guards the tokenizer and {@link #close()}: holding it while tokenizing means
 * {@code close()} can never free the native tokenizer under a running call. Each session has a
 * lock of its own, held for each batch it runs (a DJL predictor is not thread-safe) and by
 * {@code close()} while it frees the session. Documents are embedded by up to
 * {@link #MAX_DOCUMENT_SESSIONS} sessions at once, one per core with one intra-op thread each,
 * each taking the next batch of a call: a window at a time (how the bundled int8 models run)
 * keeps a second intra-op thread of one session mostly waiting, so two sessions on two cores
 * embed faster than one using both. Vectors are summed in batch order, so they do not depend on
 * which session ran a batch. Queries use a session of their own, so they never wait for a long
 * {@link #embedDocuments}.
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
    /**
     * At most this many sessions embed documents, one batch each at a time: as many as there are
     * cores, each with one intra-op thread (with more cores than sessions, their share). Measured
     * on two cores with the int8 MiniLM, which runs one window at a time: two one-thread sessions
     * embed the passages of the coding set 1.0 to 2.0 times as fast as one two-thread session, for
     * less CPU time (docs/EMBEDDERS.md). Each session holds the model in native memory.
     */
    static final int MAX_DOCUMENT_SESSIONS = 4;
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
    /** The sessions that embed documents; guarded by lock; empty until the first document is embedded. */
    private final List<Session> documentSessions = new ArrayList<>();
    /** Runs document batches on the sessions past the first; guarded by lock; made with them. */
    private ExecutorService workers;
    private final Session querySession;
    private final ReentrantLock lock = new ReentrantLock();
    private final int dimension;
    private final int batchSize;
    /** The document prefix's tokens without special tokens; empty arrays when there is none. */
    private final long[] prefixIds;
    private final long[] prefixTypeIds;
    /** How many special tokens the tokenizer puts before a text ({@code [CLS]}); 0 without a document prefix. */
    private final int prefixLead;
    private volatile boolean closed; // written under lock

    private OnnxEmbedder(String modelId, EmbedderOptions options, HuggingFaceTokenizer tokenizer, ModelFile modelFile,
                         String what, List<String> inputs, Model queryModel,
                         Predictor<List<TokenWindow>, float[][]> queryPredictor) {
        this.modelId = modelId;
        this.options = options;
        this.tokenizer = tokenizer;
        this.modelFile = modelFile;
        this.what = what;
        this.inputs = inputs;
        this.querySession = new Session(queryModel, queryPredictor);
        Encoding prefix = options.documentPrefix().isEmpty() ? null : encode(options.documentPrefix(), -1);
        this.prefixIds = prefix == null ? new long[0] : textTokens(prefix, prefix.getIds());
        this.prefixTypeIds = prefix == null ? new long[0] : textTokens(prefix, prefix.getTypeIds());
        this.prefixLead = prefix == null ? 0 : leadingSpecialTokens(prefix);
        // The query session answers the probe: whether a model's vectors depend on their batch is
        // the model's property, not its session's thread count.
        List<Session> query = List.of(querySession);
        List<float[]> alone = List.of(embed(PROBE.subList(0, 1), false, 1, query).get(0),
                embed(PROBE.subList(1, 2), false, 1, query).get(0));
        this.dimension = alone.get(0).length;
        this.batchSize = batchIndependent(alone, embed(PROBE, false, 2, query)) ? options.batchSize() : 1;
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
                load(List.of(queryModel), modelFile, Map.of("intraOpNumThreads", Integer.toString(QUERY_THREADS)));
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

    /**
     * Makes a session of the model's file in each model, from one copy of the file; the file need
     * exist only meanwhile.
     */
    private static void load(List<Model> models, ModelFile file, Map<String, String> sessionOptions) throws Exception {
        Path path = file.open();
        try {
            for (Model model : models) {
                model.load(path, null, sessionOptions);
            }
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
    private List<Session> documentSessions() {
        lock.lock();
        try {
            ensureOpen();
            if (documentSessions.isEmpty()) {
                int cores = Runtime.getRuntime().availableProcessors();
                int count = Math.max(1, Math.min(cores, MAX_DOCUMENT_SESSIONS));
                List<Model> loaded = new ArrayList<>(count);
                try {
                    for (int i = 0; i < count; i++) {
                        loaded.add(Model.newInstance(modelId + (i == 0 ? "" : "-" + i), Device.cpu(), ENGINE));
                    }
                    load(loaded, modelFile, Map.of("intraOpNumThreads", Integer.toString(Math.max(1, cores / count))));
                    for (Model m : loaded) {
                        documentSessions.add(new Session(m, m.newPredictor(new WindowBatchTranslator(inputs, options.pooling()))));
                    }
                } catch (Exception e) {
                    for (Session made : documentSessions) {
                        closeQuietly(made.predictor());
                    }
                    documentSessions.clear();
                    loaded.forEach(Model::close);
                    throw new EmbeddingException("cannot load the ONNX model of " + what + ": " + rootMessage(e), e);
                }
                if (count > 1) {
                    AtomicInteger threads = new AtomicInteger();
                    workers = Executors.newFixedThreadPool(count - 1, r -> {
                        Thread t = new Thread(r, "funes-embed-" + threads.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    });
                }
            }
            return List.copyOf(documentSessions);
        } finally {
            lock.unlock();
        }
    }

    /** Whether the document session was made; for tests. */
    boolean documentSessionOpen() {
        return documentSessionCount() > 0;
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
        return embed(texts, true, batchSize, documentSessions());
    }

    private List<float[]> embed(List<String> texts, boolean documents, int maxBatch, List<Session> sessions) {
        List<TokenWindow> windows = tokenize(texts, documents);
        // Sorting by length keeps padding small; owners restore the order afterwards.
        windows.sort(Comparator.comparingInt(TokenWindow::length));
        List<List<TokenWindow>> batches = new ArrayList<>();
        int from = 0;
        while (from < windows.size()) {
            int to = from + 1;
            // Windows are sorted, so the next one sets the padded width of the grown batch.
            while (to < windows.size() && to - from < maxBatch
                    && (long) (to - from + 1) * windows.get(to).length() <= MAX_BATCH_TOKENS) {
                to++;
            }
            batches.add(windows.subList(from, to));
            from = to;
        }
        float[][][] out = run(batches, sessions);
        // Summed in batch order whichever session ran a batch: the same bits every time.
        float[][] sums = new float[texts.size()][];
        for (int b = 0; b < batches.size(); b++) {
            List<TokenWindow> batch = batches.get(b);
            float[][] vectors = out[b];
            for (int i = 0; i < vectors.length; i++) {
                TokenWindow window = batch.get(i);
                if (sums[window.owner()] == null) {
                    sums[window.owner()] = new float[vectors[i].length];
                }
                Vectors.addScaled(sums[window.owner()], vectors[i], window.weight());
            }
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
        return embed(List.of(options.queryPrefix() + query), false, batchSize, List.of(querySession)).get(0);
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                if (workers != null) {
                    workers.shutdown();
                }
                // Each session waits for a batch it is running; later batches see the embedder closed.
                querySession.close();
                documentSessions.forEach(Session::close);
                documentSessions.clear();
                closeQuietly(tokenizer);
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

    /**
     * Each batch's vectors, in the batches' order: the calling thread runs batches on the first
     * session, the workers on the others, each taking the next batch not yet taken.
     */
    private float[][][] run(List<List<TokenWindow>> batches, List<Session> sessions) {
        float[][][] out = new float[batches.size()][][];
        AtomicInteger next = new AtomicInteger();
        ExecutorService pool = workers;
        int helpers = pool == null ? 0 : Math.min(sessions.size(), batches.size()) - 1;
        List<Future<?>> running = new ArrayList<>(Math.max(0, helpers));
        try {
            for (int i = 1; i <= helpers; i++) {
                Session session = sessions.get(i);
                running.add(pool.submit(() -> drain(batches, out, next, session)));
            }
        } catch (RejectedExecutionException e) { // closed meanwhile: ensureOpen says so below
            running.forEach(f -> f.cancel(false));
            running.clear();
        }
        RuntimeException failed = null;
        try {
            drain(batches, out, next, sessions.get(0));
        } catch (RuntimeException e) {
            failed = e;
        }
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r
                        : new EmbeddingException(modelId + " failed: " + rootMessage(e.getCause()), e.getCause());
                if (failed == null) {
                    failed = cause;
                } else {
                    failed.addSuppressed(cause);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                next.set(batches.size());
                throw new EmbeddingException("interrupted while embedding with " + modelId, e);
            }
        }
        if (failed != null) {
            throw failed;
        }
        return out;
    }

    /** Runs the next batch not yet taken on {@code session} until none is left; on a failure no one takes another. */
    private void drain(List<List<TokenWindow>> batches, float[][][] out, AtomicInteger next, Session session) {
        for (int b = next.getAndIncrement(); b < batches.size(); b = next.getAndIncrement()) {
            try {
                out[b] = predict(batches.get(b), session);
            } catch (RuntimeException e) {
                next.set(batches.size());
                throw e;
            }
        }
    }

    private float[][] predict(List<TokenWindow> batch, Session session) {
        session.lock().lock();
        try {
            ensureOpen();
            try {
                return session.predictor().predict(batch);
            } catch (TranslateException | RuntimeException e) {
                throw new EmbeddingException(modelId + " failed on a batch of " + batch.size() + " windows: "
                        + rootMessage(e), e);
            }
        } finally {
            session.lock().unlock();
        }
    }

    /**
     * A session of the model and its predictor, which is not thread-safe: its lock is held for
     * each batch, and by {@link #close()} while it frees them.
     */
    private record Session(Model model, Predictor<List<TokenWindow>, float[][]> predictor, ReentrantLock lock) {
        Session(Model model, Predictor<List<TokenWindow>, float[][]> predictor) {
            this(model, predictor, new ReentrantLock());
        }

        void close() {
            lock.lock();
            try {
                closeQuietly(predictor, model);
            } finally {
                lock.unlock();
            }
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

    /** For tests: how many sessions embed documents (0 before the first document). */
    int documentSessionCount() {
        lock.lock();
        try {
            return documentSessions.size();
        } finally {
            lock.unlock();
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
