package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Claude Code session logs: {@code ~/.claude/projects/<project>/<session>.jsonl} and sub-agent
 * transcripts in {@code <session>/subagents/agent-<id>.jsonl}. See docs/FORMATS.md.
 */
final class ClaudeCodeFormat implements ResumableFormat {

    static final ClaudeCodeFormat INSTANCE = new ClaudeCodeFormat();

    static final String NAME = "claude-code";

    /** Record types Claude Code writes; the parser knows what to do with each. */
    static final Set<String> RECORD_TYPES = Set.of("user", "assistant", "summary", "system",
            "file-history-snapshot", "queue-operation", "progress", "custom-title");

    private static final Pattern LONG_FIRST_LINE = Pattern.compile(
            "^\\{.*\"type\"\\s*:\\s*\"(user|assistant|system|summary)\".*", Pattern.DOTALL);

    private ClaudeCodeFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * True for a {@code .jsonl} file whose first complete records are Claude Code records: a
     * known {@code type} with a {@code sessionId} (or, for the records that carry none, a
     * {@code leafUuid} or {@code snapshot}). When even the first line is longer than the head,
     * its beginning must look like a Claude Code message.
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        return Heads.records(file, head, ClaudeCodeFormat::isClaudeCodeRecord,
                prefix -> prefix.contains("\"sessionId\"") && LONG_FIRST_LINE.matcher(prefix).matches());
    }

    private static boolean isClaudeCodeRecord(JsonNode node) {
        if (node == null || !node.isObject() || !node.path("type").isTextual()) {
            return false;
        }
        String type = node.get("type").asText();
        if (!RECORD_TYPES.contains(type)) {
            return false;
        }
        return node.path("sessionId").isTextual()
                || ("summary".equals(type) && node.has("leafUuid"))
                || ("file-history-snapshot".equals(type) && node.has("snapshot"));
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink, Resume.Plan plan) {
        return new ClaudeCodeReader(file.toAbsolutePath().normalize(), sink).read(plan);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
