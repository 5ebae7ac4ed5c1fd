package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.funes.Memory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Claude Code session logs: {@code ~/.claude/projects/<project>/<session>.jsonl} and sub-agent
 * transcripts in {@code <session>/subagents/agent-<id>.jsonl}. See docs/FORMATS.md.
 */
final class ClaudeCodeFormat implements LogFormat {

    static final ClaudeCodeFormat INSTANCE = new ClaudeCodeFormat();

    static final String NAME = "claude-code";

    /** Record types Claude Code writes; the parser knows what to do with each. */
    static final Set<String> RECORD_TYPES = Set.of("user", "assistant", "summary", "system",
            "file-history-snapshot", "queue-operation", "progress", "custom-title");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int DETECT_LINES = 20;
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
        try {
            Path name = file.getFileName();
            if (name == null || !name.toString().endsWith(".jsonl") || head.length == 0) {
                return false;
            }
            int from = head.length >= 3 && (head[0] & 0xFF) == 0xEF && (head[1] & 0xFF) == 0xBB
                    && (head[2] & 0xFF) == 0xBF ? 3 : 0;
            int lines = 0;
            boolean sawComplete = false;
            for (int i = from; i < head.length && lines < DETECT_LINES; i++) {
                if (head[i] != '\n') {
                    continue;
                }
                String line = new String(head, from, i - from, StandardCharsets.UTF_8).strip();
                from = i + 1;
                if (line.isEmpty()) {
                    continue;
                }
                lines++;
                sawComplete = true;
                if (isClaudeCodeRecord(line)) {
                    return true;
                }
            }
            if (!sawComplete) {
                String prefix = new String(head, from, head.length - from, StandardCharsets.UTF_8);
                return prefix.contains("\"sessionId\"") && LONG_FIRST_LINE.matcher(prefix).matches();
            }
            return false;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static boolean isClaudeCodeRecord(String line) {
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (Exception e) {
            return false;
        }
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
    public ParseResult parse(Path file, Consumer<Memory> sink) {
        return new ClaudeCodeReader(file.toAbsolutePath().normalize(), sink).read();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
