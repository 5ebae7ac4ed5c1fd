package dev.funes.ingest;

import dev.funes.AddResult;
import dev.funes.FunesException;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;
import dev.funes.StoreBusyException;
import dev.funes.redact.Redactor;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

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
 *       read is stored with {@link MemoryStore#updateSource}, which keeps every earlier memory the
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
    /** Logs that agents write under hidden names, in the projects they work on: not skipped as hidden. */
    private static final Set<String> AGENT_FILES = Set.of(AiderFormat.FILE_NAME);
    /** Bytes of a file's beginning hashed into {@link SourceState#headFingerprint()}. */
    static final int FINGERPRINT_BYTES = 4096;
    /** The format name of the checkpoint of a log skipped at its author's request. */
    static final String IGNORED_FORMAT = "funes:ignore";

    private final MemoryStore store;
    private final List<LogFormat> formats;
    private final IndexListener listener;
    private final int batchSize;
    private final Clock clock;
    private final MemoryRedactor redactor;
    private final Classifier classifier;
    private final boolean passages;

    private Indexer(Builder b) {
        this.store = b.store;
        this.formats = b.formats != null ? b.formats : AgentLogs.formats();
        this.listener = b.listener;
        this.batchSize = b.batchSize;
        this.clock = b.clock;
        this.redactor = new MemoryRedactor(b.redactor != null ? b.redactor : Redactor.standard());
        this.classifier = b.classify ? new Classifier() : null;
        this.passages = b.passages;
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
        Run run = new Run(redactor, listener);
        List<Candidate> files = new ArrayList<>();
        Set<Path> seen = new HashSet<>();
        for (Path root : roots) {
            collect(root.toAbsolutePath().normalize(), files, seen, run);
        }
        listener.filesFound(files.size());
        try (WriteQueue writes = new WriteQueue(Indexer::endsRun)) {
            run.writes = writes;
            for (int i = 0; i < files.size(); i++) {
                if (writes.fatal() != null) {
                    settle(run, true); // throws the failure that ended the run
                }
                Candidate c = files.get(i);
                FileJob job = new FileJob(c.path());
                job.events.fileStarted(c.path(), i + 1, files.size());
                run.filesSeen++;
                try {
                    indexFile(c, run, job);
                } catch (RuntimeException e) {
                    // What the earlier files and this one told comes first, as if read one by one.
                    try {
                        settle(run, true);
                    } catch (RuntimeException earlier) {
                        earlier.addSuppressed(e); // an earlier file's write failed first: it ends the run
                        throw earlier;
                    }
                    job.replay(run.out);
                    throw e;
                }
                run.pending.add(job);
                settle(run, false);
            }
            settle(run, true);
        }
        IndexReport report = new IndexReport(run.filesSeen, run.filesIndexed, run.filesUnchanged, run.filesFailed,
                run.filesIgnored, run.stored.added(), run.stored.unchanged(), run.stored.embedded(),
                run.recordsSkipped, run.redactions, run.problems, Duration.ofNanos(System.nanoTime() - run.startNanos),
                run.filesSkippedByRequest, run.filesResumed, run.bytesRead, run.memoriesReplaced,
                run.memoriesForgotten, run.earlierMemoriesKept, run.changedFiles);
        LOG.debug("Indexing done: {}", report.summary());
        return report;
    }

    // ---- walking -----------------------------------------------------------------------------

    private record Candidate(Path path, boolean explicit) {
    }

    private void collect(Path root, List<Candidate> files, Set<Path> seen, Run run) {
        if (!Files.exists(root)) {
            run.problem(run.out, new IndexProblem(root, 0, "no such file or folder"));
            return;
        }
        if (Files.isRegularFile(root)) {
            Path real = real(root);
            if (seen.add(real)) {
                files.add(new Candidate(real, true));
            }
            return;
        }
        if (!Files.isDirectory(root)) {
            run.problem(run.out, new IndexProblem(root, 0, "neither a regular file nor a folder"));
            return;
        }
        List<Path> found = new ArrayList<>();
        try {
            Files.walkFileTree(root, EnumSet.of(FileVisitOption.FOLLOW_LINKS), Integer.MAX_VALUE,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                            return !dir.equals(root) && hidden(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                            if (attrs.isRegularFile() && !hidden(file)) {
                                found.add(file);
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException e) {
                            if (e instanceof FileSystemLoopException) {
                                LOG.debug("Not following the link loop at {}", file);
                            } else {
                                run.problem(run.out, new IndexProblem(file, 0, "cannot be read: " + describe(e)));
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path dir, IOException e) {
                            if (e != null) {
                                run.problem(run.out, new IndexProblem(dir, 0, "folder cannot be listed: " + describe(e)));
                            }
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            run.problem(run.out, new IndexProblem(root, 0, "folder cannot be walked: " + describe(e)));
        }
        found.sort(null);
        for (Path file : found) {
            Path real = real(file);
            if (seen.add(real)) {
                files.add(new Candidate(real, false));
            }
        }
    }

    private static boolean hidden(Path path) {
        Path name = path.getFileName();
        return name != null && name.toString().startsWith(".") && !AGENT_FILES.contains(name.toString());
    }

    private static Path real(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path.toAbsolutePath().normalize();
        }
    }

    // ---- one file ----------------------------------------------------------------------------

    /**
     * Reads one file and queues its store writes; what became of the file is told when its writes
     * are done ({@link #settle}), through {@code job}.
     */
    private void indexFile(Candidate c, Run run, FileJob job) {
        IndexListener events = job.events;
        Path file = c.path();
        long size;
        Instant modified;
        byte[] head;
        String key;
        try {
            BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
            size = attrs.size();
            modified = attrs.lastModifiedTime().toInstant().truncatedTo(ChronoUnit.MILLIS);
            key = attrs.fileKey() == null ? null : attrs.fileKey().toString();
            head = head(file);
        } catch (IOException e) {
            failed(run, events, file, new IndexProblem(file, 0, "cannot be read: " + describe(e)), AddResult.NONE, 0);
            return;
        }
        LogFormat format = detect(file, head);
        if (format == null && size == 0 && emptied(file, modified, head, run, job)) {
            return;
        }
        if (format == null) {
            run.filesIgnored++;
            if (c.explicit() && size > 0) {
                run.problem(events, new IndexProblem(file, 0, "not in a log format Funes reads (" + names() + ")"));
            }
            events.fileFinished(file, IndexListener.FileOutcome.IGNORED, 0, AddResult.NONE);
            return;
        }
        try {
            Optional<SourceState> previous = store.source(file);
            if (previous.isPresent() && unchanged(previous.get(), size, modified, format)) {
                run.filesUnchanged++;
                events.fileFinished(file, IndexListener.FileOutcome.UNCHANGED, 0, AddResult.NONE);
                return;
            }
            Resume.Token token = previous.isPresent() ? resumeToken(file, format, previous.get(), size, head, key) : null;
            boolean again = previous.isPresent() && !IGNORED_FORMAT.equals(previous.get().format());
            // What the last full read left to tell a grown file from another one (null: nothing to
            // replace). A file shorter than what was read, or whose first bytes changed (an append-only
            // log; a document's header may change as it grows), is another one whatever it holds.
            SourceState prior = previous.orElse(null);
            Continuation continuation = again && token == null && prior.format().equals(format.name())
                    && size >= prior.indexedBytes()
                    && (!(format instanceof ResumableFormat) || sameHead(prior.headFingerprint(), head))
                    ? Continuation.parse(prior.resume()) : null;
            // The very bytes read before (a log read again in full though unchanged: its last line
            // was incomplete, or a new version of Funes reads every log again): every record an
            // earlier memory was read from is read again, so what this read does not give again
            // was an earlier reading of it, not something the file lost.
            boolean sameBytes = again && token == null && prior.size() == size
                    && prior.lastModified().toEpochMilli() == modified.toEpochMilli()
                    && sameHead(prior.headFingerprint(), head);
            job.batches = new Batches(run, job, Resume.Plan.full(), null, again, continuation, sameBytes);
            if (skippedByRequest(file, format, previous.orElse(null), size, modified, head, token, run, events)) {
                return;
            }
            ParseResult result;
            try {
                if (token != null) {
                    job.batches = new Batches(run, job, new Resume.Plan(token.point(), token.check()), token, true, null,
                            false);
                    try {
                        result = parse(format, file, job.batches, size);
                    } catch (Resume.Mismatch e) {
                        LOG.debug("{} changed before its resume point ({}); reading it again from the start", file,
                                e.getMessage());
                        // The part before the resume point was looked at for a directive before it changed.
                        if (skippedByRequest(file, format, previous.get(), size, modified, head, null, run, events)) {
                            return;
                        }
                        // Another file than the one read: nothing of the earlier read is replaced.
                        job.batches = new Batches(run, job, Resume.Plan.full(), null, true, null, false);
                        result = parse(format, file, job.batches, size);
                    }
                } else {
                    result = parse(format, file, job.batches, size);
                }
            } catch (WritesFailed e) {
                return; // told when the file is settled
            } catch (DirectiveSeen e) {
                // Missed by the look before the read (it cannot be, but such a memory must never stay).
                awaitWrites(run, job);
                if (job.writes.failure() != null) {
                    return; // nothing more is written for this file; the failure is told when it is settled
                }
                LOG.warn("{}: an ignore directive was found while reading; what was stored from it is deleted", file);
                int forgotten = forget(file, format, true, head);
                run.filesSkippedByRequest++;
                run.stored = run.stored.plus(job.batches.stored);
                run.forgotten(events, file, forgotten);
                events.fileFinished(file, IndexListener.FileOutcome.SKIPPED_BY_REQUEST, 0, AddResult.NONE);
                return;
            } catch (RuntimeException e) {
                LOG.debug("Format {} failed on {}", format.name(), file, e);
                Batches batches = job.batches;
                batches.flush(null);
                job.outcome = () -> failed(run, events, file,
                        new IndexProblem(file, 0, "the " + format.name() + " reader failed: " + e), batches.stored,
                        batches.memories);
                return;
            }
            for (IndexProblem p : result.problems()) {
                run.problem(events, p);
            }
            run.recordsSkipped += result.recordsSkipped();
            Batches batches = job.batches;
            if (!result.complete()) {
                batches.flush(null);
                job.outcome = () -> {
                    run.filesFailed++;
                    run.stored = run.stored.plus(batches.stored);
                    events.fileFinished(file, IndexListener.FileOutcome.FAILED, batches.memories, batches.stored);
                };
                return;
            }
            batches.finish(checkpoint(file, head, key, result, format, batches, run, events));
            job.outcome = () -> indexed(run, events, file, batches);
        } catch (StoreBusyException e) {
            throw e;
        } catch (FunesException e) {
            Batches batches = job.batches;
            failed(run, events, file, new IndexProblem(file, 0, "checkpoint could not be read: " + e.getMessage()),
                    batches == null ? AddResult.NONE : batches.stored, batches == null ? 0 : batches.memories);
        }
    }

    /** Whether a store failure ends the whole run rather than failing its file (see the class contract). */
    private static boolean endsRun(Throwable failure) {
        return !(failure instanceof FunesException) || failure instanceof StoreBusyException;
    }

    /**
     * Tells what became of the files whose writes are done, in the order they were read; with
     * {@code wait}, waits for all of them.
     *
     * @throws RuntimeException the store failure that ended the run (see the class contract)
     */
    private void settle(Run run, boolean wait) {
        while (!run.pending.isEmpty()) {
            FileJob job = run.pending.peekFirst();
            if (!wait && !job.writes.done()) {
                return;
            }
            awaitWrites(run, job);
            run.pending.removeFirst();
            Throwable failure = job.writes.failure();
            if (failure == null) {
                job.outcome.run();
            } else if (!endsRun(failure)) {
                Batches batches = job.batches;
                // Deletions committed before the failure are told too: every memory removed is.
                run.revised(job.events, job.file, batches);
                failed(run, job.events, job.file, new IndexProblem(job.file, 0, "could not be stored: "
                        + failure.getMessage()), batches.stored, batches.memories);
            }
            job.replay(run.out);
            if (failure != null && endsRun(failure)) {
                if (failure instanceof RuntimeException e) {
                    throw e;
                }
                if (failure instanceof Error e) {
                    throw e;
                }
                throw new IllegalStateException(failure);
            }
        }
    }

    /** Waits until the writes of {@code job} are done, after those of the files before it. */
    private static void awaitWrites(Run run, FileJob job) {
        try {
            job.writes.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while indexing; what was stored stays stored", e);
        }
    }

    /**
     * A log in which a typed request says {@link Privacy#IGNORE_MARKER} ({@link Privacy#isIgnoreDirective})
     * is not indexed: only a file whose bytes (from the resume point on, if any) hold the marker is
     * parsed once more to look for such a request. What an earlier run stored from
     * it is deleted (by the ids a parse yields), and a checkpoint under the pseudo-format
     * {@value #IGNORED_FORMAT} records the decision so the unchanged file is not read again.
     */
    private boolean skippedByRequest(Path file, LogFormat format, SourceState previous, long size, Instant modified,
                                     byte[] head, Resume.Token token, Run run, IndexListener events) {
        boolean known = previous != null && IGNORED_FORMAT.equals(previous.format());
        if (!(known && previous.size() == size && previous.lastModified().toEpochMilli() == modified.toEpochMilli())) {
            try {
                // What lies before a resume point was read before, and held no directive.
                if (!containsIgnoreMarker(file, token == null ? 0 : token.point().offset())
                        || !hasIgnoreDirective(file, format, token, size)) {
                    return false;
                }
            } catch (IOException e) {
                return false; // the parse meets the same error and reports it
            }
            run.forgotten(events, file, forget(file, format, previous != null && !known, head));
        }
        run.filesSkippedByRequest++;
        events.fileFinished(file, IndexListener.FileOutcome.SKIPPED_BY_REQUEST, 0, AddResult.NONE);
        return true;
    }

    /**
     * Deletes what was stored from a skipped file and stores its {@value #IGNORED_FORMAT}
     * checkpoint; returns how many memories were deleted.
     */
    private int forget(Path file, LogFormat format, boolean storedBefore, byte[] head) {
        int[] deleted = new int[1];
        if (storedBefore) {
            format.parse(file, m -> deleted[0] += store.delete(m.id()) ? 1 : 0);
        }
        try {
            BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
            // Keeping no id also deletes what the parse cannot give back: the author asked for the
            // log to be forgotten, and that covers its earlier versions at this path too.
            deleted[0] += store.replaceSource(List.of(), new SourceState(file, attrs.size(),
                    attrs.lastModifiedTime().toInstant().truncatedTo(ChronoUnit.MILLIS), attrs.size(), 0,
                    fingerprint(head), IGNORED_FORMAT, clock.instant()), Set.of()).removed();
        } catch (IOException e) {
            LOG.debug("{} vanished while it was skipped", file, e);
        }
        return deleted[0];
    }

    /** Tells what became of a file read and stored, once its writes are done. */
    private static void indexed(Run run, IndexListener events, Path file, Batches batches) {
        run.filesIndexed++;
        run.bytesRead += batches.plan.bytesRead;
        if (batches.token != null) {
            run.filesResumed++;
        }
        run.stored = run.stored.plus(batches.stored);
        run.revised(events, file, batches);
        events.fileFinished(file, IndexListener.FileOutcome.INDEXED, batches.memories, batches.stored);
    }

    /**
     * A log emptied (truncated to nothing) after it was read: no format recognises an empty
     * file, but it is the same log, a new generation of it. Its checkpoint records the empty
     * file, and what was stored from it stays, marked {@link SourceState#CHANGED_KEY}, as after
     * any other truncation. False when the file was never read (or skipped by request): then it
     * is an empty file like any other.
     */
    private boolean emptied(Path file, Instant modified, byte[] head, Run run, FileJob job) {
        IndexListener events = job.events;
        Optional<SourceState> previous;
        try {
            previous = store.source(file);
        } catch (StoreBusyException e) {
            throw e;
        } catch (FunesException e) {
            failed(run, events, file, new IndexProblem(file, 0, "checkpoint could not be read: " + e.getMessage()),
                    AddResult.NONE, 0);
            return true;
        }
        if (previous.isEmpty() || IGNORED_FORMAT.equals(previous.get().format())) {
            return false;
        }
        SourceState p = previous.get();
        if (p.size() == 0 && p.lastModified().toEpochMilli() == modified.toEpochMilli()) {
            run.filesUnchanged++;
            events.fileFinished(file, IndexListener.FileOutcome.UNCHANGED, 0, AddResult.NONE);
            return true;
        }
        LOG.debug("{} was emptied since it was read: what it gave stays, marked as from its earlier version", file);
        Batches batches = new Batches(run, job, Resume.Plan.full(), null, true, null, false);
        job.batches = batches;
        batches.finish(new SourceState(file, 0, modified, 0, 0, fingerprint(head), p.format(), clock.instant()));
        job.outcome = () -> indexed(run, events, file, batches);
        return true;
    }

    /**
     * Whether a message the person typed in the log is an ignore directive
     * ({@link Privacy#isIgnoreDirective}): the format reads the file (from the resume point, if
     * any) into nothing, and the chunker marks the exchange of such a request.
     */
    private boolean hasIgnoreDirective(Path file, LogFormat format, Resume.Token token, long size) {
        final class Found extends RuntimeException {
            private static final long serialVersionUID = 1L;

            Found() {
                super(null, null, false, false);
            }
        }
        Consumer<Memory> look = m -> {
            if (m.metadata().containsKey(Privacy.DIRECTIVE_KEY)) {
                throw new Found();
            }
        };
        try {
            if (token != null && format instanceof ResumableFormat resumable) {
                try {
                    resumable.parse(file, look, new Resume.Plan(token.point(), token.check()));
                    return false;
                } catch (Resume.Mismatch e) {
                    // rewritten: the whole file is read below
                }
            }
            format.parse(file, look);
            return false;
        } catch (Found e) {
            return true;
        } catch (RuntimeException e) {
            LOG.debug("Format {} failed on {} while looking for an ignore directive", format.name(), file, e);
            return false; // the parse meets the same failure and reports it
        }
    }

    /** Whether the file's bytes hold the marker; it is ASCII, so no decoding is needed. */
    static boolean containsIgnoreMarker(Path file) throws IOException {
        return containsIgnoreMarker(file, 0);
    }

    /** Whether the file's bytes from {@code offset} on hold the marker. */
    static boolean containsIgnoreMarker(Path file, long offset) throws IOException {
        byte[] marker = Privacy.IGNORE_MARKER.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] buf = new byte[64 * 1024];
        int keep = 0;
        try (java.nio.channels.SeekableByteChannel channel = Files.newByteChannel(file);
             InputStream in = java.nio.channels.Channels.newInputStream(channel)) {
            channel.position(offset);
            int n;
            while ((n = in.read(buf, keep, buf.length - keep)) > 0) {
                int len = keep + n;
                outer:
                for (int i = 0; i + marker.length <= len; i++) {
                    for (int j = 0; j < marker.length; j++) {
                        if (buf[i + j] != marker[j]) {
                            continue outer;
                        }
                    }
                    return true;
                }
                keep = Math.min(marker.length - 1, len);
                System.arraycopy(buf, len - keep, buf, 0, keep);
            }
        }
        return false;
    }

    private static void failed(Run run, IndexListener events, Path file, IndexProblem problem, AddResult stored,
                               int memories) {
        run.problem(events, problem);
        run.filesFailed++;
        run.stored = run.stored.plus(stored);
        events.fileFinished(file, IndexListener.FileOutcome.FAILED, memories, stored);
    }

    private static boolean unchanged(SourceState state, long size, Instant modified, LogFormat format) {
        return state.size() == size
                && state.lastModified().toEpochMilli() == modified.toEpochMilli()
                && state.indexedBytes() == size
                && state.format().equals(format.name());
    }

    /**
     * The checkpoint after a complete read, from the file's size and time read after parsing:
     * what was appended meanwhile then lies past {@code indexedBytes} and is read next time.
     */
    private SourceState checkpoint(Path file, byte[] head, String key, ParseResult result, LogFormat format,
                                   Batches batches, Run run, IndexListener events) {
        try {
            BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
            if (result.indexedBytes() > attrs.size()) {
                run.problem(events, new IndexProblem(file, 0, "file shrank while it was read; it will be read again"));
                return null;
            }
            Resume.Plan plan = batches.plan;
            String resume = "";
            // A point at the very start saves nothing over a full read.
            if (plan.next != null && plan.last != null && plan.next.offset() > 0
                    && plan.next.offset() <= result.indexedBytes()) {
                // The reader's context holds text of the log (the working directory, a message): redacted too.
                resume = new Resume.Token(run.redactor.redact(plan.next), key, plan.last,
                        batches.idsFrom(plan.next.offset())).toText();
            } else if (batches.token == null) {
                // Without a point, the next read is from the start too: this tells it whether it
                // continues this one, and so may replace the last exchange read here.
                Continuation c = Continuation.of(batches.starts, batches.lastExchange);
                resume = c == null ? "" : c.toText();
            }
            return new SourceState(file, attrs.size(), attrs.lastModifiedTime().toInstant().truncatedTo(ChronoUnit.MILLIS),
                    result.indexedBytes(), result.indexedLines(), fingerprint(head), format.name(), clock.instant(), resume);
        } catch (IOException e) {
            run.problem(events, new IndexProblem(file, 0, "file vanished after it was read: " + describe(e)));
            return null;
        }
    }

    /** Reads with the batches' plan; a format that cannot resume reads the whole file. */
    private static ParseResult parse(LogFormat format, Path file, Batches batches, long size) {
        ParseResult result;
        if (format instanceof ResumableFormat resumable) {
            result = resumable.parse(file, batches, batches.plan);
        } else {
            result = format.parse(file, batches);
            batches.plan.bytesRead = size;
        }
        return Objects.requireNonNull(result, "parse returned null");
    }

    /**
     * The point a read of the grown file may start at, or null when it must be read from its
     * beginning: a format that cannot resume, a file that is shorter than what was read (truncated),
     * or whose first bytes or identity changed (replaced, rotated).
     */
    private static Resume.Token resumeToken(Path file, LogFormat format, SourceState previous, long size, byte[] head,
                                            String key) {
        if (!(format instanceof ResumableFormat) || previous.resume().isEmpty()
                || !previous.format().equals(format.name())) {
            return null;
        }
        if (size < previous.indexedBytes()) {
            LOG.debug("{} is shorter than what was read of it: truncated, read again from the start", file);
            return null;
        }
        if (!sameHead(previous.headFingerprint(), head)) {
            LOG.debug("{} begins differently than when it was read: replaced, read again from the start", file);
            return null;
        }
        if (Continuation.isOne(previous.resume())) {
            return null; // the last read was from the start and left no point to read on from
        }
        Resume.Token token;
        try {
            token = Resume.Token.parse(previous.resume());
        } catch (IllegalArgumentException e) {
            LOG.debug("{}: {}; read again from the start", file, e.getMessage());
            return null;
        }
        if (token.key() != null && key != null && !token.key().equals(key)) {
            LOG.debug("{} is another file than the one read (identity {}, was {}): read again from the start", file,
                    key, token.key());
            return null;
        }
        Resume.Check check = token.check();
        if (token.point().offset() > check.start() || check.start() + check.length() > previous.indexedBytes()) {
            LOG.debug("{}: resume point past what was read; read again from the start", file);
            return null;
        }
        return token;
    }

    /** Whether {@code head} begins with the bytes {@code fingerprint} (see {@link #fingerprint}) was made of. */
    private static boolean sameHead(String fingerprint, byte[] head) {
        int colon = fingerprint.indexOf(':');
        int n;
        try {
            n = Integer.parseInt(fingerprint.substring(0, Math.max(colon, 0)));
        } catch (NumberFormatException e) {
            return false;
        }
        return n <= head.length && fingerprint.equals(fingerprint(java.util.Arrays.copyOf(head, n)));
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

    private static byte[] head(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(HEAD_BYTES);
        }
    }

    /** {@code <n>:<hex>}: how many leading bytes were hashed, and the first 128 bits of their SHA-256. */
    static String fingerprint(byte[] head) {
        int n = Math.min(head.length, FINGERPRINT_BYTES);
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(head, 0, n);
            return n + ":" + HexFormat.of().formatHex(sha.digest()).substring(0, 32);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    private static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    // ---- state of one call -------------------------------------------------------------------

    /** Counters of one {@link #index} call. */
    private static final class Run {
        final long startNanos = System.nanoTime();
        final MemoryRedactor redactor;
        final Map<String, Long> redactions = new TreeMap<>();
        final List<IndexProblem> problems = new ArrayList<>();
        int filesSeen;
        int filesIndexed;
        int filesUnchanged;
        int filesFailed;
        int filesIgnored;
        int filesSkippedByRequest;
        int filesResumed;
        long bytesRead;
        long recordsSkipped;
        AddResult stored = AddResult.NONE;
        /** Earlier versions of exchanges still being written, deleted because a read gave them anew. */
        long memoriesReplaced;
        /** Memories deleted at their log's request ({@code funes:ignore}). */
        long memoriesForgotten;
        /** Memories of changed files kept, marked {@link SourceState#CHANGED_KEY}. */
        long earlierMemoriesKept;
        /** Files that no longer give what was read from them, in the order they were settled. */
        final List<Path> changedFiles = new ArrayList<>();
        /** The caller's listener, with every problem also listed for the report. */
        final IndexListener out;
        /** The store writes of this call. */
        WriteQueue writes;
        /** Files read whose writes may not be done yet, in the order they were read. */
        final Deque<FileJob> pending = new ArrayDeque<>();
        /** Batches of memories queued so far. */
        int batches;

        Run(MemoryRedactor redactor, IndexListener listener) {
            this.redactor = redactor;
            this.out = new IndexListener() {
                @Override
                public void fileStarted(Path file, int number, int total) {
                    listener.fileStarted(file, number, total);
                }

                @Override
                public void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
                    listener.fileFinished(file, outcome, memories, stored);
                }

                @Override
                public void earlierMemories(Path file, int removed, int kept) {
                    listener.earlierMemories(file, removed, kept);
                }

                @Override
                public void problem(IndexProblem problem) {
                    problems.add(problem);
                    listener.problem(problem);
                }
            };
        }

        /**
         * The size at which the pending batch goes: {@value Indexer#FIRST_BATCH} memories for the
         * run's first batch, twice as many for each next one, up to {@code batchSize}. The store
         * embeds nothing until the first batch arrives: a small one starts it after a few
         * memories rather than after reading a whole file, and with each batch twice the size of
         * the one before, reading stays ahead of embedding.
         */
        int batchLimit(int batchSize) {
            return batches >= 16 ? batchSize : (int) Math.min(batchSize, (long) FIRST_BATCH << batches);
        }

        /** Counts and tells what the writes of a file read did to what was stored from it before. */
        void revised(IndexListener events, Path file, Batches batches) {
            if (batches == null || batches.removed == 0 && batches.kept == 0) {
                return;
            }
            memoriesReplaced += batches.removed;
            if (batches.kept > 0) {
                earlierMemoriesKept += batches.kept;
                changedFiles.add(file);
            }
            events.earlierMemories(file, batches.removed, batches.kept);
        }

        /** Counts and tells the memories deleted at a log's request. */
        void forgotten(IndexListener events, Path file, int deleted) {
            if (deleted > 0) {
                memoriesForgotten += deleted;
                events.earlierMemories(file, deleted, 0);
            }
        }

        /** Redacts the problem and tells it to {@code listener} ({@link #out}, or a file's {@link FileJob#events}). */
        void problem(IndexListener listener, IndexProblem problem) {
            listener.problem(redactor.redact(problem, redactions));
        }
    }

    /**
     * One file of a run: what it told the listener while it was read (kept until its writes are
     * done, so that the listener hears each file's events together, in order) and what it tells
     * once they are done.
     */
    private static final class FileJob {
        final Path file;
        final WriteQueue.Group writes = new WriteQueue.Group();
        private final List<Consumer<IndexListener>> told = new ArrayList<>();
        /** Records what is told about the file. */
        final IndexListener events = new IndexListener() {
            @Override
            public void fileStarted(Path file, int number, int total) {
                told.add(l -> l.fileStarted(file, number, total));
            }

            @Override
            public void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
                told.add(l -> l.fileFinished(file, outcome, memories, stored));
            }

            @Override
            public void earlierMemories(Path file, int removed, int kept) {
                told.add(l -> l.earlierMemories(file, removed, kept));
            }

            @Override
            public void problem(IndexProblem problem) {
                told.add(l -> l.problem(problem));
            }
        };
        /** The reading's outcome, told once the writes succeeded; a failed write replaces it. */
        Runnable outcome = () -> {
        };
        /** The sink of the file's read, whose counts a failed write reports; null until it is read. */
        Batches batches;

        FileJob(Path file) {
            this.file = file;
        }

        /** Tells {@code listener} what was recorded, once. */
        void replay(IndexListener listener) {
            List<Consumer<IndexListener>> all = List.copyOf(told);
            told.clear();
            for (Consumer<IndexListener> event : all) {
                event.accept(listener);
            }
        }
    }

    /** Thrown through a format's parse when a memory carries {@link Privacy#DIRECTIVE_KEY}: it is never stored. */
    private static final class DirectiveSeen extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DirectiveSeen() {
            super(null, null, false, false);
        }
    }

    /** Thrown through a format's parse when a write of its file failed: reading on is in vain. */
    private static final class WritesFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        WritesFailed() {
            super(null, null, false, false);
        }
    }

    /** The sink a format writes to: memories go to the store in batches. */
    private final class Batches implements PassageSink {
        final Run run;
        final FileJob job;
        /** How this read goes: from the start, or from a resume point. */
        final Resume.Plan plan;
        /** The resume point read from; null for a read from the start. */
        final Resume.Token token;
        final List<Memory> batch = new ArrayList<>();
        /** Ids of every memory of this read, across batches: what the checkpoint's batch keeps. */
        final Set<String> ids = new HashSet<>();
        /** The first byte each memory cites, by id: which of them the next resume point replaces. */
        final Map<String, Long> starts = new java.util.HashMap<>();
        /** The id (before redaction) and stored content hash of the last memory that was not a piece. */
        private String lastId;
        private String lastHash;
        /** Ids of exchanges that redaction changed, by their id before it: what their passages name. */
        private final Map<String, String> renamed = new java.util.HashMap<>();
        /** Whether the file was indexed before: a memory read again may differ from its stored version. */
        final boolean again;
        /** For a read from the start: what the last one left to tell whether this one continues it; else null. */
        final Continuation previous;
        /** For a read from the start: whether the file holds the very bytes read before. */
        final boolean sameBytes;
        /** The exchange of this read that starts last (its first part); null if none. */
        Memory lastExchange;
        /** Whether this read gave an exchange where {@link #previous} says its last one began. */
        boolean anchored;
        /** What the store did with this read's batches so far; written by the write thread. */
        volatile AddResult stored = AddResult.NONE;
        /** Memories stored from the file before that the writes deleted: earlier versions this read replaced. */
        volatile int removed;
        /** Memories stored from the file before that it no longer gives, kept and marked by the writes. */
        volatile int kept;
        int memories;

        Batches(Run run, FileJob job, Resume.Plan plan, Resume.Token token, boolean again, Continuation previous,
                boolean sameBytes) {
            this.run = run;
            this.job = job;
            this.plan = plan;
            this.token = token;
            this.again = again;
            this.previous = previous;
            this.sameBytes = sameBytes;
        }

        @Override
        public boolean passages() {
            return passages;
        }

        @Override
        public void accept(Memory memory) {
            if (memory != null && memory.metadata().containsKey(Privacy.DIRECTIVE_KEY)) {
                throw new DirectiveSeen();
            }
            if (job.writes.failure() != null || run.writes.fatal() != null) {
                throw new WritesFailed();
            }
            Objects.requireNonNull(memory, "memory");
            if (memory.kind() == MemoryKind.PASSAGE && memory.metadata().containsKey(Passages.HEADER_KEY)) {
                passages(memory);
                return;
            }
            // The store sees only redacted memories, and the ids it keeps are theirs.
            Memory redacted = run.redactor.redact(memory, run.redactions);
            if (!redacted.id().equals(memory.id())) {
                renamed.put(memory.id(), redacted.id());
            }
            lastId = memory.id();
            lastHash = redacted.contentHash();
            batch.add(redacted);
            ids.add(redacted.id());
            long start = redacted.provenance() == null ? Long.MAX_VALUE : redacted.provenance().byteStart();
            starts.put(redacted.id(), start);
            memories++;
            if (redacted.kind() == MemoryKind.EXCHANGE && redacted.provenance() != null && beginsExchange(redacted)) {
                if (lastExchange == null || start >= lastExchange.provenance().byteStart()) {
                    lastExchange = redacted;
                }
                if (previous != null && previous.anchors(redacted)) {
                    anchored = true;
                }
            }
            if (classifier != null && redacted.kind() == MemoryKind.EXCHANGE) {
                // Built from the redacted exchange, stored in its batch, kept by the checkpoint's updateSource.
                for (Memory derived : classifier.classify(redacted)) {
                    Memory d = run.redactor.redact(derived, run.redactions);
                    batch.add(d);
                    ids.add(d.id());
                    // Replaced with its exchange: a resumed read that re-reads the exchange still
                    // being written derives it again (a lookup gains its conclusion, say).
                    starts.put(d.id(), start);
                    memories++;
                }
            }
            if (batch.size() >= run.batchLimit(batchSize)) {
                flush(null);
            }
        }

        /**
         * A piece of an exchange (one record's full content): redacted whole, then cut into
         * passages that name the exchange by the id it is stored under.
         */
        private void passages(Memory piece) {
            String of = piece.metadata().get(Memory.PASSAGE_OF);
            String stored = of == null ? null : renamed.get(of);
            // A tool output's passages use the vector of their exchange, which precedes them.
            String vectorOf = piece.metadata().containsKey(Passages.OUTPUT_KEY) && of != null && of.equals(lastId)
                    ? lastHash : null;
            if (stored != null || vectorOf != null) {
                Map<String, String> metadata = new java.util.TreeMap<>(piece.metadata());
                if (stored != null) {
                    metadata.put(Memory.PASSAGE_OF, stored);
                }
                if (vectorOf != null) {
                    metadata.put(Memory.VECTOR_OF, vectorOf);
                }
                piece = new Memory(piece.id(), piece.kind(), piece.text(), piece.startedAt(), piece.endedAt(),
                        piece.agent(), piece.project(), piece.session(), piece.provenance(), metadata);
            }
            Memory redacted = run.redactor.redact(piece, run.redactions);
            long start = redacted.provenance() == null ? Long.MAX_VALUE : redacted.provenance().byteStart();
            for (Memory passage : PassageBytes.narrow(Passages.split(redacted))) {
                batch.add(passage);
                ids.add(passage.id());
                starts.put(passage.id(), start); // its record's first byte, as its exchange's
                memories++;
            }
            if (batch.size() >= run.batchLimit(batchSize)) {
                flush(null);
            }
        }

        /**
         * Whether {@code exchange} is an exchange's first memory: an exchange too long for one
         * memory is cut in parts ({@code part} metadata {@code i/n}), and where the cuts fall
         * depends on how long it is, so a growing exchange is replaced from its first part on.
         */
        private static boolean beginsExchange(Memory exchange) {
            String part = exchange.metadata().get("part");
            return part == null || part.startsWith("1/");
        }

        /** Ids of the memories of this read citing bytes from {@code offset} on. */
        List<String> idsFrom(long offset) {
            List<String> tail = new ArrayList<>();
            starts.forEach((id, start) -> {
                if (start >= offset) {
                    tail.add(id);
                }
            });
            tail.sort(null);
            return tail;
        }

        /**
         * Queues the pending memories for the store. Until a resumed read has found the record it
         * checks, nothing is stored: the file may turn out to be another one, to be read from the start.
         */
        void flush(SourceState checkpoint) {
            if (!plan.verified || batch.isEmpty() && checkpoint == null) {
                return;
            }
            List<Memory> memories = List.copyOf(batch);
            batch.clear();
            run.batches++;
            write(() -> {
                replaceChanged(memories);
                stored = stored.plus(store.addAll(memories, checkpoint));
            });
        }

        /** Queues a write of this file (see {@link WriteQueue}). */
        private void write(Runnable write) {
            try {
                run.writes.submit(job.writes, write);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while indexing; what was stored stays stored", e);
            }
        }

        /**
         * Deletes the stored versions of {@code memories} that differ from them in more than
         * what their id covers (the {@code part} metadata of an exchange that grew a part), so
         * the add stores the new ones. A crash before the add leaves the old checkpoint: the next
         * run reads them again.
         */
        void replaceChanged(List<Memory> memories) {
            if (!again) {
                return;
            }
            for (Memory m : memories) {
                Optional<Memory> old = store.get(m.id());
                if (old.isPresent() && !old.get().equals(m)) {
                    store.delete(m.id());
                }
            }
        }

        /**
         * Queues the last memories with the file's checkpoint (if not null). Only the exchange
         * that was still being written when the file was last read may be replaced: a resumed
         * read deletes what the earlier read gave from its resume point on and this one did not
         * give again, first (a crash in between leaves the old checkpoint, and the next run reads
         * it again); a read from the start that {@linkplain Continuation continues} the last one
         * deletes that read's last exchange if it did not give it again; a read from the start of
         * the very bytes read before deletes every earlier reading of them it did not give again
         * (those of an earlier version of Funes, say). Everything else the
         * file gave before and this read did not give stays, marked
         * {@link SourceState#CHANGED_KEY} ({@link MemoryStore#updateSource}): the file is a new
         * generation (rotated, truncated or rewritten).
         */
        void finish(SourceState checkpoint) {
            if (checkpoint == null) {
                flush(null);
                return;
            }
            Set<String> keep = Set.copyOf(ids);
            if (token == null) {
                // Null: every memory of the file's current generation that this read did not give.
                Set<String> replace = sameBytes ? null : previous != null && previous.continuedBy(starts, anchored)
                        ? Set.copyOf(previous.tail()) : Set.of();
                List<Memory> memories = List.copyOf(batch);
                batch.clear();
                write(() -> {
                    replaceChanged(memories);
                    SourceUpdate update = store.updateSource(memories, checkpoint, keep, replace);
                    stored = stored.plus(update.stored());
                    removed += update.removed();
                    kept += update.marked();
                });
                return;
            }
            List<String> tail = token.tail();
            write(() -> {
                for (String id : tail) {
                    if (!keep.contains(id) && store.delete(id)) {
                        removed++;
                    }
                }
            });
            flush(checkpoint);
        }
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
