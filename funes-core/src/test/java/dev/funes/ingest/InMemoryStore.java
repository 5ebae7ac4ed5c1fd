package dev.funes.ingest;

import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SourceCheckpoints;
import dev.funes.ScoreParts;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;
import dev.funes.StoreException;
import dev.funes.StoreStats;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A plain map behind the {@link MemoryStore} contract, for the Indexer's bookkeeping tests only
 * (walking, checkpoints, batches). The real store (SQLite, embeddings) lives in funes-store,
 * which funes-core cannot depend on; the Indexer is tested against it there. This class keeps
 * the contract's parts the Indexer relies on: idempotent adds by id, checkpoints stored
 * atomically with their batch, all-or-nothing failure.
 */
final class InMemoryStore implements MemoryStore, SourceCheckpoints {

    /** One addAll call as the store saw it. */
    record Call(int memories, SourceState source) {
    }

    private final Map<String, Memory> memories = new LinkedHashMap<>();
    private final Set<String> embedded = new HashSet<>();
    private final Map<Path, SourceState> sources = new LinkedHashMap<>();
    final List<Call> calls = new ArrayList<>();
    /** When positive, the n-th next addAll call fails (1 = the next one), storing nothing. */
    volatile int failOnCall;
    /** What the failing call throws. */
    volatile java.util.function.Supplier<RuntimeException> failure = () -> new StoreException("disk full (simulated)");
    /** Runs at the start of every addAll, before the store's lock is taken (so it may wait on the caller). */
    volatile java.util.function.Consumer<Collection<Memory>> beforeAdd = batch -> {
    };
    /** Runs at the start of every source lookup, before the store's lock is taken. */
    volatile java.util.function.Consumer<Path> beforeSource = file -> {
    };
    private boolean closed;

    @Override
    public AddResult addAll(Collection<Memory> batch) {
        return addAll(batch, null);
    }

    @Override
    public Optional<SourceCheckpoints> checkpoints() {
        return Optional.of(this);
    }

    @Override
    public AddResult addAll(Collection<Memory> batch, SourceState source) {
        beforeAdd.accept(batch);
        return add(batch, source);
    }

    private synchronized AddResult add(Collection<Memory> batch, SourceState source) {
        check();
        calls.add(new Call(batch.size(), source));
        if (failOnCall > 0 && --failOnCall == 0) {
            throw failure.get();
        }
        int added = 0;
        int unchanged = 0;
        int newTexts = 0;
        for (Memory m : batch) {
            if (memories.putIfAbsent(m.id(), m) == null) {
                added++;
                if (embedded.add(m.contentHash())) {
                    newTexts++;
                }
            } else {
                unchanged++;
            }
        }
        if (source != null) {
            sources.put(source.path(), source);
        }
        return new AddResult(added, unchanged, newTexts);
    }

    @Override
    public SourceUpdate replaceSource(Collection<Memory> batch, SourceState source, Set<String> keep) {
        beforeAdd.accept(batch);
        return settle(batch, source, keep, null, true);
    }

    @Override
    public SourceUpdate updateSource(Collection<Memory> batch, SourceState source, Set<String> keep,
                                     Set<String> replace) {
        beforeAdd.accept(batch);
        return settle(batch, source, keep, replace, false);
    }

    /**
     * As the real store: deletes what may be replaced ({@code all}: every one; {@code replace}
     * null: every one not marked), marks the rest.
     */
    private synchronized SourceUpdate settle(Collection<Memory> batch, SourceState source, Set<String> keep,
                                             Set<String> replace, boolean all) {
        AddResult result = add(batch, java.util.Objects.requireNonNull(source, "source"));
        int removed = 0;
        int marked = 0;
        for (Memory m : List.copyOf(memories.values())) {
            if (m.provenance() == null || !m.provenance().source().equals(source.path()) || keep.contains(m.id())) {
                continue;
            }
            boolean earlier = m.metadata().containsKey(SourceState.CHANGED_KEY);
            if (all || (replace == null ? !earlier : replace.contains(m.id()))) {
                memories.remove(m.id());
                removed++;
            } else if (replace != null && !earlier) {
                Map<String, String> metadata = new java.util.TreeMap<>(m.metadata());
                metadata.put(SourceState.CHANGED_KEY, source.indexedAt().toString());
                memories.put(m.id(), new Memory(m.id(), m.kind(), m.text(), m.startedAt(), m.endedAt(), m.agent(),
                        m.project(), m.session(), m.provenance(), metadata));
                marked++;
            }
        }
        return new SourceUpdate(result, removed, marked);
    }

    @Override
    public synchronized List<dev.funes.SessionInfo> recentSessions(int limit) {
        check();
        Map<String, List<Memory>> bySession = new LinkedHashMap<>();
        for (Memory m : memories.values()) {
            if (m.session() != null) {
                bySession.computeIfAbsent(m.agent() + "\u0000" + m.session(), k -> new ArrayList<>()).add(m);
            }
        }
        List<dev.funes.SessionInfo> sessions = new ArrayList<>();
        for (List<Memory> group : bySession.values()) {
            Memory first = group.get(0);
            java.time.Instant firstAt = group.stream().map(Memory::startedAt).filter(java.util.Objects::nonNull)
                    .min(java.util.Comparator.naturalOrder()).orElse(null);
            java.time.Instant lastAt = group.stream().map(m -> m.endedAt() != null ? m.endedAt() : m.startedAt())
                    .filter(java.util.Objects::nonNull).max(java.util.Comparator.naturalOrder()).orElse(null);
            sessions.add(new dev.funes.SessionInfo(first.agent(), first.session(), first.project(), firstAt, lastAt, group.size()));
        }
        sessions.sort(java.util.Comparator.comparing(dev.funes.SessionInfo::lastAt,
                java.util.Comparator.nullsLast(java.util.Comparator.reverseOrder())));
        return sessions.subList(0, Math.min(limit, sessions.size()));
    }

    @Override
    public Optional<SourceState> source(Path file) {
        beforeSource.accept(file);
        return sourceLocked(file);
    }

    private synchronized Optional<SourceState> sourceLocked(Path file) {
        check();
        return Optional.ofNullable(sources.get(file.toAbsolutePath().normalize()));
    }

    @Override
    public synchronized List<SearchHit> search(SearchRequest request) {
        check();
        String q = request.query().toLowerCase(Locale.ROOT);
        List<SearchHit> hits = new ArrayList<>();
        for (Memory m : memories.values()) {
            if (request.matches(m) && m.text().toLowerCase(Locale.ROOT).contains(q) && hits.size() < request.limit()) {
                hits.add(new SearchHit(m, 1.0, new ScoreParts(0, Double.NaN, 1, 1.0, 1.0, Double.NaN, Double.NaN, 0)));
            }
        }
        return hits;
    }

    @Override
    public synchronized Optional<Memory> get(String id) {
        check();
        return Optional.ofNullable(memories.get(id));
    }

    @Override
    public synchronized boolean delete(String id) {
        check();
        return memories.remove(id) != null;
    }

    @Override
    public synchronized StoreStats stats() {
        check();
        return new StoreStats(memories.size(), memories.values().stream().map(Memory::session).distinct().count(),
                sources.size(), embedded.size(), Map.of(), Map.of(), "none", 0, 0, 0, Map.of());
    }

    synchronized List<Memory> all() {
        return List.copyOf(memories.values());
    }

    synchronized Map<Path, SourceState> sources() {
        return Map.copyOf(sources);
    }

    @Override
    public synchronized void close() {
        closed = true;
    }

    private void check() {
        if (closed) {
            throw new IllegalStateException("store is closed");
        }
    }
}
