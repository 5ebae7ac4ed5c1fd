/**
 * Finding secrets in text and replacing them with typed placeholders such as
 * {@code [REDACTED:github-token]}, before anything is persisted.
 *
 * <p>{@link dev.funes.redact.Redactor} holds the rules; {@link dev.funes.redact.Redactor#standard()}
 * has the built-in ones, and {@link dev.funes.redact.Redactor#builder()} adds the user's
 * ({@link dev.funes.redact.RedactionRule}, or a rules file). Each call returns a
 * {@link dev.funes.redact.Redaction}: the redacted text and how many secrets of each type it
 * held. The {@link dev.funes.ingest.Indexer} redacts every memory it reads. The rules, what they
 * miss, and the measured false positives are written down in docs/REDACTION.md.
 */
package dev.funes.redact;
