package dev.funes.cli;

import dev.funes.AddResult;
import dev.funes.StoreBusyException;
import dev.funes.ingest.IndexListener;
import dev.funes.ingest.IndexProblem;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileVisitOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a store up to date with log files as agents write them: an initial index of the roots,
 * then every changed file is indexed again through the same {@link Indexer}, whose checkpoints
 * skip what did not change.
 *
 * <p>Changes are heard two ways. A {@link WatchService} watches every folder under the roots
 * (folders that appear are watched as they appear); and every {@link #POLL} the size and time of
 * every known file are compared, which catches writes on file systems that send no events
 * (network and some container mounts) and works alone when no watch service is available. Without
 * a watch service the folders are also walked again every {@link #REWALK}, to find new files.
 * A changed file is indexed once it has been quiet for {@link #DEBOUNCE} (or has been changing
 * for {@link #MAX_DELAY}), so a burst of writes costs one read.
 *
 * <p>A deleted file is forgotten by the watcher; what was stored from it stays (the store is a
 * memory, not a mirror). A rotated file (renamed away, a new one in its place), like a truncated,
 * emptied or rewritten one, is read in full again as a new generation of the log: what was stored
 * from the old one stays too, marked {@link dev.funes.SourceState#CHANGED_KEY}, and the line
 * that tells the read says how many earlier memories were kept.
 *
 * <p>After indexing, an optional link pass (commits to the memories that made them) runs once the
 * logs have been quiet for {@link #LINK_QUIET}, or after {@link #LINK_MAX_DELAY} of continuous
 * change, and once more before the thread ends if anything was indexed since the last pass; it
 * also runs once at the start. A pass is incremental, but it opens every repository of the
 * stored projects, so it is kept off the path from an append to its memory being searchable.
 *
 * <p>One thread, named {@code funes-watch}, does everything: hearing, debouncing, indexing and
 * linking, so the indexer is never called twice at once. {@link #stop} ends it after the indexing
 * under way.
 */
final class Watcher {

    private static final Logger LOG = LoggerFactory.getLogger(Watcher.class);

    /** Quiet time before a changed file is read. */
    static final Duration DEBOUNCE = Duration.ofMillis(150);
    /** Longest a file that keeps changing waits before it is read anyway. */
    static final Duration MAX_DELAY = Duration.ofMillis(1000);
    /** How often known files are checked for a new size or time. */
    static final Duration POLL = Duration.ofMillis(500);
    /** How long files wait before they are tried again after the store was busy. */
    static final Duration BUSY_RETRY = Duration.ofSeconds(5);
    /** How often folders are walked again when no watch service is available. */
    static final Duration REWALK = Duration.ofSeconds(5);
    /** Quiet time after indexing before the link pass runs. */
    static final Duration LINK_QUIET = Duration.ofMillis(1000);
    /** Longest the link pass waits while logs keep changing. */
    static final Duration LINK_MAX_DELAY = Duration.ofSeconds(10);

    private final Indexer indexer;
    private final List<Path> roots;
    private final Consumer<String> progress;
    private final boolean useWatchService;
    /** The link pass, or null for none. */
    private final Runnable link;
    /** Since the last link pass: {first indexing, last indexing}, in nanoTime; null if none. */
    private long[] unlinked;
    private final Map<Path, Stat> known = new HashMap<>();
    private final Map<WatchKey, Path> keys = new HashMap<>();
    /** File -> {first change seen, last change seen}, in nanoTime. */
    private final Map<Path, long[]> pending = new LinkedHashMap<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean stopping;
    private volatile Thread thread;
    private WatchService watchService;
    private long lastPoll;
    private long lastWalk;
    private long changesIndexed;

    private record Stat(long size, long modified) {
    }

    /**
     * @param indexer         the indexer every read goes through
     * @param roots           files and folders to watch, as given to {@link Indexer#index}
     * @param progress        receives one line per indexed change and per problem
     * @param useWatchService false to rely on polling alone
     */
    Watcher(Indexer indexer, List<Path> roots, Consumer<String> progress, boolean useWatchService) {
        this(indexer, roots, progress, useWatchService, null);
    }

    /**
     * @param link a link pass run after indexing (see the class comment) on the watch thread; it
     *             may throw, which is reported on {@code progress} and tried again after the
     *             next indexing; null for none
     */
    Watcher(Indexer indexer, List<Path> roots, Consumer<String> progress, boolean useWatchService, Runnable link) {
        this.link = link;
        this.indexer = Objects.requireNonNull(indexer, "indexer");
        this.roots = roots.stream().map(p -> p.toAbsolutePath().normalize()).toList();
        this.progress = Objects.requireNonNull(progress, "progress");
        this.useWatchService = useWatchService;
    }

    /**
     * Indexes the roots once with {@code initial} (the same store, perhaps another listener), on
     * the calling thread, and returns its report; then starts the {@code funes-watch} thread.
     * Folders are watched before that index, so nothing written meanwhile is missed.
     */
    IndexReport start(Indexer initial) {
        openWatchService();
        registerAll();
        IndexReport report = initial.index(roots);
        lastPoll = lastWalk = System.nanoTime();
        if (link != null) {
            // What the initial index stored is linked first, on the watch thread.
            long due = lastPoll - LINK_MAX_DELAY.toNanos();
            unlinked = new long[] {due, due};
        }
        Thread t = new Thread(this::loop, "funes-watch");
        t.setDaemon(false);
        thread = t;
        t.start();
        return report;
    }

    /**
     * Asks the watch thread to end after the indexing under way (within {@link #POLL} when idle);
     * returns at once. The thread is not interrupted: an interrupt closes the NIO channels the
     * store may be writing through.
     */
    void stop() {
        stopping = true;
    }

    /** Waits until the watch thread has ended; true if it did within {@code timeout}. */
    boolean awaitStopped(Duration timeout) throws InterruptedException {
        return thread == null || stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Changed files indexed since the start (not counting the initial index). */
    long changesIndexed() {
        return changesIndexed;
    }

    // ---- the loop ----------------------------------------------------------------------------

    private void loop() {
        try {
            while (!stopping) {
                long wait = nextWaitMillis();
                hear(wait);
                if (stopping) {
                    break;
                }
                long now = System.nanoTime();
                if (now - lastPoll >= POLL.toNanos()) {
                    lastPoll = now;
                    if (watchService == null && now - lastWalk >= REWALK.toNanos()) {
                        lastWalk = now;
                        registerAll();
                    }
                    pollKnown(now);
                }
                indexDue(System.nanoTime());
                linkDue(System.nanoTime());
            }
            if (unlinked != null) {
                // Nothing indexed is left unlinked by a stop.
                link();
            }
        } catch (RuntimeException e) {
            // A closed store or a failing listener: nothing more can be indexed.
            LOG.error("Watching stopped: {}", e.toString(), e);
            progress.accept("funes watch: stopped: " + Main.oneLine(e));
        } finally {
            closeWatchService();
            stopped.countDown();
        }
    }

    private long nextWaitMillis() {
        long now = System.nanoTime();
        long next = lastPoll + POLL.toNanos();
        for (long[] times : pending.values()) {
            next = Math.min(next, dueAt(times));
        }
        if (unlinked != null) {
            next = Math.min(next, linkAt(unlinked));
        }
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(next - now) + 1);
    }

    private static long dueAt(long[] times) {
        return Math.min(times[1] + DEBOUNCE.toNanos(), times[0] + MAX_DELAY.toNanos());
    }

    private static long linkAt(long[] times) {
        return Math.min(times[1] + LINK_QUIET.toNanos(), times[0] + LINK_MAX_DELAY.toNanos());
    }

    private void linkDue(long now) {
        if (unlinked != null && linkAt(unlinked) <= now) {
            link();
        }
    }

    /** One link pass; a failure is reported and the pass is tried again after the next indexing. */
    private void link() {
        long start = System.nanoTime();
        unlinked = null;
        try {
            link.run();
        } catch (StoreBusyException e) {
            progress.accept("funes watch: linking: " + Main.oneLine(e) + "; trying again in " + BUSY_RETRY.toSeconds() + " s");
            long later = System.nanoTime() + BUSY_RETRY.toNanos() - LINK_QUIET.toNanos();
            unlinked = new long[] {later, later};
        } catch (RuntimeException e) {
            // A repository that cannot be read must not end the watch: the logs are still indexed.
            LOG.warn("Linking failed: {}", e.toString(), e);
            progress.accept("funes watch: linking failed: " + Main.oneLine(e));
        }
        LOG.debug("Linked in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Waits up to {@code millis} for watch events and notes what they name. */
    private void hear(long millis) {
        if (watchService == null) {
            sleep(millis);
            return;
        }
        try {
            WatchKey key = watchService.poll(millis, TimeUnit.MILLISECONDS);
            while (key != null) {
                handle(key);
                key = watchService.poll();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        } catch (ClosedWatchServiceException e) {
            watchService = null;
        }
    }

    private void handle(WatchKey key) {
        Path dir = keys.get(key);
        for (WatchEvent<?> event : key.pollEvents()) {
            if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                // Events were lost: look at everything again.
                registerAll();
                known.keySet().forEach(this::changed);
                continue;
            }
            if (dir == null) {
                continue;
            }
            Path path = dir.resolve((Path) event.context());
            if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE && Files.isDirectory(path)) {
                if (watchedFolder(path)) {
                    // Files may already be inside the new folder before it is registered.
                    registerTree(path);
                }
            } else if (event.kind() == StandardWatchEventKinds.ENTRY_DELETE) {
                deleted(path);
            } else if (watchedFile(path)) {
                changed(path);
            }
        }
        if (!key.reset()) {
            keys.remove(key);
        }
    }

    private void pollKnown(long now) {
        for (Map.Entry<Path, Stat> e : new ArrayList<>(known.entrySet())) {
            Stat stat = stat(e.getKey());
            if (stat == null) {
                deleted(e.getKey());
            } else if (!stat.equals(e.getValue())) {
                changed(e.getKey());
            }
        }
    }

    private void changed(Path file) {
        long now = System.nanoTime();
        long[] times = pending.get(file);
        if (times == null) {
            pending.put(file, new long[] {now, now});
        } else {
            times[1] = now;
        }
        // Noted now, so the poll does not report the same change again.
        Stat stat = stat(file);
        if (stat != null) {
            known.put(file, stat);
        }
    }

    private void deleted(Path file) {
        pending.remove(file);
        if (known.remove(file) != null) {
            progress.accept("deleted " + file + " (what was stored from it stays)");
        }
    }

    private void indexDue(long now) {
        List<Path> due = new ArrayList<>();
        pending.entrySet().removeIf(e -> {
            if (dueAt(e.getValue()) <= now) {
                due.add(e.getKey());
                return true;
            }
            return false;
        });
        due.removeIf(f -> !Files.isRegularFile(f));
        if (due.isEmpty()) {
            return;
        }
        long start = System.nanoTime();
        IndexReport report;
        try {
            report = indexer.index(due);
        } catch (StoreBusyException e) {
            // Another process held the write lock past its timeout: not this watcher's end, and
            // the files' changes are not lost; they are read again a little later.
            progress.accept("funes watch: " + Main.oneLine(e) + "; trying again in " + BUSY_RETRY.toSeconds() + " s");
            long later = System.nanoTime() + BUSY_RETRY.toNanos() - DEBOUNCE.toNanos();
            for (Path file : due) {
                pending.putIfAbsent(file, new long[] {later, later});
            }
            return;
        }
        changesIndexed += report.filesIndexed();
        if (link != null && report.filesIndexed() > 0) {
            long done = System.nanoTime();
            if (unlinked == null) {
                unlinked = new long[] {done, done};
            } else {
                unlinked[1] = done;
            }
        }
        LOG.debug("Indexed {} changed files in {} ms", due.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    // ---- registration ------------------------------------------------------------------------

    private void openWatchService() {
        if (!useWatchService) {
            return;
        }
        try {
            watchService = roots.isEmpty() ? null : roots.get(0).getFileSystem().newWatchService();
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("No file watch service ({}); polling every {} ms instead", e.toString(), POLL.toMillis());
            watchService = null;
        }
    }

    private void closeWatchService() {
        WatchService ws = watchService;
        watchService = null;
        if (ws != null) {
            try {
                ws.close();
            } catch (IOException e) {
                LOG.debug("Closing the watch service failed", e);
            }
        }
    }

    /** Watches every folder under the roots and learns every file there (already indexed or not). */
    private void registerAll() {
        for (Path root : roots) {
            if (Files.isDirectory(root)) {
                registerTree(root);
            } else {
                // A single file: watch its folder, but only this file in it counts.
                register(root.getParent());
                learn(root, true);
            }
        }
    }

    private void registerTree(Path top) {
        try (Stream<Path> walk = Files.walk(top, FileVisitOption.FOLLOW_LINKS)) {
            walk.forEach(p -> {
                if (Files.isDirectory(p)) {
                    if (p.equals(top) || watchedFolder(p)) {
                        register(p);
                    }
                } else if (watchedFile(p)) {
                    learn(p, false);
                }
            });
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.debug("Could not walk {}: {}", top, e.toString());
        }
    }

    private void register(Path dir) {
        if (watchService == null || dir == null || keys.containsValue(dir)) {
            return;
        }
        try {
            keys.put(dir.register(watchService, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_DELETE), dir);
        } catch (IOException e) {
            LOG.debug("Cannot watch {}: {}; polling covers its known files", dir, e.toString());
        }
    }

    /** A file seen for the first time after the start is a change: it was not in the initial index. */
    private void learn(Path file, boolean root) {
        if (known.containsKey(file)) {
            return;
        }
        Stat stat = stat(file);
        if (stat == null) {
            return;
        }
        known.put(file, stat);
        if (thread != null) {
            changed(file);
        }
    }

    /** A folder under a root the Indexer would walk into (not hidden). */
    private boolean watchedFolder(Path dir) {
        Path name = dir.getFileName();
        return name == null || !name.toString().startsWith(".");
    }

    /** A file the Indexer would read: a root itself, or a non-hidden file below a watched folder. */
    private boolean watchedFile(Path file) {
        if (roots.contains(file)) {
            return true;
        }
        Path name = file.getFileName();
        if (name == null || (name.toString().startsWith(".") && !".aider.chat.history.md".equals(name.toString()))) {
            return false;
        }
        for (Path root : roots) {
            if (file.startsWith(root) && !file.equals(root) && Files.isDirectory(root)) {
                return true;
            }
        }
        return false;
    }

    private static Stat stat(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return a.isRegularFile() ? new Stat(a.size(), a.lastModifiedTime().toMillis()) : null;
        } catch (IOException e) {
            return null;
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }

    /**
     * The listener of a watch: one line per indexed change and per problem. Files the Indexer did
     * not recognise are not problems here: a watched folder holds other files too.
     */
    static final class Lines implements IndexListener {
        private final Consumer<String> out;
        private final List<IndexProblem> problems = new ArrayList<>();
        /** What the file's read did to its earlier memories: {removed, kept}. */
        private final int[] earlier = new int[2];

        Lines(Consumer<String> out) {
            this.out = out;
        }

        @Override
        public void problem(IndexProblem problem) {
            problems.add(problem);
        }

        @Override
        public void earlierMemories(Path file, int removed, int kept) {
            earlier[0] += removed;
            earlier[1] += kept;
        }

        @Override
        public void fileFinished(Path file, FileOutcome outcome, int memories, AddResult stored) {
            if (outcome != FileOutcome.IGNORED) {
                for (IndexProblem p : problems) {
                    out.accept("warning: " + p);
                }
            }
            problems.clear();
            int removed = earlier[0];
            int kept = earlier[1];
            earlier[0] = earlier[1] = 0;
            String changed = kept == 0 ? "" : "; changed since it was read: its " + kept
                    + (kept == 1 ? " earlier memory kept" : " earlier memories kept");
            switch (outcome) {
                case INDEXED -> out.accept("indexed " + file + ": " + memories + " memories, " + stored.added() + " new"
                        + changed + (removed == 0 ? "" : "; " + removed + (removed == 1 ? " earlier version" : " earlier versions")
                        + " of an exchange being written replaced"));
                case SKIPPED_BY_REQUEST -> out.accept("skipped " + file + ": marked funes:ignore"
                        + (removed == 0 ? "" : "; its " + removed + (removed == 1 ? " memory" : " memories") + " removed"));
                case FAILED -> out.accept("failed " + file + " (retried on its next change)" + changed
                        + (removed == 0 ? "" : "; " + removed + " earlier versions replaced"));
                default -> {
                }
            }
        }
    }
}
