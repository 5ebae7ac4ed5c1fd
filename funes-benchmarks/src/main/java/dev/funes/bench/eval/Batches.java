package dev.funes.bench.eval;

import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.MemoryStore;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** Adds memories to a store in batches, with progress on the log stream. */
final class Batches {

    /** The batch size the indexer uses too. */
    static final int SIZE = 256;

    private Batches() {
    }

    /** Adds every memory; returns how many texts the store had to embed. */
    static int add(MemoryStore store, List<Memory> memories, String what, PrintStream log) {
        AddResult total = AddResult.NONE;
        long started = System.nanoTime();
        long lastReport = started;
        for (int i = 0; i < memories.size(); i += SIZE) {
            total = total.plus(store.addAll(memories.subList(i, Math.min(memories.size(), i + SIZE))));
            long now = System.nanoTime();
            if (now - lastReport > 10_000_000_000L) {
                log.printf(Locale.ROOT, "%s: %d/%d memories stored (%d embedded, %.0f s)%n", what,
                        Math.min(memories.size(), i + SIZE), memories.size(), total.embedded(), (now - started) / 1e9);
                lastReport = now;
            }
        }
        return total.embedded();
    }
}
