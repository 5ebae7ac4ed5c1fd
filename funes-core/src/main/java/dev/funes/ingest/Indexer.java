package dev.funes.ingest;

import dev.funes.AddResult;
import dev.funes.FunesException;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SourceState;
import dev.funes.StoreBusyException;
import dev.funes.redact.Redactor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Reads agent session logs into a {@link MemoryStore}: walks the given files and folders,
 * recognises each file's {@link LogFormat}, skips files that did not change since they were last
 * indexed, and stores the memories of the others in batches, with the file's checkpoint.
 *
 * <pre>{@code
 * IndexReport report = Indexer.builder(store)
 *         .listener(progressBar)
 *         .build()
 *         .index(AgentLogs.defaultRoots());
 * System.err.println(report.summary());
 * }</pre>
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Bad input is reported, not thrown.</b> A missing root, an unreadable file, a malformed
 *       line become {@link IndexProblem}s in the report; everything else is indexed.</li>
 *   <li><b>Checkpoints.</b> A file's memories are stored in batches of at most {@link Builder#batchSize}
 *       (the first batches of a call are smaller, see {@link Builder#batchSize});
 *       the file's {@link SourceState} goes with its last batch, in the same transaction. A crash
 *       in the middle of a file leaves no checkpoint, so the next run reads the file again; memory
 *       ids are deterministic, so nothing is stored twice. A memory read again whose stored
 *       version differs in what its id does not cover (its {@code part} metadata) replaces that
 *       version.</li>
 *   <li><b>Nothing is lost to a changed log.</b> Only the exchange that was still being written
 *       when a file was last read (its provisional tail) may be replaced, and only by a read that
 *       continues that one: read on from the resume point, or read from the beginning giving again
 *       everything before that exchange ({@link Continuation}). A file read again though it holds
 *       the very bytes read before (same size, time and first bytes: its last line was incomplete,
 *       or a new version of Funes reads every log again) replaces every earlier reading of them
 *       it does not give again: the records are all still there, read again. A file that no longer holds what
 *       was read from it (rotated by {@code mv} or {@code copytruncate}, truncated, emptied,
 *       rewritten with other content) is a new generation of that log: the last batch of its
 *       read is stored with {@link dev.funes.SourceCheckpoints#updateSource}, which keeps every earlier memory the
 *       read did not give, marked {@link SourceState#CHANGED_KEY}, beside the new ones.
 *       {@link IndexReport#changedFiles()} names such files, and the report counts every memory
 *       removed ({@link IndexReport#memoriesReplaced()}, {@link IndexReport#memoriesForgotten()}).</li>
 *   <li><b>Reading on.</b> A grown log of a format that can resume (Claude Code, Codex, generic
 *       JSON Lines, Aider) is read from the resume point its checkpoint keeps
 *       ({@link SourceState#resume()}): the request of the exchange still open when the last read
 *       ended, with the reader's state there. The memories are those a read from the beginning
 *       gives; what the last read gave from that point on (derived memories go with their
 *       exchange) and this one does not is deleted just
 *       before the last batch. A file shorter than what was read (truncated), whose first bytes
 *       differ from the checkpoint's fingerprint (replaced), whose file key (inode) changed
 *       (rotated), or whose last record read is no longer where it was (rewritten; checked before
 *       anything of the read is stored) is read from the beginning, as a new generation.
 *       Whole-document formats are always read from the beginning. {@link IndexReport#filesResumed()} and
 *       {@link IndexReport#bytesRead()} count this.</li>
 *   <li><b>Unchanged files.</b> A file whose stored checkpoint has the same size, the same
 *       modification time (to the millisecond), the same format, and covers the whole file is not
 *       read again. A file still being written (its last line incomplete) is read again next time.</li>
 *   <li><b>Walking.</b> Folders are walked recursively in path order, following symbolic links
 *       but not link loops; hidden files and folders (name starting with {@code .}) below a root
 *       are skipped, except the logs agents keep under hidden names ({@code .aider.chat.history.md}). A file reached twice (overlapping roots, links) is read once, under its real
 *       path. Files no format recognises are counted as ignored; when such a file was named
 *       explicitly as a root, that is reported as a problem.</li>
 *   <li><b>Store failures.</b> A {@link FunesException} from the store (a failed write, a text that
 *       cannot be embedded) fails that file, which is reported and retried next run (what its
 *       earlier batches stored stays); other files go on. A {@link StoreBusyException} (another process held the write lock past the store's
 *       timeout) ends indexing by propagating: every later file would wait as long in vain. What
 *       was stored before it is kept, and the next run goes on from the checkpoints. Any other
 *       exception from the store (a closed store, for example) ends indexing too.</li>
 *   <li><b>Redaction.</b> Every memory's text, project and metadata values pass through the
 *       {@link Builder#redactor redactor} before they reach the store, and so do the problems'
 *       messages; a memory's id is derived from its redacted text. What was redacted is counted
 *       in {@link IndexReport#redactions()}. There is no way to turn this off.</li>
 *   <li><b>Derived memories.</b> Unless {@link Builder#classify(boolean) turned off}, the
 *       {@link Classifier}'s decisions, conventions and lookups of each exchange are built from the
 *       redacted exchange and stored with it, in the same batch and under the same checkpoint.</li>
 *   <li><b>Threads.</b> An indexer is immutable; {@link #index} may be called from several threads,
 *       each call being independent, as far as the store allows. Within a call, the store's writes
 *       ({@code addAll}, {@code replaceSource}, {@code delete} of a file's batches) run in order on
 *       a thread of the call's own ({@code funes-index-writes}), while the calling thread reads,
 *       chunks, classifies and redacts the next batch, at most two batches ahead; embedding, most
 *       of the store's work, thus overlaps with reading. The call returns (or throws) only when
 *       every write it queued is done. A file's later writes, its checkpoint included, are skipped
 *       once one of them failed; a failure that ends indexing skips every later write.</li>
 * </ul>
 */
public final class Indexer {

    private static final Logger LOG = LoggerFactory.getLogger(Indexer.class);

    /** Bytes of each file given to {@link LogFormat#canRead}. */
    public static final int HEAD_BYTES = 64 * 1024;
    /** Memories per {@link MemoryStore#addAll} call unless set otherwise. */
    public static final int DEFAULT_BATCH_SIZE = 256;
    /** Memories in the first batch of an {@link #index} call, when the batch size allows. */
    static final int FIRST_BATCH = 8;

    private final SourceStore store;
    private final List<LogFormat> formats;
    private final IndexListener listener;
    private final MemoryRedactor redactor;
    private final FileBatches.Rules rules;
    private final Checkpoints checkpoints;
    private final IgnoreDirectives directives;

    private Indexer(Builder b) {
        this.store = new SourceStore(b.store);
        this.formats = b.formats != null ? b.formats : AgentLogs.formats();
        this.listener = b.listener;
        this.redactor = new MemoryRedactor(b.redactor != null ? b.redactor : Redactor.standard());
        this.rules = new FileBatches.Rules(store, b.classify ? new Classifier() : null, b.passages, b.batchSize);
        this.checkpoints = new Checkpoints(b.clock, redactor);
        this.directives = new IgnoreDirectives(store, checkpoints);
    }

    /** A builder of an indexer writing to {@code store}. */
    public static Builder builder(MemoryStore store) {
        return new Builder(store);
    }

    /** The formats this indexer tries, in order. */
    public List<LogFormat> formats() {
        return formats;
    }

    /**
     * Indexes the logs under {@code roots} (files or folders).
     *
     * @return what was done and every problem met
     * @throws RuntimeException only what the store or the listener throws beyond the failures
     *                          described in the class contract
     */
    public IndexReport index(Collection<Path> roots) {
        Objects.requireNonNull(roots, "roots");
        IndexRun run = new IndexRun(redactor, rules, listener);
        List<LogWalk.Candidate> files = LogWalk.files(roots, problem -> run.problem(run.out, problem));
        listener.filesFound(files.size());
        long[] sizes = new long[files.size()];
        long size = 0;
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = sizeOf(files.get(i).path());
            size += sizes[i];
        }
        long before = 0;
        long memories = 0;
        try (WriteQueue writes = new WriteQueue(IndexRun::endsRun)) {
            run.writes = writes;
            for (int i = 0; i < files.size(); i++) {
                if (writes.fatal() != null) {
                    run.settle(true); // throws the failure that ended the run
                }
                LogWalk.Candidate c = files.get(i);
                FileJob job = new FileJob(c.path());
                job.events.fileStarted(c.path(), i + 1, files.size());
                run.filesSeen++;
                long from = before;
                long given = memories;
                long fileSize = sizes[i];
                long all = size;
                job.progress = offset -> listener.progress(new IndexListener.Progress(c.path(), offset, fileSize,
                        from + offset, all, given + (job.batches == null ? 0 : job.batches.memories)));
                try {
                    indexFile(c, run, job);
                } catch (RuntimeException e) {
                    // What the earlier files and this one told comes first, as if read one by one.
                    try {
                        run.settle(true);
                    } catch (RuntimeException earlier) {
                        earlier.addSuppressed(e); // an earlier file's write failed first: it ends the run
                        throw earlier;
                    }
                    job.replay(run.out);
                    throw e;
                }
                memories += job.batches == null ? 0 : job.batches.memories;
                before += fileSize;
                job.progress.accept(fileSize);
                run.pending.add(job);
                run.settle(false);
            }
            run.settle(true);
        }
        IndexReport report = run.report();
        LOG.debug("Indexing done: {}", report.summary());
        return report;
    }

    /**
     * Reads one file and queues its store writes; what became of the file is told when its writes
     * are done ({@link IndexRun#settle}), through {@code job}.
     */
    private void indexFile(LogWalk.Candidate c, IndexRun run, FileJob job) {
        IndexListener events = job.events;
        Path file = c.path();
        FileSnapshot snapshot;
        try {
            snapshot = FileSnapshot.of(file);
        } catch (IOException e) {
            run.failed(events, file, new IndexProblem(file, 0, "cannot be read: " + FileSnapshot.describe(e)),
                    AddResult.NONE, 0);
            return;
        }
        LogFormat format = detect(file, snapshot.head());
        if (format == null && snapshot.size() == 0 && emptied(snapshot, run, job)) {
            return;
        }
        if (format == null) {
            run.filesIgnored++;
            if (c.explicit() && snapshot.size() > 0) {
                run.problem(events, new IndexProblem(file, 0, "not in a log format Funes reads (" + names() + ")"));
            }
            events.fileFinished(file, IndexListener.FileOutcome.IGNORED, 0, AddResult.NONE);
            return;
        }
        try {
            SourceState previous = store.checkpoint(file).orElse(null);
            if (previous != null && Checkpoints.unchanged(previous, snapshot, format)) {
                run.unchanged(events, file);
                return;
            }
            Resume.Token token = previous != null ? Checkpoints.resumeToken(snapshot, format, previous) : null;
            job.batches = new FileBatches(run, job, Checkpoints.fromStart(snapshot, format, previous, token));
            if (skippedByRequest(snapshot, format, previous, token, run, job)) {
                return;
            }
            read(snapshot, format, previous, token, run, job);
        } catch (StoreBusyException e) {
            throw e;
        } catch (FunesException e) {
            FileBatches batches = job.batches;
            run.failed(events, file, new IndexProblem(file, 0, "checkpoint could not be read: " + e.getMessage()),
                    batches == null ? AddResult.NONE : batches.stored, batches == null ? 0 : batches.memories);
        }
    }

    /**
     * Parses a file that changed since its checkpoint ({@code previous}, or null) into its
     * batches, from the resume point {@code token} if not null, and queues the batches' writes
     * and the outcome to tell once they are done.
     */
    private void read(FileSnapshot snapshot, LogFormat format, SourceState previous, Resume.Token token, IndexRun run,
                      FileJob job) {
        Path file = snapshot.file();
        IndexListener events = job.events;
        ParseResult result = null;
        RuntimeException thrown = null;
        try {
            if (token != null) {
                job.batches = new FileBatches(run, job, FileBatches.Read.resumed(token));
                try {
                    result = parse(format, file, job, snapshot.size());
                } catch (Resume.Mismatch e) {
                    if (!job.batches.stopped()) {
                        LOG.debug("{} changed before its resume point ({}); reading it again from the start", file,
                                e.getMessage());
                        // The part before the resume point was looked at for a directive before it changed.
                        if (skippedByRequest(snapshot, format, previous, null, run, job)) {
                            return;
                        }
                        // Another file than the one read: nothing of the earlier read is replaced.
                        job.batches = new FileBatches(run, job, FileBatches.Read.fromStart(true, null, false));
                        result = parse(format, file, job, snapshot.size());
                    }
                }
            } else {
                result = parse(format, file, job, snapshot.size());
            }
        } catch (ListenerFailure e) {
            throw (RuntimeException) e.getCause(); // the listener's own: it ends the run
        } catch (RuntimeException e) {
            thrown = e; // unless the sink stopped the read first, the reader failed
        }
        FileBatches batches = job.batches;
        switch (batches.stop()) {
            case WRITES_FAILED -> {
                return; // told when the file is settled
            }
            case DIRECTIVE -> {
                forgetRead(snapshot, format, run, job);
                return;
            }
            case NONE -> {
                // read to its end, or failed
            }
        }
        if (thrown != null) {
            RuntimeException failure = thrown;
            LOG.debug("Format {} failed on {}", format.name(), file, failure);
            batches.flush(null);
            job.outcome = () -> run.failed(events, file,
                    new IndexProblem(file, 0, "the " + format.name() + " reader failed: " + failure), batches.stored,
                    batches.memories);
            return;
        }
        for (IndexProblem p : result.problems()) {
            run.problem(events, p);
        }
        run.recordsSkipped += result.recordsSkipped();
        if (!result.complete()) {
            batches.flush(null);
            job.outcome = () -> run.incomplete(events, file, batches);
            return;
        }
        batches.finish(checkpoints.afterRead(snapshot, format, result, batches, p -> run.problem(events, p)));
        job.outcome = () -> run.indexed(events, file, batches);
    }

    /**
     * Whether the log is skipped at its author's request ({@link IgnoreDirectives}); if so, what
     * became of it is told.
     */
    private boolean skippedByRequest(FileSnapshot snapshot, LogFormat format, SourceState previous,
                                     Resume.Token token, IndexRun run, FileJob job) {
        OptionalInt forgotten = directives.skip(snapshot, format, previous, token);
        if (forgotten.isEmpty()) {
            return false;
        }
        run.skippedByRequest(job.events, snapshot.file(), forgotten.getAsInt());
        return true;
    }

    /**
     * A directive the look before the read missed (it cannot be, but such a memory must never
     * stay): once the file's writes are done, what was stored from it is deleted.
     */
    private void forgetRead(FileSnapshot snapshot, LogFormat format, IndexRun run, FileJob job) {
        IndexRun.awaitWrites(job);
        if (job.writes.failure() != null) {
            return; // nothing more is written for this file; the failure is told when it is settled
        }
        Path file = snapshot.file();
        LOG.warn("{}: an ignore directive was found while reading; what was stored from it is deleted", file);
        int forgotten = directives.forget(snapshot, format, true);
        run.stored = run.stored.plus(job.batches.stored);
        run.skippedByRequest(job.events, file, forgotten);
    }

    /**
     * A log emptied (truncated to nothing) after it was read: no format recognises an empty
     * file, but it is the same log, a new generation of it. Its checkpoint records the empty
     * file, and what was stored from it stays, marked {@link SourceState#CHANGED_KEY}, as after
     * any other truncation. False when the file was never read (or skipped by request): then it
     * is an empty file like any other.
     */
    private boolean emptied(FileSnapshot snapshot, IndexRun run, FileJob job) {
        IndexListener events = job.events;
        Path file = snapshot.file();
        Optional<SourceState> previous;
        try {
            previous = store.checkpoint(file);
        } catch (StoreBusyException e) {
            throw e;
        } catch (FunesException e) {
            run.failed(events, file, new IndexProblem(file, 0, "checkpoint could not be read: " + e.getMessage()),
                    AddResult.NONE, 0);
            return true;
        }
        if (previous.isEmpty() || Checkpoints.recordsIgnore(previous.get())) {
            return false;
        }
        SourceState p = previous.get();
        if (snapshot.sameSizeAndTime(p)) {
            run.unchanged(events, file);
            return true;
        }
        LOG.debug("{} was emptied since it was read: what it gave stays, marked as from its earlier version", file);
        FileBatches batches = new FileBatches(run, job, FileBatches.Read.fromStart(true, null, false));
        job.batches = batches;
        batches.finish(checkpoints.emptied(snapshot, p));
        job.outcome = () -> run.indexed(events, file, batches);
        return true;
    }

    /** Reads with the batches' plan; a format that cannot resume reads the whole file. */
    private static ParseResult parse(LogFormat format, Path file, FileJob job, long size) {
        FileBatches batches = job.batches;
        batches.plan().progress = offset -> {
            try {
                job.progress.accept(offset);
            } catch (RuntimeException e) {
                throw new ListenerFailure(e);
            }
        };
        ParseResult result;
        if (format instanceof ResumableFormat resumable) {
            result = resumable.parse(file, batches, batches.plan());
        } else {
            result = format.parse(file, batches);
            batches.plan().bytesRead = size;
        }
        return Objects.requireNonNull(result, "parse returned null");
    }

    /** What the listener threw while a file was read, carried through the reader: no failure of the reader's. */
    private static final class ListenerFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ListenerFailure(RuntimeException cause) {
            super(cause);
        }
    }

    /** A file's size for the progress told, 0 when it cannot be read (its read will say why). */
    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return 0;
        }
    }

    private LogFormat detect(Path file, byte[] head) {
        for (LogFormat format : formats) {
            try {
                if (format.canRead(file, head)) {
                    return format;
                }
            } catch (RuntimeException e) {
                LOG.debug("Format {} failed to judge {}", format.name(), file, e);
            }
        }
        return null;
    }

    private String names() {
        StringBuilder s = new StringBuilder("known: ");
        for (int i = 0; i < formats.size(); i++) {
            s.append(i == 0 ? "" : ", ").append(formats.get(i).name());
        }
        return s.toString();
    }

    // ---- builder -----------------------------------------------------------------------------

    /** Builds an {@link Indexer}; not thread-safe. */
    public static final class Builder {
        private final MemoryStore store;
        private List<LogFormat> formats;
        private IndexListener listener = IndexListener.NONE;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private Clock clock = Clock.systemUTC();
        private Redactor redactor;
        private boolean classify = true;
        private boolean passages = true;

        private Builder(MemoryStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /**
         * The formats to try on each file, in order; the first whose {@link LogFormat#canRead}
         * accepts the file reads it. Default: {@link AgentLogs#formats()}.
         *
         * @throws IllegalArgumentException if {@code formats} is empty or two share a name
         */
        public Builder formats(Collection<? extends LogFormat> formats) {
            List<LogFormat> copy = List.copyOf(formats);
            if (copy.isEmpty()) {
                throw new IllegalArgumentException("no log format given");
            }
            Set<String> names = new HashSet<>();
            for (LogFormat f : copy) {
                if (!names.add(f.name())) {
                    throw new IllegalArgumentException("two log formats are named '" + f.name() + "'");
                }
            }
            this.formats = copy;
            return this;
        }

        /** Hears progress and problems. Default: {@link IndexListener#NONE}. */
        public Builder listener(IndexListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Memories per {@link MemoryStore#addAll} call at most, 1 to 100,000; default
         * {@value Indexer#DEFAULT_BATCH_SIZE}. Larger batches embed more efficiently; smaller ones
         * lose less work to a crash. The first batches of an {@link Indexer#index} call are
         * smaller (8 memories, then twice as many each time) so that embedding starts early.
         */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > 100_000) {
                throw new IllegalArgumentException("batch size must be between 1 and 100000, was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** The clock that dates checkpoints ({@link SourceState#indexedAt()}). Default: UTC system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * The redactor every memory passes through before it is stored. Default:
         * {@link Redactor#standard()}. Pass one built with {@link Redactor#builder()} to add rules
         * (for example those of a store's {@code redaction-rules.txt}); redaction cannot be turned
         * off.
         */
        public Builder redactor(Redactor redactor) {
            this.redactor = Objects.requireNonNull(redactor, "redactor");
            return this;
        }

        /**
         * Whether each exchange's decisions, conventions and documentation lookups are stored as
         * memories of their own ({@link Classifier}), in the same batch as the exchange. Default: on.
         */
        public Builder classify(boolean classify) {
            this.classify = classify;
            return this;
        }

        /**
         * Whether the whole content of each exchange's records (requests, answers, thinking, tool
         * inputs and outputs up to 1 MiB a record) is stored as {@link MemoryKind#PASSAGE}
         * memories beside the exchange's compact rendering, each citing its record, so that
         * searches find what the rendering shortened. Default: on. Off, a store holds the
         * renderings only: smaller and faster to build, but words the rendering cut are not found.
         */
        public Builder passages(boolean passages) {
            this.passages = passages;
            return this;
        }

        /** Builds the indexer. */
        public Indexer build() {
            return new Indexer(this);
        }
    }

    @Override
    public String toString() {
        return "Indexer" + formats;
    }
}
