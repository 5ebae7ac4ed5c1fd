package dev.funes.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * An operating-system lock on one file of a directory, held by one process at a time: the
 * store's {@link WriteLock} and the maintainer lock of a {@link SegmentedIndex}. The OS lock dies
 * with its process, so a killed holder never leaves a stale lock.
 *
 * <p>Within one JVM, holders of the same file first take turns on a {@link Semaphore}: POSIX
 * record locks belong to the process, and closing <em>any</em> channel on the file releases them,
 * so only the thread holding the lock may have the file open.
 */
final class DirectoryLock {

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryLock.class);
    private static final long POLL_MILLIS = 25;

    /** Turns in this JVM, by the real path of the lock file. */
    private static final ConcurrentMap<Path, Turn> IN_THIS_JVM = new ConcurrentHashMap<>();

    private static final class Turn {
        final Semaphore semaphore = new Semaphore(1, true);
        volatile String holder = "";
    }

    private final Path file;
    private final Turn turn;

    /**
     * @param dir  the directory; must exist
     * @param name the lock file's name in it
     */
    DirectoryLock(Path dir, String name) throws IOException {
        this.file = dir.toRealPath().resolve(name);
        this.turn = IN_THIS_JVM.computeIfAbsent(file, f -> new Turn());
    }

    /** The lock file (its real path). */
    Path file() {
        return file;
    }

    /** A held lock; closing releases it. */
    final class Held implements AutoCloseable {
        private final FileChannel channel;
        private final FileLock lock;

        private Held(FileChannel channel, FileLock lock) {
            this.channel = channel;
            this.lock = lock;
        }

        /** The lock file, open for reading and writing: the holder may describe itself in it. */
        FileChannel channel() {
            return channel;
        }

        @Override
        public void close() {
            try {
                lock.release();
                channel.close();
            } catch (IOException ignored) {
                // closing the channel releases the lock in any case
            } finally {
                turn.holder = "";
                turn.semaphore.release();
            }
        }
    }

    /** Another holder kept the lock past the deadline. */
    static final class Busy extends Exception {
        private final boolean inThisJvm;
        private final String holder;

        private Busy(boolean inThisJvm, String holder) {
            super("held by " + holder, null, false, false);
            this.inThisJvm = inThisJvm;
            this.holder = holder;
        }

        /** Whether the holder is in this JVM (then {@link #holder()} is what it said it does). */
        boolean inThisJvm() {
            return inThisJvm;
        }

        /** What the holder in this JVM does, or the lock file's content as another process left it. */
        String holder() {
            return holder;
        }
    }

    /**
     * Takes the lock, waiting until {@code deadline} (of {@link System#nanoTime()}) for another
     * holder to release it.
     *
     * @param what what the holder is about to do, for a thread of this JVM that waits for it
     * @throws Busy if another holder keeps it past the deadline
     */
    Held acquire(String what, long deadline) throws Busy, IOException, InterruptedException {
        if (!turn.semaphore.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            throw new Busy(true, turn.holder);
        }
        FileChannel channel = null;
        try {
            channel = open();
            FileLock lock;
            while ((lock = channel.tryLock()) == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new Busy(false, content(channel));
                }
                Thread.sleep(Math.min(POLL_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
            }
            turn.holder = what;
            return new Held(channel, lock);
        } catch (IOException | RuntimeException | InterruptedException | Busy e) {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            turn.semaphore.release();
            throw e;
        }
    }

    /**
     * Takes the lock if nobody holds it, without waiting.
     *
     * @param what what the holder does, for a thread of this JVM that waits for it
     * @return the held lock, or {@code null} when another holder has it or the file cannot be locked
     */
    Held tryAcquire(String what) {
        if (!turn.semaphore.tryAcquire()) {
            return null;
        }
        FileChannel channel = null;
        try {
            channel = open();
            FileLock lock = channel.tryLock();
            if (lock != null) {
                turn.holder = what;
                return new Held(channel, lock);
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("Cannot lock {}: {}", file, e.toString());
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // not held
            }
        }
        turn.semaphore.release();
        return null;
    }

    private FileChannel open() throws IOException {
        return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** The start of the lock file, as its holder wrote it. */
    private static String content(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0) {
            // read what there is
        }
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "DirectoryLock[" + file + "]";
    }
}
