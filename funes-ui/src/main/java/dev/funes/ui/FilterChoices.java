package dev.funes.ui;

import dev.funes.MemoryStore;
import dev.funes.SessionInfo;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The agents and projects the search form suggests, from the latest sessions. Reading them costs a
 * few hundred milliseconds on a large store, too much for every page: they are read on another
 * thread when the server starts and again at most once a minute after, and a page never waits for
 * them (the form's fields take any typed value; the suggestions only help).
 *
 * <p>Thread-safe.
 */
final class FilterChoices {

    /** Sessions the suggestions are taken from. */
    private static final int SESSIONS = 1000;
    private static final long REFRESH_NANOS = 60_000_000_000L;

    /** What was read, and when ({@link System#nanoTime()}). */
    record Choices(Set<String> agents, Set<String> projects, long readAt) {
    }

    private final MemoryStore store;
    private final AtomicReference<Choices> current = new AtomicReference<>();
    private final AtomicBoolean reading = new AtomicBoolean();

    FilterChoices(MemoryStore store) {
        this.store = store;
    }

    /** The suggestions read last (empty before the first read ends); starts a read when they are old. */
    Choices get() {
        Choices c = current.get();
        if (c == null || System.nanoTime() - c.readAt() > REFRESH_NANOS) {
            refresh();
        }
        return c != null ? c : new Choices(Set.of(), Set.of(), 0);
    }

    /** Reads the suggestions on a daemon thread, unless a read is under way. */
    void refresh() {
        if (!reading.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(() -> {
            try {
                current.set(read());
            } catch (RuntimeException e) {
                // No suggestions this time (a busy or closing store); the form works without them.
            } finally {
                reading.set(false);
            }
        }, "funes-ui-choices");
        t.setDaemon(true);
        t.start();
    }

    private Choices read() {
        TreeSet<String> agents = new TreeSet<>();
        TreeSet<String> projects = new TreeSet<>();
        List<SessionInfo> sessions = store.recentSessions(SESSIONS);
        for (SessionInfo s : sessions) {
            agents.add(s.agent());
            if (s.project() != null) {
                projects.add(s.project());
            }
        }
        return new Choices(Set.copyOf(agents), Set.copyOf(projects), System.nanoTime());
    }
}
