/**
 * Local ONNX embedders: {@link dev.funes.embed.Embedders} opens a
 * {@linkplain dev.funes.embed.BundledModel bundled model} or any BERT-style export in a folder
 * ({@link dev.funes.embed.EmbedderOptions}), as a {@link dev.funes.Embedder}. Runs in-process on
 * DJL, ONNX Runtime and HuggingFace tokenizers, without network access.
 */
package dev.funes.embed;
