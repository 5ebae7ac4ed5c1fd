package dev.funes.ingest;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.function.Predicate;

/**
 * Runs the store writes of one {@link Indexer#index} call on a thread of its own, one at a time,
 * in the order they were submitted, while the calling thread reads, chunks, classifies and
 * redacts the next batch: embedding a batch (most of the store's work) overlaps with reading the
 * next. At most {@value #QUEUED} writes wait beyond the one running, so reading runs at most that
 * far ahead and a batch's memories are held only until stored.
 *
 * <p>Writes belong to a {@link Group} (one file). Once a write of a group fails, the group's later
 * writes are skipped, so a file's checkpoint, always its last write, is never stored after a batch
 * of it that was not: the next run reads the file again. A failure that {@code endsRun} accepts
 * skips every later write of every group. A write either runs completely or not at all; what
 * earlier writes stored stays stored.
 *
 * <p>Not thread-safe: one calling thread submits, waits and closes.
 */
final class WriteQueue implements AutoCloseable {

    /** Writes waiting beyond the running one. */
    static final int QUEUED = 2;
    /** The name of the thread the writes run on. */
    static final String THREAD_NAME = "funes-index-writes";

    private final Predicate<Throwable> endsRun;
    private final BlockingQueue<FutureTask<Void>> queue = new ArrayBlockingQueue<>(QUEUED);
    private final FutureTask<Void> stop = new FutureTask<>(() -> null);
    private Thread thread;
    private volatile Throwable fatal;
    private volatile boolean cancelled;

    /** @param endsRun whether a failed write's exception ends the whole run rather than its group */
    WriteQueue(Predicate<Throwable> endsRun) {
        this.endsRun = endsRun;
    }

    /** The writes of one file. */
    static final class Group {
        private volatile Throwable failure;
        private FutureTask<Void> last;

        /** The exception of the group's write that failed, or null. */
        Throwable failure() {
            return failure;
        }

        /** Whether every write submitted so far has run or been skipped. */
        boolean done() {
            return last == null || last.isDone();
        }

        /** Waits until every write submitted so far has run or been skipped. */
        void await() throws InterruptedException {
            if (last != null) {
                try {
                    last.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("a write task failed outside its guard", e.getCause());
                }
            }
        }
    }

    /** The failure that ended the run, or null. */
    Throwable fatal() {
        return fatal;
    }

    /**
     * Queues {@code write} as the next of {@code group}; waits while {@value #QUEUED} writes are
     * waiting already.
     *
     * @throws InterruptedException if interrupted while waiting; nothing was queued then
     */
    void submit(Group group, Runnable write) throws InterruptedException {
        FutureTask<Void> task = new FutureTask<>(() -> {
            if (cancelled || fatal != null || group.failure != null) {
                return null;
            }
            try {
                write.run();
            } catch (Throwable t) { // NOPMD: every failure is the group's, and Errors end the run
                group.failure = t;
                if (endsRun.test(t)) {
                    fatal = t;
                }
            }
            return null;
        });
        if (thread == null) {
            thread = new Thread(this::runWrites, THREAD_NAME);
            thread.setDaemon(true);
            thread.start();
        }
        queue.put(task);
        group.last = task;
    }

    private void runWrites() {
        try {
            while (true) {
                FutureTask<Void> task = queue.take();
                if (task == stop) {
                    return;
                }
                task.run();
            }
        } catch (InterruptedException e) {
            // nothing in Funes interrupts this thread; if something does, it stops taking writes
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs what is queued (skipping it if the calling thread was interrupted), then stops the
     * thread. Waits for the running write in any case: a store must not be closed under it.
     */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        boolean interrupted = Thread.interrupted();
        if (interrupted) {
            cancelled = true;
        }
        while (true) {
            try {
                queue.put(stop);
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
                cancelled = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
