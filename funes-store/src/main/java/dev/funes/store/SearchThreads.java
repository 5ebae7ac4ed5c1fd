package dev.funes.store;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads one store runs the full-text part of its hybrid searches on, while each caller's own
 * thread embeds its query and searches the dense index. At most {@code size} threads (one per read
 * connection: a task always holds a borrowed connection), started when first needed and stopped
 * after a minute idle; daemon threads named {@code funes-search-<store>-<n>}.
 *
 * <p>{@link #close()} stops them and returns only when every thread has ended, so a closed store
 * leaves no thread behind. Thread-safe.
 */
final class SearchThreads implements AutoCloseable {

    private static final AtomicInteger STORES = new AtomicInteger();
    private static final long IDLE_SECONDS = 60;

    private final ThreadPoolExecutor executor;
    private final List<Thread> threads = new ArrayList<>();

    SearchThreads(int size) {
        String prefix = "funes-search-" + STORES.incrementAndGet() + "-";
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = task -> {
            Thread t = new Thread(task, prefix + count.incrementAndGet());
            t.setDaemon(true);
            synchronized (threads) {
                threads.removeIf(old -> !old.isAlive());
                threads.add(t);
            }
            return t;
        };
        executor = new ThreadPoolExecutor(size, size, IDLE_SECONDS, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                factory);
        executor.allowCoreThreadTimeOut(true);
    }

    /** Starts {@code task} on one of these threads. */
    <T> Future<T> submit(Callable<T> task) {
        return executor.submit(task);
    }

    /**
     * The result of {@code task}, waiting for it without giving up on an interrupt: the caller's
     * read connection is in use until the task ends. The interrupt is kept for the caller.
     *
     * @throws ExecutionException if the task threw
     */
    static <T> T await(Future<T> task) throws ExecutionException {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return task.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops the threads and waits for each to end; the store waits for its searches before. */
    @Override
    public void close() {
        executor.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (executor.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        List<Thread> started;
        synchronized (threads) {
            started = new ArrayList<>(threads);
        }
        for (Thread t : started) {
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
