package dev.funes.store;

import dev.funes.redact.Redactor;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning knobs of a {@link FunesStore}; the {@linkplain #defaults() defaults} suit stores of up
 * to a few hundred thousand memories. Built with {@link #builder()}, validated on construction,
 * immutable.
 *
 * @param candidates      the least number of candidates each retriever (dense and lexical)
 *                        contributes before fusion; a search asks for
 *                        {@code max(candidates, 5 * limit)} of each, because passages roll up to
 *                        fewer memories. Each list's first {@code candidates} set its min-max
 *                        scale, so a search's first hits do not depend on its limit (up to 20
 *                        with the default 100 the lists are the same; a deeper one adds candidates
 *                        that score 0 from the list that brought them that deep)
 * @param freshLimit      the memtable limit of the dense index ({@link SegmentedIndex}): new
 *                        vectors go to an in-memory JVector graph; once it holds this many, it
 *                        is sealed into an immutable segment file in the background (segments
 *                        are merged in the background too). Default 20,000
 * @param readConnections the number of SQLite connections searches read through concurrently.
 *                        A search that finds a second one idle uses it to rank a large full-text
 *                        step in two halves at once (same results). Default 4
 * @param writeLockTimeout how long a write ({@code addAll}, {@code delete}) waits for another
 *                        process (or another store on the same directory) to finish its write
 *                        before failing with a {@link dev.funes.StoreException} naming that
 *                        writer; zero tries once. Reads never wait for it.
 * @param redactor        what every memory passes through before anything of it is persisted
 *                        (text, project, metadata values; see
 *                        {@link Redactor#redact(dev.funes.Memory)}): memories added directly
 *                        through the store are redacted as thoroughly as those the
 *                        {@code Indexer} reads. Default: {@link Redactor#standard()}
 * @param fusion          how hybrid searches fuse dense and lexical candidates. Default:
 *                        {@link FusionOptions#MINMAX}
 * @param rerank          the local rerank stage after fusion. Default: {@link RerankOptions#DEFAULT};
 *                        {@link RerankOptions#NONE} turns it off
 * @param lexicalBudget   the postings budget of the full-text (lexical) step of a search, a
 *                        ranking decision that bounds its cost in large stores: the sum, over
 *                        the query's terms, of the number of memories each term occurs in. FTS5
 *                        computes bm25 for every memory that matches any term, so while that sum
 *                        is over the budget the most frequent term (the one with the lowest IDF)
 *                        is left out of the full-text query; the rarest term always stays. The
 *                        dense side, the rerank stage's term proximity and the filters still
 *                        use every term. 0 means no budget. Default
 *                        {@value #DEFAULT_LEXICAL_BUDGET}: chosen so that no question of the
 *                        evaluation sets (docs/EVALUATION.md) loses a term, while a question over
 *                        a million memories ranks at most that many matches
 * @param indexOnFirstUse whether the dense index ({@code index/}: JVector's segments, compared with
 *                        SQLite's vectors) opens when first needed (a search by meaning, a write
 *                        of vectors or deletion, {@link dev.funes.MemoryStore#stats() stats},
 *                        {@link FunesStore#openReport}) rather than when the store opens. A store
 *                        that is opened to index logs that did not change then never reads the
 *                        segments. Default false: opening the store opens and reconciles its index
 */
public record StoreOptions(int candidates, int freshLimit, int readConnections, Duration writeLockTimeout,
                           Redactor redactor, FusionOptions fusion, RerankOptions rerank, long lexicalBudget,
                           boolean indexOnFirstUse) {

    /** The default write lock timeout, 10 seconds: far longer than one write transaction. */
    public static final Duration DEFAULT_WRITE_LOCK_TIMEOUT = Duration.ofSeconds(10);

    /** The default {@linkplain #lexicalBudget() postings budget} of the full-text step of a search. */
    public static final long DEFAULT_LEXICAL_BUDGET = 20_000;

    /** The options with the dense index opened with the store ({@code indexOnFirstUse} false). */
    public StoreOptions(int candidates, int freshLimit, int readConnections, Duration writeLockTimeout,
                        Redactor redactor, FusionOptions fusion, RerankOptions rerank, long lexicalBudget) {
        this(candidates, freshLimit, readConnections, writeLockTimeout, redactor, fusion, rerank, lexicalBudget, false);
    }

    /** Validates the values. */
    public StoreOptions {
        Objects.requireNonNull(writeLockTimeout, "writeLockTimeout");
        Objects.requireNonNull(redactor, "redactor");
        Objects.requireNonNull(fusion, "fusion");
        Objects.requireNonNull(rerank, "rerank");
        if (writeLockTimeout.isNegative()) {
            throw new IllegalArgumentException("writeLockTimeout must not be negative, was " + writeLockTimeout);
        }
        if (candidates < 1) {
            throw new IllegalArgumentException("candidates must be >= 1, was " + candidates);
        }
        if (freshLimit < 1) {
            throw new IllegalArgumentException("freshLimit must be >= 1, was " + freshLimit);
        }
        if (readConnections < 1 || readConnections > 64) {
            throw new IllegalArgumentException("readConnections must be between 1 and 64, was " + readConnections);
        }
        if (lexicalBudget < 0) {
            throw new IllegalArgumentException("lexicalBudget must be >= 0 (0: no budget), was " + lexicalBudget);
        }
    }

    /**
     * 100 candidates, a fresh (memtable) limit of 20,000 vectors, 4 read connections, a 10 s write
     * lock timeout, the standard redactor, min-max fusion weighted 0.4 dense and 0.6 lexical, the default rerank
     * stage and the {@linkplain #DEFAULT_LEXICAL_BUDGET default postings budget}.
     */
    public static StoreOptions defaults() {
        return new StoreOptions(100, 20_000, 4, DEFAULT_WRITE_LOCK_TIMEOUT, Redactor.standard(), FusionOptions.defaults(),
                RerankOptions.defaults(), DEFAULT_LEXICAL_BUDGET);
    }

    /** A builder that starts from the {@linkplain #defaults() defaults}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds {@link StoreOptions}; not thread-safe. */
    public static final class Builder {
        private int candidates = defaults().candidates();
        private int freshLimit = defaults().freshLimit();
        private int readConnections = defaults().readConnections();
        private Duration writeLockTimeout = DEFAULT_WRITE_LOCK_TIMEOUT;
        private Redactor redactor;
        private FusionOptions fusion = FusionOptions.defaults();
        private RerankOptions rerank = RerankOptions.defaults();
        private long lexicalBudget = DEFAULT_LEXICAL_BUDGET;
        private boolean indexOnFirstUse;

        private Builder() {
        }

        /**
         * The postings budget of the full-text step of a search (see {@link StoreOptions#lexicalBudget()});
         * 0 means no budget.
         */
        public Builder lexicalBudget(long lexicalBudget) {
            this.lexicalBudget = lexicalBudget;
            return this;
        }

        /** How hybrid searches fuse dense and lexical candidates. */
        public Builder fusion(FusionOptions fusion) {
            this.fusion = Objects.requireNonNull(fusion, "fusion");
            return this;
        }

        /** The local rerank stage; {@link RerankOptions#NONE} turns it off. */
        public Builder rerank(RerankOptions rerank) {
            this.rerank = Objects.requireNonNull(rerank, "rerank");
            return this;
        }

        /** The least number of candidates per retriever. */
        public Builder candidates(int candidates) {
            this.candidates = candidates;
            return this;
        }

        /** The number of vectors in the in-memory graph that triggers sealing it into a segment. */
        public Builder freshLimit(int freshLimit) {
            this.freshLimit = freshLimit;
            return this;
        }

        /** The number of concurrent read connections. */
        public Builder readConnections(int readConnections) {
            this.readConnections = readConnections;
            return this;
        }

        /** How long a write waits for another writer before failing; zero tries once. */
        public Builder writeLockTimeout(Duration writeLockTimeout) {
            this.writeLockTimeout = writeLockTimeout;
            return this;
        }

        /**
         * The redactor every memory passes through before it is stored, for example one with the
         * user's rules ({@code Redactor.builder().addRules(path).build()}); there is no way to
         * store unredacted text.
         */
        public Builder redactor(Redactor redactor) {
            this.redactor = Objects.requireNonNull(redactor, "redactor");
            return this;
        }

        /** Whether the dense index opens when first needed rather than with the store (see {@link StoreOptions}). */
        public Builder indexOnFirstUse(boolean indexOnFirstUse) {
            this.indexOnFirstUse = indexOnFirstUse;
            return this;
        }

        /**
         * Builds the options.
         *
         * @throws IllegalArgumentException if a value is out of range
         * @throws NullPointerException     if the write lock timeout is null
         */
        public StoreOptions build() {
            return new StoreOptions(candidates, freshLimit, readConnections, writeLockTimeout,
                    redactor != null ? redactor : Redactor.standard(), fusion, rerank, lexicalBudget, indexOnFirstUse);
        }
    }
}
