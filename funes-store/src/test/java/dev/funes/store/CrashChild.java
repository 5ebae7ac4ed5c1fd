package dev.funes.store;

import dev.funes.AddResult;
import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.SourceState;
import dev.funes.StoreStats;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.ingest.IndexReport;
import dev.funes.ingest.Indexer;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The process {@link CrashSafetyTest} kills: indexes real logs with the real {@link Indexer} into
 * the store in {@code args[0]} (batch size {@code args[1]}, fresh limit {@code args[2]}, logs
 * {@code args[3..]}) and prints {@code ADDING} before every batch and a line after every batch the
 * store committed: {@code COMMITTED<TAB>id,id,...<TAB>checkpointed path or ->}. One embedder for
 * the whole process.
 */
public final class CrashChild {

    private CrashChild() {
    }

    /** Runs the child. */
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int batchSize = Integer.parseInt(args[1]);
        int freshLimit = Integer.parseInt(args[2]);
        List<Path> logs = new ArrayList<>();
        for (int i = 3; i < args.length; i++) {
            logs.add(Path.of(args[i]));
        }
        PrintStream out = System.out;
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore store = FunesStore.open(dir, embedder, StoreOptions.builder().freshLimit(freshLimit).build())) {
            out.println("READY");
            out.flush();
            IndexReport report = Indexer.builder(new Reporting(store, out)).batchSize(batchSize).build().index(logs);
            out.println("INDEXED\t" + report.summary());
            out.flush();
        }
        out.println("DONE");
        out.flush();
    }

    /** Tells stdout about every batch once the store has committed it, that is once addAll returned. */
    private record Reporting(MemoryStore store, PrintStream out) implements MemoryStore, dev.funes.SourceCheckpoints {

        @Override
        public AddResult addAll(Collection<Memory> memories) {
            return addAll(memories, null);
        }

        @Override
        public Optional<dev.funes.SourceCheckpoints> checkpoints() {
            return Optional.of(this);
        }

        private dev.funes.SourceCheckpoints sources() {
            return store.checkpoints().orElseThrow();
        }

        @Override
        public AddResult addAll(Collection<Memory> memories, SourceState source) {
            out.println("ADDING");
            out.flush();
            AddResult result = sources().addAll(memories, source);
            StringBuilder ids = new StringBuilder();
            for (Memory m : memories) {
                ids.append(ids.length() == 0 ? "" : ",").append(m.id());
            }
            out.println("COMMITTED\t" + (ids.length() == 0 ? "-" : ids) + "\t" + (source == null ? "-" : source.path()));
            out.flush();
            return result;
        }

        @Override
        public dev.funes.SourceUpdate replaceSource(Collection<Memory> memories, SourceState source,
                                                   java.util.Set<String> keep) {
            return reported(memories, source, () -> sources().replaceSource(memories, source, keep));
        }

        @Override
        public dev.funes.SourceUpdate updateSource(Collection<Memory> memories, SourceState source,
                                                  java.util.Set<String> keep, java.util.Set<String> replace) {
            return reported(memories, source, () -> sources().updateSource(memories, source, keep, replace));
        }

        private dev.funes.SourceUpdate reported(Collection<Memory> memories, SourceState source,
                                                java.util.function.Supplier<dev.funes.SourceUpdate> write) {
            out.println("ADDING");
            out.flush();
            dev.funes.SourceUpdate result = write.get();
            StringBuilder ids = new StringBuilder();
            for (Memory m : memories) {
                ids.append(ids.length() == 0 ? "" : ",").append(m.id());
            }
            out.println("COMMITTED\t" + (ids.length() == 0 ? "-" : ids) + "\t" + (source == null ? "-" : source.path()));
            out.flush();
            return result;
        }

        @Override
        public java.util.List<dev.funes.SessionInfo> recentSessions(int limit) {
            return store.recentSessions(limit);
        }

        @Override
        public Optional<SourceState> source(Path file) {
            return sources().source(file);
        }

        @Override
        public List<SearchHit> search(SearchRequest request) {
            return store.search(request);
        }

        @Override
        public Optional<Memory> get(String id) {
            return store.get(id);
        }

        @Override
        public boolean delete(String id) {
            return store.delete(id);
        }

        @Override
        public StoreStats stats() {
            return store.stats();
        }

        @Override
        public void close() {
            store.close();
        }
    }
}
