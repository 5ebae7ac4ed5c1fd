package dev.funes.ingest;

import dev.funes.SourceState;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.util.function.Consumer;

/**
 * A file's checkpoint ({@link SourceState}) judged and written: whether the file changed since
 * it was read, where a read of the grown file may start, what a read from the start may
 * replace, and the checkpoint each kind of read leaves (see the {@link Indexer} class contract).
 */
final class Checkpoints {

    /** Logged under the indexer's name, as users configure it. */
    private static final Logger LOG = LoggerFactory.getLogger(Indexer.class);

    /** The format name of the checkpoint of a log skipped at its author's request. */
    static final String IGNORED_FORMAT = "funes:ignore";

    private final Clock clock;
    private final MemoryRedactor redactor;

    /**
     * @param clock    dates the checkpoints
     * @param redactor redacts the reader's context a resume point keeps (it holds text of the log)
     */
    Checkpoints(Clock clock, MemoryRedactor redactor) {
        this.clock = clock;
        this.redactor = redactor;
    }

    /** Whether {@code state} covers the whole file as it is now, read by the same format: nothing to read. */
    static boolean unchanged(SourceState state, FileSnapshot file, LogFormat format) {
        return file.sameSizeAndTime(state)
                && state.indexedBytes() == file.size()
                && state.format().equals(format.name());
    }

    /** Whether {@code state} (or null) is that of a log skipped at its author's request. */
    static boolean recordsIgnore(SourceState state) {
        return state != null && IGNORED_FORMAT.equals(state.format());
    }

    /**
     * The point a read of the grown file may start at, or null when it must be read from its
     * beginning: a format that cannot resume, a file that is shorter than what was read (truncated),
     * or whose first bytes or identity changed (replaced, rotated).
     */
    static Resume.Token resumeToken(FileSnapshot file, LogFormat format, SourceState previous) {
        Path path = file.file();
        if (!(format instanceof ResumableFormat) || previous.resume().isEmpty()
                || !previous.format().equals(format.name())) {
            return null;
        }
        if (file.size() < previous.indexedBytes()) {
            LOG.debug("{} is shorter than what was read of it: truncated, read again from the start", path);
            return null;
        }
        if (!file.sameHead(previous.headFingerprint())) {
            LOG.debug("{} begins differently than when it was read: replaced, read again from the start", path);
            return null;
        }
        if (Continuation.isOne(previous.resume())) {
            return null; // the last read was from the start and left no point to read on from
        }
        Resume.Token token;
        try {
            token = Resume.Token.parse(previous.resume());
        } catch (IllegalArgumentException e) {
            LOG.debug("{}: {}; read again from the start", path, e.getMessage());
            return null;
        }
        String key = file.key();
        if (token.key() != null && key != null && !token.key().equals(key)) {
            LOG.debug("{} is another file than the one read (identity {}, was {}): read again from the start", path,
                    key, token.key());
            return null;
        }
        Resume.Check check = token.check();
        if (token.point().offset() > check.start() || check.start() + check.length() > previous.indexedBytes()) {
            LOG.debug("{}: resume point past what was read; read again from the start", path);
            return null;
        }
        return token;
    }

    /**
     * How a read from the start goes, given the file's checkpoint ({@code previous}, or null) and
     * the resume point found in it ({@code token}, or null).
     */
    static FileBatches.Read fromStart(FileSnapshot file, LogFormat format, SourceState previous, Resume.Token token) {
        boolean again = previous != null && !recordsIgnore(previous);
        // What the last full read left to tell a grown file from another one (null: nothing to
        // replace). A file shorter than what was read, or whose first bytes changed (an append-only
        // log; a document's header may change as it grows), is another one whatever it holds.
        Continuation continuation = again && token == null && previous.format().equals(format.name())
                && file.size() >= previous.indexedBytes()
                && (!(format instanceof ResumableFormat) || file.sameHead(previous.headFingerprint()))
                ? Continuation.parse(previous.resume()) : null;
        // A read that gave no exchange has nothing to tell a grown document from a rewritten one
        // by: only an append-only log that begins as it did may replace what it gave.
        if (continuation != null && continuation.hasNoExchange() && !(format instanceof ResumableFormat)) {
            continuation = null;
        }
        // The very bytes read before (a log read again in full though unchanged: its last line
        // was incomplete, or a new version of Funes reads every log again): every record an
        // earlier memory was read from is read again, so what this read does not give again
        // was an earlier reading of it, not something the file lost.
        boolean sameBytes = again && token == null && file.sameSizeAndTime(previous)
                && file.sameHead(previous.headFingerprint());
        return FileBatches.Read.fromStart(again, continuation, sameBytes);
    }

    /**
     * The checkpoint after a complete read, from the file's size and time read after parsing:
     * what was appended meanwhile then lies past {@code indexedBytes} and is read next time.
     * Null, with the reason told to {@code problems}, when the file shrank or vanished meanwhile.
     */
    SourceState afterRead(FileSnapshot file, LogFormat format, ParseResult result, FileBatches batches,
                          Consumer<IndexProblem> problems) {
        Path path = file.file();
        try {
            BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
            if (result.indexedBytes() > attrs.size()) {
                problems.accept(new IndexProblem(path, 0, "file shrank while it was read; it will be read again"));
                return null;
            }
            Resume.Plan plan = batches.plan();
            String resume = "";
            // A point at the very start saves nothing over a full read.
            if (plan.next != null && plan.last != null && plan.next.offset() > 0
                    && plan.next.offset() <= result.indexedBytes()) {
                // The reader's context holds text of the log (the working directory, a message): redacted too.
                resume = new Resume.Token(redactor.redact(plan.next), file.key(), plan.last,
                        batches.idsFrom(plan.next.offset())).toText();
            } else if (batches.token() == null) {
                // Without a point, the next read is from the start too: this tells it whether it
                // continues this one, and so may replace the last exchange read here.
                Continuation c = batches.continuation();
                resume = c == null ? "" : c.toText();
            }
            return new SourceState(path, attrs.size(), FileSnapshot.modified(attrs), result.indexedBytes(),
                    result.indexedLines(), file.fingerprint(), format.name(), clock.instant(), resume);
        } catch (IOException e) {
            problems.accept(new IndexProblem(path, 0, "file vanished after it was read: " + FileSnapshot.describe(e)));
            return null;
        }
    }

    /** The checkpoint of a log emptied since it was read: the same log, a new generation of it. */
    SourceState emptied(FileSnapshot file, SourceState previous) {
        return new SourceState(file.file(), 0, file.modified(), 0, 0, file.fingerprint(), previous.format(),
                clock.instant());
    }

    /**
     * The checkpoint of a log skipped at its author's request, as it is now (it is looked at
     * again: it may have grown while it was looked through); {@code head} is what it began with.
     */
    SourceState ignored(Path file, byte[] head) throws IOException {
        BasicFileAttributes attrs = Files.readAttributes(file, BasicFileAttributes.class);
        return new SourceState(file, attrs.size(), FileSnapshot.modified(attrs), attrs.size(), 0,
                FileSnapshot.fingerprint(head), IGNORED_FORMAT, clock.instant());
    }
}
