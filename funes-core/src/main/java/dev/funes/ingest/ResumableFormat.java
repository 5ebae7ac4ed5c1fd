package dev.funes.ingest;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * A built-in format whose reads of an append-only log can start where an earlier read left off
 * (see {@link Resume}). Its {@link #parse(Path, Consumer)} is {@code parse(file, sink, Resume.Plan.full())}.
 */
interface ResumableFormat extends LogFormat {

    /**
     * Reads {@code file} as {@link LogFormat#parse} does, starting at {@code plan.from} when set,
     * and fills in the plan's outputs.
     *
     * @throws Resume.Mismatch when the plan's check record is not found where it was: the file
     *                         was rewritten, and must be read from its beginning
     */
    ParseResult parse(Path file, Consumer<Memory> sink, Resume.Plan plan);

    @Override
    default ParseResult parse(Path file, Consumer<Memory> sink) {
        return parse(file, sink, Resume.Plan.full());
    }
}
