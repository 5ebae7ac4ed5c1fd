package dev.funes.store;

/**
 * How a store's searches go about their work, where two ways give the same results: fixed when the
 * store opens ({@link SqliteMemoryStore#open(java.nio.file.Path, dev.funes.Embedder, StoreOptions, SearchTuning)}).
 * Tests and benchmarks open a store with other values to compare the ways; everyone else gets
 * {@link #DEFAULT}.
 *
 * @param overlapLexical   whether a hybrid search ranks its full-text candidates on a
 *                         {@link SearchThreads} thread while the caller embeds the query and
 *                         searches the dense index, or does one after the other
 * @param splitLexicalAt   a full-text ranking by FTS5 over at least this many postings (the
 *                         document frequencies of its terms, summed) is split in two row ranges
 *                         ranked at once on two read connections; {@link Long#MAX_VALUE} never
 *                         splits
 * @param rankInJava       whether full-text rankings are computed by {@link Bm25Ranking} where it
 *                         can, or always by FTS5's {@code bm25()}
 * @param wideFilterMinRows from how many rows (the largest row number) a filtered dense search
 *                         estimates the share of memories its filter passes and, when many do,
 *                         searches the dense index unfiltered and filters after;
 *                         {@link Long#MAX_VALUE} never does
 * @param loadAfterMisses  a search that finds more token counts missing from the cache than this
 *                         loads all of them on another thread ({@link DocLengths})
 */
record SearchTuning(boolean overlapLexical, long splitLexicalAt, boolean rankInJava, long wideFilterMinRows,
                    int loadAfterMisses) {

    /**
     * The store's ways: overlapped, split from {@value LexicalRetriever#SPLIT_LEXICAL_POSTINGS}
     * postings, ranked in Java, wide from {@value DenseRetriever#WIDE_FILTER_MIN_ROWS} rows, loaded
     * after {@value Bm25Ranking#LOAD_AFTER_MISSES} misses.
     */
    static final SearchTuning DEFAULT = new SearchTuning(true, LexicalRetriever.SPLIT_LEXICAL_POSTINGS, true,
            DenseRetriever.WIDE_FILTER_MIN_ROWS, Bm25Ranking.LOAD_AFTER_MISSES);

    SearchTuning {
        if (splitLexicalAt < 1) {
            throw new IllegalArgumentException("splitLexicalAt must be >= 1, was " + splitLexicalAt);
        }
    }

    SearchTuning overlapLexical(boolean overlap) {
        return new SearchTuning(overlap, splitLexicalAt, rankInJava, wideFilterMinRows, loadAfterMisses);
    }

    SearchTuning splitLexicalAt(long postings) {
        return new SearchTuning(overlapLexical, postings, rankInJava, wideFilterMinRows, loadAfterMisses);
    }

    SearchTuning rankInJava(boolean java) {
        return new SearchTuning(overlapLexical, splitLexicalAt, java, wideFilterMinRows, loadAfterMisses);
    }

    SearchTuning wideFilterMinRows(long rows) {
        return new SearchTuning(overlapLexical, splitLexicalAt, rankInJava, rows, loadAfterMisses);
    }

    SearchTuning loadAfterMisses(int misses) {
        return new SearchTuning(overlapLexical, splitLexicalAt, rankInJava, wideFilterMinRows, misses);
    }
}
