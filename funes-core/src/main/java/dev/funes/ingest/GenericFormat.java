package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A generic JSON Lines chat log: one OpenAI-style message per line ({@code {"role": "user",
 * "content": "..."}}, with {@code tool_calls} and {@code tool} results), for agents Funes has no
 * parser for yet. Tried last, after every specific format. See docs/FORMATS.md.
 */
final class GenericFormat implements ResumableFormat {

    static final GenericFormat INSTANCE = new GenericFormat();

    static final String NAME = "generic";

    static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool", "function");

    private GenericFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * A {@code .jsonl} file among whose first complete lines is a chat message: an object with a
     * {@code role} (system, developer, user, assistant, tool, function) and a {@code content}
     * (text, parts or null) or {@code tool_calls}, and which none of the first lines marks as
     * another agent's log (Claude Code's {@code sessionId}/{@code uuid}, Codex's
     * {@code payload}, Gemini CLI's {@code $set}).
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        return Heads.safely(() -> {
            if (!Heads.named(file, ".jsonl") || head.length == 0) {
                return false;
            }
            boolean[] foreign = new boolean[1];
            Heads.Verdict messages = Heads.jsonLines(head, node -> {
                foreign[0] |= node.has("payload") || node.has("uuid") || node.has("$set") || node.has("$rewindTo")
                        || node.has("sessionId") && node.has("type");
                return false;
            });
            return messages != Heads.Verdict.UNKNOWN && !foreign[0]
                    && Heads.jsonLines(head, GenericFormat::isMessage) == Heads.Verdict.YES;
        });
    }

    static boolean isMessage(JsonNode node) {
        JsonNode content = node.get("content");
        return ROLES.contains(node.path("role").asText())
                && (content != null && (content.isTextual() || content.isArray() || content.isNull()) || node.has("tool_calls"));
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink, Resume.Plan plan) {
        return new GenericReader(file.toAbsolutePath().normalize(), sink).read(plan);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
