/**
 * A repeatable vector corpus of real text embeddings for the ANN and store benchmarks, cached on
 * disk with held-out queries and exact ground truth ({@link dev.funes.bench.corpus.VectorCorpus}).
 */
package dev.funes.bench.corpus;
