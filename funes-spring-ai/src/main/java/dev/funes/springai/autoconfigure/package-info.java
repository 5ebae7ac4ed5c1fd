/**
 * Spring Boot auto-configuration of a Funes store as Spring AI's vector store
 * ({@link dev.funes.springai.autoconfigure.FunesAutoConfiguration}), with its
 * {@code funes.store.path} and {@code funes.model} properties
 * ({@link dev.funes.springai.autoconfigure.FunesProperties}).
 */
package dev.funes.springai.autoconfigure;
