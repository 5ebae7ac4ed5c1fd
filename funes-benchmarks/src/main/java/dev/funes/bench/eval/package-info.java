/**
 * The retrieval-quality evaluation: LoCoMo evidence recall and a coding-session question set over
 * real agent logs, for BM25, dense and hybrid retrieval through the store's own search.
 * {@link dev.funes.bench.eval.Evaluate} is the entry point; docs/EVALUATION.md describes the data,
 * the metrics and the latest results.
 */
package dev.funes.bench.eval;
