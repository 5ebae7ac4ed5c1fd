package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.redact.RedactedMemory;
import dev.funes.redact.Redaction;
import dev.funes.redact.Redactor;

import java.util.Map;

/**
 * Redacts a memory before it is stored: its text, its project and every metadata value.
 *
 * <p>The id is derived again from the redacted text. An id hashed from the raw text would let
 * anyone holding the store test guesses of a short secret (a password) offline: the rest of the
 * hashed input (kind, agent, session, source lines, the redacted text around the secret) is all
 * in the store. An id set explicitly by a format (not derived from the text) is kept.
 */
final class MemoryRedactor {

    private final Redactor redactor;

    MemoryRedactor(Redactor redactor) {
        this.redactor = redactor;
    }

    /** The memory with its secrets replaced; {@code counts} gains what was replaced, per type. */
    Memory redact(Memory m, Map<String, Long> counts) {
        RedactedMemory r = redactor.redact(m);
        r.counts().forEach((type, n) -> counts.merge(type, (long) n, Long::sum));
        return r.memory();
    }

    /** A problem's message with its secrets replaced (a parser error may quote the line). */
    IndexProblem redact(IndexProblem problem, Map<String, Long> counts) {
        Redaction r = redactor.redact(problem.message());
        if (!r.changed()) {
            return problem;
        }
        add(counts, r);
        return new IndexProblem(problem.file(), problem.line(), r.text());
    }

    private static void add(Map<String, Long> counts, Redaction r) {
        r.counts().forEach((type, n) -> counts.merge(type, (long) n, Long::sum));
    }
}
