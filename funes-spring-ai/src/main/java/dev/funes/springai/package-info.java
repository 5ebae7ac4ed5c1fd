/**
 * Funes for Spring AI: {@link dev.funes.springai.FunesVectorStore} (a {@code VectorStore} whose
 * documents are Funes memories) and {@link dev.funes.springai.FunesDocumentRetriever} (Funes's
 * hybrid search as a {@code DocumentRetriever}, with provenance). The Spring Boot
 * auto-configuration is in {@link dev.funes.springai.autoconfigure}. docs/SPRING-AI.md describes
 * the mapping.
 */
package dev.funes.springai;
