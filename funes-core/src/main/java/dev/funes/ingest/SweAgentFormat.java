package dev.funes.ingest;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * SWE-agent trajectories: {@code <instance>.traj}, one JSON document per task with the agent's
 * {@code history}, its {@code trajectory} of steps and the run's {@code info}. See
 * docs/FORMATS.md.
 */
final class SweAgentFormat implements LogFormat {

    static final SweAgentFormat INSTANCE = new SweAgentFormat();

    static final String NAME = "swe-agent";

    /** A document whose first fields are among those SWE-agent writes. */
    private static final Pattern DOCUMENT = Pattern.compile(
            "^\\{\\s*\"(?:environment|trajectory|history|info|replay_config)\"\\s*:.*", Pattern.DOTALL);
    private static final Pattern STEPS = Pattern.compile("\"(?:trajectory|history)\"\\s*:\\s*\\[");

    private SweAgentFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * A {@code .traj} (or {@code .json}) document that starts with one of SWE-agent's top-level
     * fields ({@code environment}, {@code trajectory}, {@code history}, {@code info}) and holds a
     * {@code trajectory} or {@code history} array.
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        return Heads.document(file, head, text -> DOCUMENT.matcher(text).matches() && STEPS.matcher(text).find(),
                ".traj", ".json");
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink) {
        return new SweAgentReader(file.toAbsolutePath().normalize(), sink).read();
    }

    @Override
    public String toString() {
        return NAME;
    }
}
