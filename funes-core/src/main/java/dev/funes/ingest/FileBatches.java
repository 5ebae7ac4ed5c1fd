package dev.funes.ingest;

import dev.funes.AddResult;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.SourceState;
import dev.funes.SourceUpdate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The sink a format's parse of one file writes to: memories are redacted (and classified, and
 * cut into passages) and go to the store in batches, the last one with the file's checkpoint.
 * A memory marking an ignore directive, or a failed write, {@linkplain #stopped() stops} it:
 * it takes nothing more, queues no more writes, and tells why ({@link #stop()}).
 */
final class FileBatches implements PassageSink {

    /** What every read of an {@link Indexer} shares. */
    record Rules(SourceStore store, Classifier classifier, boolean passages, int batchSize) {
    }

    /**
     * How one read goes.
     *
     * @param plan      from the start, or from a resume point
     * @param token     the resume point read from; null for a read from the start
     * @param again     whether the file was indexed before: a memory read again may differ from its stored version
     * @param previous  for a read from the start: what the last one left to tell whether this one continues it; else null
     * @param sameBytes for a read from the start: whether the file holds the very bytes read before
     */
    record Read(Resume.Plan plan, Resume.Token token, boolean again, Continuation previous, boolean sameBytes) {

        /** A read from the start. */
        static Read fromStart(boolean again, Continuation previous, boolean sameBytes) {
            return new Read(Resume.Plan.full(), null, again, previous, sameBytes);
        }

        /** A read on from {@code token}'s point, of a file indexed before. */
        static Read resumed(Resume.Token token) {
            return new Read(new Resume.Plan(token.point(), token.check()), token, true, null, false);
        }
    }

    /** Why a sink takes no more memories. */
    enum Stop {
        /** It takes them. */
        NONE,
        /** A memory marked an ignore directive ({@link Privacy#DIRECTIVE_KEY}): none of the file may stay. */
        DIRECTIVE,
        /** A write of the file, or one that ends the run, failed: reading on is in vain. */
        WRITES_FAILED
    }

    private final IndexRun run;
    private final FileJob job;
    private final SourceStore store;
    /** What the classifier derives from this read's exchanges and records; null when classifying is off. */
    private final Derivations derivations;
    /** How this read goes: from the start, or from a resume point. */
    private final Resume.Plan plan;
    /** The resume point read from; null for a read from the start. */
    private final Resume.Token token;
    private Stop stop = Stop.NONE;
    private final List<Memory> batch = new ArrayList<>();
    /** Ids of every memory of this read, across batches: what the checkpoint's batch keeps. */
    private final Set<String> ids = new HashSet<>();
    /** The first byte each memory cites, by id: which of them the next resume point replaces. */
    private final Map<String, Long> starts = new HashMap<>();
    /** The id (before redaction), stored content hash and stored text of the last memory that was not a piece. */
    private String lastId;
    private String lastHash;
    private String lastText;
    /** Ids of exchanges that redaction changed, by their id before it: what their passages name. */
    private final Map<String, String> renamed = new HashMap<>();
    /** Whether the file was indexed before: a memory read again may differ from its stored version. */
    private final boolean again;
    /** For a read from the start: what the last one left to tell whether this one continues it; else null. */
    private final Continuation previous;
    /** For a read from the start: whether the file holds the very bytes read before. */
    private final boolean sameBytes;
    /** The exchange of this read that starts last (its first part); null if none. */
    private Memory lastExchange;
    /** Whether this read gave an exchange where {@link #previous} says its last one began. */
    private boolean anchored;
    /** What the store did with this read's batches so far; written by the write thread. */
    volatile AddResult stored = AddResult.NONE;
    /** Memories stored from the file before that the writes deleted: earlier versions this read replaced. */
    volatile int removed;
    /** Memories stored from the file before that it no longer gives, kept and marked by the writes. */
    volatile int kept;
    int memories;

    FileBatches(IndexRun run, FileJob job, Read read) {
        this.run = run;
        this.job = job;
        this.store = run.rules.store();
        this.derivations = run.rules.classifier() == null ? null : new Derivations(run.rules.classifier(), run.rules.passages());
        this.plan = read.plan();
        this.token = read.token();
        this.again = read.again();
        this.previous = read.previous();
        this.sameBytes = read.sameBytes();
    }

    /** How this read goes: from the start, or from a resume point. */
    Resume.Plan plan() {
        return plan;
    }

    /** The resume point read from; null for a read from the start. */
    Resume.Token token() {
        return token;
    }

    /** Why this sink takes no more memories; {@link Stop#NONE} while it does. */
    Stop stop() {
        return stop;
    }

    @Override
    public boolean stopped() {
        return stop != Stop.NONE;
    }

    @Override
    public boolean passages() {
        return run.rules.passages();
    }

    @Override
    public void accept(Memory memory) {
        if (stop != Stop.NONE) {
            return;
        }
        if (memory != null && memory.metadata().containsKey(Privacy.DIRECTIVE_KEY)) {
            stop = Stop.DIRECTIVE;
            return;
        }
        if (job.writes.failure() != null || run.writes.fatal() != null) {
            stop = Stop.WRITES_FAILED;
            return;
        }
        Objects.requireNonNull(memory, "memory");
        if (memory.kind() == MemoryKind.PASSAGE && memory.metadata().containsKey(Passages.HEADER_KEY)) {
            passages(memory);
            return;
        }
        // The store sees only redacted memories, and the ids it keeps are theirs.
        Memory redacted = run.redactor.redact(memory, run.redactions);
        if (!redacted.id().equals(memory.id())) {
            renamed.put(memory.id(), redacted.id());
        }
        lastId = memory.id();
        lastHash = redacted.contentHash();
        lastText = redacted.text();
        batch.add(redacted);
        ids.add(redacted.id());
        long start = redacted.provenance() == null ? Long.MAX_VALUE : redacted.provenance().byteStart();
        starts.put(redacted.id(), start);
        memories++;
        if (redacted.kind() == MemoryKind.EXCHANGE && redacted.provenance() != null && Derivations.begins(redacted)) {
            if (lastExchange == null || start >= lastExchange.provenance().byteStart()) {
                lastExchange = redacted;
            }
            if (previous != null && previous.anchors(redacted)) {
                anchored = true;
            }
        }
        if (derivations != null && redacted.kind() == MemoryKind.EXCHANGE) {
            // Built from the redacted exchange, stored in its batch, kept by the checkpoint's updateSource.
            derived(derivations.exchange(redacted), start);
        }
        if (batch.size() >= run.batchLimit()) {
            flush(null);
        }
    }

    /**
     * A piece of an exchange (one record's full content): redacted whole, then cut into
     * passages that name the exchange by the id it is stored under.
     */
    private void passages(Memory piece) {
        String of = piece.metadata().get(Memory.PASSAGE_OF);
        String stored = of == null ? null : renamed.get(of);
        // A tool output's passages use the vector of their exchange, which precedes them; so does
        // a piece the exchange holds whole when the exchange is embedded in one window.
        boolean output = piece.metadata().containsKey(Passages.OUTPUT_KEY);
        boolean whole = !piece.metadata().containsKey(Passages.DOCS_KEY) && lastText != null
                && lastText.length() <= Passages.SHARED_EXCHANGE_CHARS && lastText.contains(piece.text().strip());
        String vectorOf = (output || whole) && of != null && of.equals(lastId) ? lastHash : null;
        if (stored != null || vectorOf != null) {
            Map<String, String> metadata = new TreeMap<>(piece.metadata());
            if (stored != null) {
                metadata.put(Memory.PASSAGE_OF, stored);
            }
            if (vectorOf != null) {
                metadata.put(Memory.VECTOR_OF, vectorOf);
            }
            piece = new Memory(piece.id(), piece.kind(), piece.text(), piece.startedAt(), piece.endedAt(),
                    piece.agent(), piece.project(), piece.session(), piece.provenance(), metadata);
        }
        Memory redacted = run.redactor.redact(piece, run.redactions);
        long start = redacted.provenance() == null ? Long.MAX_VALUE : redacted.provenance().byteStart();
        for (Memory cut : PassageBytes.narrow(Passages.split(redacted))) {
            // Redacted again alone, as the store will: a rule that reads a run by its length or its
            // neighbours (a cut mark after a long run is data, after its last few hundred
            // characters a piece of a key) may find in a passage what it left in the record, and
            // the id this read keeps must be the one the store stores it under.
            Memory passage = run.redactor.redact(cut, run.redactions);
            batch.add(passage);
            ids.add(passage.id());
            starts.put(passage.id(), start); // its record's first byte, as its exchange's
            memories++;
        }
        if (derivations != null) {
            // What the rendering cut (a rule deep in a long request, say) is classified too.
            derived(derivations.piece(redacted, redacted.metadata().get(Memory.PASSAGE_OF)), start);
        }
        if (batch.size() >= run.batchLimit()) {
            flush(null);
        }
    }

    /** Adds what the classifier derived, redacted again, to the batch. */
    private void derived(List<Memory> derived, long start) {
        for (Memory found : derived) {
            Memory d = run.redactor.redact(found, run.redactions);
            batch.add(d);
            ids.add(d.id());
            // Replaced with its exchange: a resumed read that re-reads the exchange still
            // being written derives it again (a lookup gains its conclusion, say).
            starts.put(d.id(), start);
            memories++;
        }
    }


    /**
     * What this read, from the start, leaves to tell whether the next read from the start
     * continues it; null if nothing.
     */
    Continuation continuation() {
        return Continuation.of(starts, lastExchange);
    }

    /** Ids of the memories of this read citing bytes from {@code offset} on. */
    List<String> idsFrom(long offset) {
        List<String> tail = new ArrayList<>();
        starts.forEach((id, start) -> {
            if (start >= offset) {
                tail.add(id);
            }
        });
        tail.sort(null);
        return tail;
    }

    /**
     * Queues the pending memories for the store. Until a resumed read has found the record it
     * checks, nothing is stored: the file may turn out to be another one, to be read from the start.
     */
    void flush(SourceState checkpoint) {
        if (!plan.verified || batch.isEmpty() && checkpoint == null) {
            return;
        }
        List<Memory> memories = List.copyOf(batch);
        batch.clear();
        run.batches++;
        write(() -> {
            replaceChanged(memories);
            stored = stored.plus(store.add(memories, checkpoint));
        });
    }

    /** Queues a write of this file (see {@link WriteQueue}). */
    private void write(Runnable write) {
        try {
            run.writes.submit(job.writes, write);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while indexing; what was stored stays stored", e);
        }
    }

    /**
     * Deletes the stored versions of {@code memories} that differ from them in more than
     * what their id covers (the {@code part} metadata of an exchange that grew a part), so
     * the add stores the new ones. A crash before the add leaves the old checkpoint: the next
     * run reads them again.
     */
    void replaceChanged(List<Memory> memories) {
        if (!again) {
            return;
        }
        for (Memory m : memories) {
            Optional<Memory> old = store.get(m.id());
            if (old.isPresent() && !old.get().equals(m)) {
                store.delete(m.id());
            }
        }
    }

    /**
     * Queues the last memories with the file's checkpoint (if not null). Only the exchange
     * that was still being written when the file was last read may be replaced: a resumed
     * read deletes what the earlier read gave from its resume point on and this one did not
     * give again, first (a crash in between leaves the old checkpoint, and the next run reads
     * it again); a read from the start that {@linkplain Continuation continues} the last one
     * deletes that read's last exchange if it did not give it again; a read from the start of
     * the very bytes read before deletes every earlier reading of them it did not give again
     * (those of an earlier version of Funes, say). Everything else the
     * file gave before and this read did not give stays, marked
     * {@link SourceState#CHANGED_KEY} ({@link dev.funes.SourceCheckpoints#updateSource}): the file is a new
     * generation (rotated, truncated or rewritten).
     */
    void finish(SourceState checkpoint) {
        if (checkpoint == null) {
            flush(null);
            return;
        }
        Set<String> keep = Set.copyOf(ids);
        if (token == null) {
            // Null: every memory of the file's current generation that this read did not give.
            Set<String> replace = sameBytes ? null : previous != null && previous.continuedBy(starts, anchored)
                    ? Set.copyOf(previous.tail()) : Set.of();
            List<Memory> memories = List.copyOf(batch);
            batch.clear();
            write(() -> {
                replaceChanged(memories);
                SourceUpdate update = store.update(memories, checkpoint, keep, replace);
                stored = stored.plus(update.stored());
                removed += update.removed();
                kept += update.marked();
            });
            return;
        }
        List<String> tail = token.tail();
        write(() -> {
            for (String id : tail) {
                if (!keep.contains(id) && store.delete(id)) {
                    removed++;
                }
            }
        });
        flush(checkpoint);
    }
}
