/**
 * The ANN benchmark ({@link dev.funes.bench.ann.AnnBenchmark}) and the engines it compares
 * ({@link dev.funes.bench.ann.AnnPeer}).
 */
package dev.funes.bench.ann;
