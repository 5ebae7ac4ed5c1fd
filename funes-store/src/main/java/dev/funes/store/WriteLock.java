package dev.funes.store;

import dev.funes.StoreBusyException;
import dev.funes.StoreException;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * The cross-process write lock of one store: an operating-system lock on {@code write.lock} in
 * the store directory, held around each write transaction, so that at most one process writes at
 * a time and a waiting writer gives up after a bounded time with a message naming the holder.
 * Readers never take it. The file's content (pid, command, since when) only describes the holder;
 * the OS lock is the truth and dies with its process, so a killed writer never leaves a stale lock.
 *
 * <p>Within one JVM, stores of the same directory first take turns (see {@link DirectoryLock}).
 */
final class WriteLock {

    static final String FILE = "write.lock";

    private final Path dir;
    private final DirectoryLock lock;
    private final Duration timeout;

    /**
     * @param dir     the store directory; must exist
     * @param timeout how long {@link #acquire} waits for another writer
     */
    WriteLock(Path dir, Duration timeout) throws IOException {
        this.dir = dir;
        this.lock = new DirectoryLock(dir, FILE);
        this.timeout = timeout;
    }

    /** A held lock; closing releases it. */
    static final class Held implements AutoCloseable {
        private final DirectoryLock.Held held;

        private Held(DirectoryLock.Held held) {
            this.held = held;
        }

        @Override
        public void close() {
            try {
                held.channel().truncate(0); // the description would name a process that no longer holds it
            } catch (IOException ignored) {
                // informational content only
            }
            held.close();
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
        DirectoryLock.Held held;
        try {
            held = lock.acquire(what, deadline);
        } catch (DirectoryLock.Busy e) {
            throw busy(e.inThisJvm()
                    ? "another store opened on it in this process (pid " + ProcessHandle.current().pid() + ", "
                            + e.holder() + ")"
                    : describeHolder(e.holder()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting for the write lock of the store " + dir, e);
        } catch (IOException | RuntimeException e) {
            throw new StoreException("cannot take the write lock " + lock.file() + " of the store " + dir + ": " + e, e);
        }
        try {
            String description = "pid=" + ProcessHandle.current().pid() + "\ncommand=" + command()
                    + "\nsince=" + Instant.now() + "\ndoing=" + what + "\n";
            held.channel().truncate(0);
            held.channel().write(ByteBuffer.wrap(description.getBytes(StandardCharsets.UTF_8)), 0);
            return new Held(held);
        } catch (IOException | RuntimeException e) {
            held.close();
            throw new StoreException("cannot take the write lock " + lock.file() + " of the store " + dir + ": " + e, e);
        }
    }

    private StoreBusyException busy(String holder) {
        return new StoreBusyException("the store " + dir + " is being written by " + holder + "; gave up after waiting "
                + seconds(timeout) + " for its write lock (" + FILE + "). Try again when that writer is done, or"
                + " wait longer (StoreOptions.writeLockTimeout)");
    }

    /** Who holds the lock, as the holder described itself in the file. */
    private static String describeHolder(String content) {
        Properties p = new Properties();
        try {
            p.load(new java.io.StringReader(content));
        } catch (IOException | IllegalArgumentException e) {
            return "another process (its description is unreadable: " + e.getMessage() + ")";
        }
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
        return "WriteLock[" + lock.file() + "]";
    }
}
