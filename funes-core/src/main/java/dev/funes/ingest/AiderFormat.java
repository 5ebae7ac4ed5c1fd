package dev.funes.ingest;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Aider's chat history: {@code .aider.chat.history.md} in the root of each project Aider ran in.
 * Aider only appends to it, so a grown history is read on from its resume point. See docs/FORMATS.md.
 */
final class AiderFormat implements ResumableFormat {

    static final AiderFormat INSTANCE = new AiderFormat();

    static final String NAME = "aider";

    /** The name Aider gives its history file. */
    static final String FILE_NAME = ".aider.chat.history.md";

    private AiderFormat() {
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * True when the first non-blank line of the file is an Aider session header,
     * {@code # aider chat started at <time>}: Aider writes one at the top of every history
     * file, whatever the file is called.
     */
    @Override
    public boolean canRead(Path file, byte[] head) {
        try {
            for (String line : Heads.text(head).split("\n", 2)) {
                return line.startsWith(AiderReader.HEADER);
            }
            return false;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink, Resume.Plan plan) {
        return new AiderReader(file.toAbsolutePath().normalize(), sink).read(plan);
    }

    @Override
    public String toString() {
        return NAME;
    }
}
