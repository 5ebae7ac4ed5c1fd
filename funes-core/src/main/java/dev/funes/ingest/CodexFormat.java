package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * OpenAI Codex CLI rollouts: {@code ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl}
 * (also Codex Desktop and the IDE extension, which write the same files). See docs/FORMATS.md.
 */
final class CodexFormat implements ResumableFormat {

    static final CodexFormat INSTANCE = new CodexFormat();

    static final String NAME = "codex";

    /** Top-level record types of a rollout; each wraps its content in {@code payload}. */
    static final Set<String> RECORD_TYPES = Set.of("session_meta", "response_item", "event_msg", "turn_context", "compacted");

    private static final Pattern LONG_FIRST_LINE = Pattern.compile(
            "^\\{.*\"type\"\\s*:\\s*\"(session_meta|response_item|event_msg|turn_context)\"\\s*,\\s*\"payload\"\\s*:\\s*\\{.*",
            Pattern.DOTALL);

    private CodexFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * True for a {@code .jsonl} file among whose first complete lines is a rollout record: a
     * known {@code type} with a {@code payload} object. When even the first line (a
     * {@code session_meta} carrying the model's instructions) is longer than the head, its
     * beginning must read {@code {"timestamp":...,"type":"session_meta","payload":{}.
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        return Heads.records(file, head, CodexFormat::isRolloutRecord, prefix -> LONG_FIRST_LINE.matcher(prefix).matches());
    }

    private static boolean isRolloutRecord(JsonNode node) {
        return RECORD_TYPES.contains(node.path("type").asText()) && node.path("payload").isObject();
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink, Resume.Plan plan) {
        return new CodexReader(file.toAbsolutePath().normalize(), sink).read(plan);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
