package dev.funes.store;

import dev.funes.Memory;
import dev.funes.Retrieval;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.StoreException;

import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * A search from request to hits: in one read transaction, the full-text candidates
 * ({@link LexicalRetriever}) ranked on a search thread while this one embeds the query and
 * searches the dense index ({@link DenseRetriever}); then the two lists fused ({@link Fusion}),
 * reranked ({@link Rerank}), passages rolled up to their memories ({@link Rollup}) and, when asked
 * for, neighbouring exchanges' shares added ({@link Neighbours}).
 */
final class HybridSearch {

    private final StoreDatabase db;
    private final StoreOptions options;
    private final SearchTuning tuning;
    private final DenseRetriever dense;
    private final LexicalRetriever lexical;

    HybridSearch(StoreDatabase db, StoreOptions options, SearchTuning tuning, DenseRetriever dense,
                 LexicalRetriever lexical) {
        this.db = db;
        this.options = options;
        this.tuning = tuning;
        this.dense = dense;
        this.lexical = lexical;
    }

    /** {@link dev.funes.MemoryStore#search}. */
    List<SearchHit> search(SearchRequest request) {
        Objects.requireNonNull(request, "request");
        return db.whileOpen(() -> {
            int k = HybridRanking.candidates(request, options);
            try {
                return db.readOpen("search", c -> search(c, request, k));
            } catch (UncheckedIOException e) {
                throw new StoreException("cannot read the ANN index of " + db.dir() + " (" + e.getCause()
                        + "): close the store and open it again to rebuild the index from SQLite", e);
            }
        });
    }

    private List<SearchHit> search(Connection c, SearchRequest request, int k) throws SQLException {
        boolean isDense = request.retrieval() != Retrieval.LEXICAL;
        if (isDense || dense.indexOpen()) { // a search by words alone does not open an index opened on first use
            dense.catchUp(c); // vectors another process (or this one, a moment ago) committed, a new manifest
        }
        SqlFilter filter = SqlFilter.of(request);
        // A filter many memories pass is applied after a wider unfiltered dense search: reading
        // the vectors it passes first would read much of the store (0.45 s at 1M for half of it).
        int wide = isDense && !filter.isEmpty() ? dense.wideCandidates(c, filter, k) : 0;
        DenseRetriever.Allowed passes = !isDense || filter.isEmpty() || wide > 0 ? null : dense.allowed(c, filter);
        VectorIdSet allowed = passes == null ? null : passes.vectors();
        // Read with those vectors: the rows the filter passes, among which the lexical side ranks.
        VectorIdSet passing = passes == null ? null : passes.rows();
        List<String> queryTerms = FtsQuery.terms(request.query()); // also for the rerank stage's proximity
        List<String> terms = request.retrieval() == Retrieval.DENSE ? List.of() : queryTerms;
        // After catchUp's reads, so the records are those of this transaction's snapshot.
        TermCounts.Generation counts = terms.isEmpty() ? null : lexical.sync(c);

        // The full-text ranking reads through this search's connection (one read transaction, one
        // state of the database) on another thread, while this one, which leaves the connection
        // alone meanwhile, embeds the query and searches the dense index (no SQL).
        Future<LexicalRetriever.Lexical> pending = isDense && !terms.isEmpty() && tuning.overlapLexical()
                ? db.searchThreads().submit(() -> lexical.candidates(c, terms, filter, passing, k, counts)) : null;
        float[] query = null;
        List<SegmentedIndex.Hit> denseHits;
        try {
            query = isDense ? dense.embedQuery(request) : null;
            denseHits = !isDense ? List.of()
                    : wide > 0 ? dense.searchWide(query, wide, k) : dense.candidates(query, allowed, k);
        } catch (RuntimeException | Error e) { // an Error too (say, the ONNX runtime's): never leave the task on it
            if (pending != null) {
                try {
                    SearchThreads.await(pending); // the connection goes back to the pool after the task
                } catch (ExecutionException suppressed) {
                    e.addSuppressed(suppressed.getCause());
                }
            }
            throw e;
        }

        Fusion fusion = new Fusion(options.fusion(), request.retrieval(), options.candidates());
        // Rows read for this search, by seq: a memory that is both a dense and a lexical candidate
        // is read once.
        Map<Long, Memory> rows = new HashMap<>();
        LexicalRetriever.Lexical matched = null;
        if (pending != null) {
            matched = LexicalRetriever.await(pending);
        }
        if (wide > 0 && !denseHits.isEmpty()) {
            denseHits = dense.filterWide(c, query, denseHits, wide, filter, k);
        }
        if (!denseHits.isEmpty()) {
            Map<Long, List<Rows.StoredMemory>> byVector = DenseRetriever.memoriesOfVectors(c, denseHits, rows);
            int rank = 0;
            for (SegmentedIndex.Hit hit : denseHits) {
                boolean any = false;
                for (Rows.StoredMemory stored : byVector.getOrDefault(hit.id(), List.of())) {
                    Memory m = stored.memory();
                    if (request.matches(m)) {
                        if (!any) {
                            any = true;
                            rank++;
                        }
                        fusion.dense(m, rank, hit.score());
                    }
                }
            }
        }

        if (!terms.isEmpty()) {
            if (matched == null) {
                matched = lexical.candidates(c, terms, filter, passing, k, counts);
            }
            readMemories(c, matched.seqs(), matched.count(), rows);
            int rank = 0;
            for (int i = 0; i < matched.count(); i++) {
                Memory m = rows.get(matched.seqs()[i]);
                if (m != null && request.matches(m)) {
                    // FTS5's bm25() is lower-is-better; ScoreParts wants higher-is-better.
                    fusion.lexical(m, ++rank, -matched.bm25()[i]);
                }
            }
        }
        // Passages roll up to the memories they belong to: every candidate goes on, so that k
        // hits remain however many passages of one memory rank high.
        List<Fusion.Candidate> fused = fusion.ranked();
        RerankOptions rerank = options.rerank();
        List<SearchHit> ranked = Rerank.apply(fused, queryTerms, rerank, fused.size());
        boolean neighbours = rerank.neighbourWeight() > 0;
        // An exchange's neighbours count among the best `depth` memories, however few hits are asked for.
        int places = neighbours ? Math.max(request.limit(), rerank.depth()) : request.limit();
        List<SearchHit> memories = Rollup.apply(ranked, places, Rollup.window(options),
                rerank.passageWeight(), ids -> memoriesById(c, ids), queryTerms);
        return neighbours ? Neighbours.apply(c, memories, rerank.neighbourWeight(), request.limit()) : memories;
    }

    /** The stored memories with these ids, by id; ids not stored are absent. */
    private static Map<String, Memory> memoriesById(Connection c, List<String> ids) throws SQLException {
        Map<String, Memory> found = new HashMap<>();
        Rows.readRows(c, "id", ids, PreparedStatement::setString, m -> found.put(m.memory().id(), m.memory()));
        return found;
    }

    /** Reads the memories of the first {@code count} rows ({@code seq}) that {@code rows} lacks into it. */
    private static void readMemories(Connection c, long[] seqs, int count, Map<Long, Memory> rows)
            throws SQLException {
        List<Long> missing = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            if (!rows.containsKey(seqs[i])) {
                missing.add(seqs[i]);
            }
        }
        Rows.readRows(c, "seq", missing, PreparedStatement::setLong, m -> rows.put(m.seq(), m.memory()));
    }
}
