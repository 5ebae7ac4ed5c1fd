package dev.funes.ingest;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Cline and Roo Code task folders: {@code .../globalStorage/saoudrizwan.claude-dev/tasks/<task id>/}
 * (Roo Code: {@code rooveterinaryinc.roo-cline}). The memories are read from the task's
 * {@code api_conversation_history.json}; {@code ui_messages.json} gives their times and
 * {@code task_metadata.json} the model and the files edited. See docs/FORMATS.md.
 */
final class ClineFormat implements LogFormat {

    static final ClineFormat INSTANCE = new ClineFormat();

    static final String NAME = "cline";

    static final String HISTORY_FILE = "api_conversation_history.json";

    /** An array of API messages whose first is the user's task: {@code [{"role":"user","content":[{"type":"text","text":"<task>}. */
    private static final Pattern TASK_START = Pattern.compile(
            "^\\[\\s*\\{\\s*\"role\"\\s*:\\s*\"user\"\\s*,\\s*\"content\"\\s*:\\s*"
                    + "(?:\\[\\s*\\{\\s*\"type\"\\s*:\\s*\"text\"\\s*,\\s*\"text\"\\s*:\\s*)?\"\\s*<task>.*", Pattern.DOTALL);
    /** Any array of API messages, for a file with the history's name. */
    private static final Pattern MESSAGES = Pattern.compile(
            "^\\[\\s*\\{\\s*\"role\"\\s*:\\s*\"(?:user|assistant)\"\\s*,\\s*\"content\"\\s*:.*", Pattern.DOTALL);

    private ClineFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * A {@code .json} array of API messages ({@code role}, {@code content}) that starts with
     * the user's {@code <task>}, as Cline and Roo Code write it; or, in a file named
     * {@code api_conversation_history.json}, any array of API messages.
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        return Heads.document(file, head, text -> {
            if (TASK_START.matcher(text).matches()) {
                return true;
            }
            Path name = file.getFileName();
            return name != null && HISTORY_FILE.equals(name.toString()) && MESSAGES.matcher(text).matches();
        }, ".json");
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink) {
        return new ClineReader(file.toAbsolutePath().normalize(), sink).read();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
