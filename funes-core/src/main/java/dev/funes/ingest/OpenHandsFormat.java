package dev.funes.ingest;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * OpenHands trajectories: a JSON array of events (actions and observations), as OpenHands saves
 * or exports a conversation. See docs/FORMATS.md.
 */
final class OpenHandsFormat implements LogFormat {

    static final OpenHandsFormat INSTANCE = new OpenHandsFormat();

    static final String NAME = "openhands";

    /** An array whose first object starts with the fields every OpenHands event has. */
    private static final Pattern EVENTS = Pattern.compile(
            "^\\[\\s*\\{\\s*\"id\"\\s*:\\s*\\d+\\s*,\\s*\"timestamp\"\\s*:\\s*\"[^\"]*\"\\s*,\\s*\"source\"\\s*:\\s*"
                    + "\"(?:user|agent|environment)\".*", Pattern.DOTALL);
    private static final Pattern KIND = Pattern.compile("\"(?:action|observation)\"\\s*:\\s*\"");

    private OpenHandsFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * A {@code .json} array whose first event starts {@code {"id": 0, "timestamp": "...",
     * "source": "user|agent|environment"} and has an {@code action} or {@code observation}.
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        return Heads.document(file, head, text -> EVENTS.matcher(text).matches()
                && KIND.matcher(text.substring(0, Math.min(text.length(), 1 << 14))).find(), ".json");
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink) {
        return new OpenHandsReader(file.toAbsolutePath().normalize(), sink).read();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
