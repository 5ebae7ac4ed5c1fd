package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Gemini CLI chat recordings: {@code ~/.gemini/tmp/<project>/chats/session-*.json} (one JSON
 * document, older versions) and {@code session-*.jsonl} (an append-only log of messages and
 * metadata updates). See docs/FORMATS.md.
 */
final class GeminiFormat implements LogFormat {

    static final GeminiFormat INSTANCE = new GeminiFormat();

    static final String NAME = "gemini";

    static final Set<String> MESSAGE_TYPES = Set.of("user", "gemini", "info", "error", "warning");

    /** The start of a recording document: {@code {"sessionId": ..., "projectHash": ...}. */
    private static final Pattern DOCUMENT = Pattern.compile(
            "^\\{\\s*\"sessionId\"\\s*:\\s*\"[^\"]*\"\\s*,\\s*\"projectHash\"\\s*:.*", Pattern.DOTALL);

    private GeminiFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * A {@code .json} file that starts {@code {"sessionId": "...", "projectHash": ...}, or a
     * {@code .jsonl} file among whose first lines is the session's metadata (a
     * {@code sessionId} with a {@code projectHash}) or a message record ({@code id},
     * {@code timestamp} and a Gemini message {@code type}: user, gemini, info, error, warning).
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        return Heads.document(file, head, text -> DOCUMENT.matcher(text).matches(), ".json")
                || Heads.records(file, head, GeminiFormat::isRecord, text -> DOCUMENT.matcher(text).matches());
    }

    private static boolean isRecord(JsonNode node) {
        if (node.path("sessionId").isTextual() && node.path("projectHash").isTextual()) {
            return true;
        }
        return node.path("id").isTextual() && node.path("timestamp").isTextual() && node.has("content")
                && MESSAGE_TYPES.contains(node.path("type").asText()) && !node.has("message") && !node.has("uuid");
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink) {
        Path absolute = file.toAbsolutePath().normalize();
        return Heads.named(absolute, ".jsonl")
                ? new GeminiReader.Lines(absolute, sink).read()
                : new GeminiReader.Document(absolute, sink).read();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
