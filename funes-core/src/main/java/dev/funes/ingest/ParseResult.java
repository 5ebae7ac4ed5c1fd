package dev.funes.ingest;

import java.util.List;

/**
 * What reading one log file produced besides its memories: counts, the checkpoint to store, and
 * the problems met.
 *
 * @param records        non-blank lines read, whether they could be used or not
 * @param recordsSkipped lines that could not be used: malformed, too long, of an unknown type, or
 *                       with fields of the wrong JSON type
 * @param indexedBytes   offset just past the last complete record read; a last line still being
 *                       written (no newline and not a complete record) lies beyond it
 * @param indexedLines   lines up to the same point
 * @param complete       whether the file was read to its end; false when it was missing, could not
 *                       be opened or a read failed, in which case no checkpoint may be stored
 * @param problems       what was wrong, in file order (a format may cap how many it lists)
 */
public record ParseResult(long records, long recordsSkipped, long indexedBytes, long indexedLines,
                          boolean complete, List<IndexProblem> problems) {

    /** Validates the counts and copies the problems. */
    public ParseResult {
        if (records < 0 || recordsSkipped < 0 || indexedBytes < 0 || indexedLines < 0) {
            throw new IllegalArgumentException("negative count in parse result");
        }
        problems = problems == null ? List.of() : List.copyOf(problems);
    }

    /** The result for a file that could not be read at all. */
    public static ParseResult failed(IndexProblem problem) {
        return new ParseResult(0, 0, 0, 0, false, List.of(problem));
    }
}
