/**
 * What adapters of AI frameworks (LangChain4j, Spring AI) share: a memory's fields as key/value
 * metadata ({@link dev.funes.adapter.FieldMetadata}) and the part of a metadata filter that Funes
 * applies as {@link dev.funes.SearchRequest} filters ({@link dev.funes.adapter.FilterPushdown}).
 */
package dev.funes.adapter;
