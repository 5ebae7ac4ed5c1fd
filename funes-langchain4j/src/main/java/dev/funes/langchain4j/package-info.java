/**
 * Funes for LangChain4j: {@link dev.funes.langchain4j.FunesEmbeddingStore} (an
 * {@code EmbeddingStore<TextSegment>} whose entries are Funes memories),
 * {@link dev.funes.langchain4j.FunesContentRetriever} (Funes's hybrid search as a
 * {@code ContentRetriever}, with provenance) and {@link dev.funes.langchain4j.FunesEmbeddingModel}
 * (the bundled local ONNX models as an {@code EmbeddingModel}). docs/LANGCHAIN4J.md describes the
 * mapping.
 */
package dev.funes.langchain4j;
