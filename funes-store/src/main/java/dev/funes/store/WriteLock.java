package dev.funes.store;

import dev.funes.StoreBusyException;
import dev.funes.StoreException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The cross-process write lock of one store: an operating-system lock on {@code write.lock} in
 * the store directory, held around each write transaction, so that at most one process writes at
 * a time and a waiting writer gives up after a bounded time with a message naming the holder.
 * Readers never take it. The file's content (pid, command, since when) only describes the holder;
 * the OS lock is the truth and dies with its process, so a killed writer never leaves a stale lock.
 *
 * <p>Within one JVM, stores of the same directory first take turns on a {@link Semaphore}: POSIX
 * record locks belong to the process, and closing <em>any</em> channel on the file releases them,
 * so only the thread holding the lock may have the file open.
 */
final class WriteLock {

    static final String FILE = "write.lock";
    private static final long POLL_MILLIS = 25;

    /** Holders in this JVM, by the real path of the lock file. */
    private static final ConcurrentMap<Path, InProcess> IN_THIS_JVM = new ConcurrentHashMap<>();

    private static final class InProcess {
        final Semaphore turn = new Semaphore(1, true);
        volatile String holder = "";
    }

    private final Path dir;
    private final Path file;
    private final Duration timeout;
    private final InProcess inProcess;

    /**
     * @param dir     the store directory; must exist
     * @param timeout how long {@link #acquire} waits for another writer
     */
    WriteLock(Path dir, Duration timeout) throws IOException {
        this.dir = dir;
        this.file = dir.toRealPath().resolve(FILE);
        this.timeout = timeout;
        this.inProcess = IN_THIS_JVM.computeIfAbsent(file, f -> new InProcess());
    }

    /** A held lock; closing releases it. */
    final class Held implements AutoCloseable {
        private final FileChannel channel;
        private final FileLock lock;

        private Held(FileChannel channel, FileLock lock) {
            this.channel = channel;
            this.lock = lock;
        }

        @Override
        public void close() {
            try {
                channel.truncate(0); // the description would name a process that no longer holds it
            } catch (IOException ignored) {
                // informational content only
            }
            try {
                lock.release();
                channel.close();
            } catch (IOException ignored) {
                // closing the channel releases the lock in any case
            } finally {
                inProcess.holder = "";
                inProcess.turn.release();
            }
        }
    }

    /**
     * Takes the lock, waiting up to the timeout for another writer to finish.
     *
     * @param what what the caller is about to do, for the holder description
     * @throws StoreException if another process or store of this process holds the lock past the
     *                        timeout (the message names it), or the lock file cannot be used
     */
    Held acquire(String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (!inProcess.turn.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                throw busy("another store opened on it in this process (pid " + ProcessHandle.current().pid() + ", "
                        + inProcess.holder + ")");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for the write lock of the store " + dir, e);
        }
        FileChannel channel = null;
        try {
            channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
            FileLock lock;
            while ((lock = channel.tryLock()) == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw busy(describeHolder(channel));
                }
                Thread.sleep(Math.min(POLL_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
            }
            String description = "pid=" + ProcessHandle.current().pid() + "\ncommand=" + command()
                    + "\nsince=" + Instant.now() + "\ndoing=" + what + "\n";
            channel.truncate(0);
            channel.write(ByteBuffer.wrap(description.getBytes(StandardCharsets.UTF_8)), 0);
            inProcess.holder = what;
            return new Held(channel, lock);
        } catch (IOException | RuntimeException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            inProcess.turn.release();
            if (e instanceof StoreException se) {
                throw se;
            }
            throw new StoreException("cannot take the write lock " + file + " of the store " + dir + ": " + e, e);
        }
    }

    private StoreBusyException busy(String holder) {
        return new StoreBusyException("the store " + dir + " is being written by " + holder + "; gave up after waiting "
                + seconds(timeout) + " for its write lock (" + FILE + "). Try again when that writer is done, or"
                + " wait longer (StoreOptions.writeLockTimeout)");
    }

    /** Who holds the lock, as the holder described itself in the file. */
    private static String describeHolder(FileChannel channel) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(4096);
        while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0) {
            // read what there is
        }
        Properties p = new Properties();
        p.load(new java.io.StringReader(new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8)));
        String pid = p.getProperty("pid");
        if (pid == null) {
            return "another process (it did not describe itself)";
        }
        StringBuilder s = new StringBuilder("another process: pid ").append(pid);
        try {
            Optional<ProcessHandle> process = ProcessHandle.of(Long.parseLong(pid.strip()));
            if (process.isEmpty() || !process.get().isAlive()) {
                s.append(" (not running on this machine: another host or container?)");
            }
        } catch (NumberFormatException ignored) {
            // described as written
        }
        for (String key : new String[] {"command", "doing", "since"}) {
            String value = p.getProperty(key);
            if (value != null && !value.isBlank()) {
                s.append(", ").append(key).append(' ').append(value.strip());
            }
        }
        return s.toString();
    }

    /** The command line of this JVM as the user typed it: main class and arguments, shortened. */
    private static String command() {
        String command = System.getProperty("sun.java.command");
        if (command == null || command.isBlank()) {
            command = ProcessHandle.current().info().command().orElse("java");
        }
        command = command.replace('\n', ' ').strip();
        return command.length() > 200 ? command.substring(0, 200) + "..." : command;
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    @Override
    public String toString() {
        return "WriteLock[" + file + "]";
    }
}
