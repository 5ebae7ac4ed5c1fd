package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import dev.funes.Memory;
import dev.funes.redact.RedactedMemory;
import dev.funes.redact.Redaction;
import dev.funes.redact.Redactor;

import java.util.Iterator;
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

    /**
     * A resume point with every string of its context redacted: the context a reader keeps
     * (its working directory, the last message it saw, running commands) is stored in the
     * checkpoint. A reader that resumes from it sees the redacted strings, as the memories do.
     */
    Resume.Point redact(Resume.Point point) {
        JsonNode context = redactStrings(point.context());
        return context == point.context() ? point : new Resume.Point(point.offset(), point.line(), (ObjectNode) context);
    }

    /** The node, or a copy with its strings (keys and values, at any depth) redacted if any held a secret. */
    private JsonNode redactStrings(JsonNode node) {
        if (node.isTextual()) {
            Redaction r = redactor.redact(node.asText());
            return r.changed() ? TextNode.valueOf(r.text()) : node;
        }
        if (node.isObject()) {
            ObjectNode copy = null;
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                String key = redactor.redact(e.getKey()).text();
                JsonNode value = redactStrings(e.getValue());
                if (copy == null && (value != e.getValue() || !key.equals(e.getKey()))) {
                    copy = JsonNodeFactory.instance.objectNode();
                    for (Iterator<Map.Entry<String, JsonNode>> before = node.fields(); before.hasNext(); ) {
                        Map.Entry<String, JsonNode> b = before.next();
                        if (b.getKey().equals(e.getKey())) {
                            break;
                        }
                        copy.set(b.getKey(), b.getValue());
                    }
                }
                if (copy != null) {
                    copy.set(key, value);
                }
            }
            return copy != null ? copy : node;
        }
        if (node.isArray()) {
            ArrayNode copy = null;
            for (int i = 0; i < node.size(); i++) {
                JsonNode value = redactStrings(node.get(i));
                if (copy == null && value != node.get(i)) {
                    copy = JsonNodeFactory.instance.arrayNode();
                    for (int j = 0; j < i; j++) {
                        copy.add(node.get(j));
                    }
                }
                if (copy != null) {
                    copy.add(value);
                }
            }
            return copy != null ? copy : node;
        }
        return node;
    }

    private static void add(Map<String, Long> counts, Redaction r) {
        r.counts().forEach((type, n) -> counts.merge(type, (long) n, Long::sum));
    }
}
