package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.SourceState;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import java.util.function.Consumer;

/**
 * A log in which a typed request says {@link Privacy#IGNORE_MARKER} ({@link Privacy#isIgnoreDirective})
 * is not indexed: only a file whose bytes (from the resume point on, if any) hold the marker is
 * parsed once more to look for such a request. What an earlier run stored from it is deleted (by
 * the ids a parse yields), and a checkpoint under the pseudo-format
 * {@value Checkpoints#IGNORED_FORMAT} records the decision so the unchanged file is not read again.
 */
final class IgnoreDirectives {

    /** Logged under the indexer's name, as users configure it. */
    private static final Logger LOG = LoggerFactory.getLogger(Indexer.class);

    private final SourceStore store;
    private final Checkpoints checkpoints;

    IgnoreDirectives(SourceStore store, Checkpoints checkpoints) {
        this.store = store;
        this.checkpoints = checkpoints;
    }

    /**
     * Whether the log is skipped at its author's request, and if so, forgets what was stored
     * from it unless its checkpoint already records the decision.
     *
     * @param previous the file's checkpoint, or null
     * @param token    the point a read would resume at (what lies before it held no directive), or null
     * @return empty when the log asks for nothing; else how many stored memories were deleted
     */
    OptionalInt skip(FileSnapshot file, LogFormat format, SourceState previous, Resume.Token token) {
        boolean known = Checkpoints.recordsIgnore(previous);
        if (known && file.sameSizeAndTime(previous)) {
            return OptionalInt.of(0);
        }
        try {
            // What lies before a resume point was read before, and held no directive.
            if (!containsIgnoreMarker(file.file(), token == null ? 0 : token.point().offset())
                    || !hasIgnoreDirective(file.file(), format, token)) {
                return OptionalInt.empty();
            }
        } catch (IOException e) {
            return OptionalInt.empty(); // the parse meets the same error and reports it
        }
        return OptionalInt.of(forget(file, format, previous != null && !known));
    }

    /**
     * Deletes what was stored from a skipped file and stores its {@value Checkpoints#IGNORED_FORMAT}
     * checkpoint; returns how many memories were deleted.
     *
     * @param storedBefore whether memories of the file may be stored: then a parse gives their ids
     */
    int forget(FileSnapshot file, LogFormat format, boolean storedBefore) {
        int[] deleted = new int[1];
        if (storedBefore) {
            format.parse(file.file(), m -> deleted[0] += store.delete(m.id()) ? 1 : 0);
        }
        try {
            // Keeping no id also deletes what the parse cannot give back: the author asked for the
            // log to be forgotten, and that covers its earlier versions at this path too.
            deleted[0] += store.forgetAll(checkpoints.ignored(file.file(), file.head()));
        } catch (IOException e) {
            LOG.debug("{} vanished while it was skipped", file.file(), e);
        }
        return deleted[0];
    }

    /**
     * Whether a message the person typed in the log is an ignore directive
     * ({@link Privacy#isIgnoreDirective}): the format reads the file (from the resume point, if
     * any) into nothing, and the chunker marks the exchange of such a request.
     */
    private static boolean hasIgnoreDirective(Path file, LogFormat format, Resume.Token token) {
        Look look = new Look();
        try {
            if (token != null && format instanceof ResumableFormat resumable) {
                try {
                    resumable.parse(file, look, new Resume.Plan(token.point(), token.check()));
                    return look.found;
                } catch (Resume.Mismatch e) {
                    if (look.found) {
                        return true;
                    }
                    // rewritten: the whole file is read below
                }
            }
            format.parse(file, look);
            return look.found;
        } catch (RuntimeException e) {
            if (look.found) {
                return true;
            }
            LOG.debug("Format {} failed on {} while looking for an ignore directive", format.name(), file, e);
            return false; // the parse meets the same failure and reports it
        }
    }

    /** Notes whether a memory of the parse marks a directive, and wants no more once one did. */
    private static final class Look implements PassageSink {
        boolean found;

        @Override
        public boolean passages() {
            return false;
        }

        @Override
        public boolean stopped() {
            return found;
        }

        @Override
        public void accept(Memory memory) {
            if (memory.metadata().containsKey(Privacy.DIRECTIVE_KEY)) {
                found = true;
            }
        }
    }

    /** Whether the file's bytes hold the marker; it is ASCII, so no decoding is needed. */
    static boolean containsIgnoreMarker(Path file) throws IOException {
        return containsIgnoreMarker(file, 0);
    }

    /** Whether the file's bytes from {@code offset} on hold the marker. */
    static boolean containsIgnoreMarker(Path file, long offset) throws IOException {
        byte[] marker = Privacy.IGNORE_MARKER.getBytes(StandardCharsets.US_ASCII);
        byte[] buf = new byte[64 * 1024];
        int keep = 0;
        try (SeekableByteChannel channel = Files.newByteChannel(file);
             InputStream in = Channels.newInputStream(channel)) {
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
}
