package dev.funes.ingest;

import dev.funes.Memory;

import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Reads the session logs of one coding agent into memories. The plug-in interface behind the
 * {@link Indexer}.
 *
 * <p>Besides the built-in formats ({@link AgentLogs#claudeCode()}, {@link AgentLogs#codex()}, ...),
 * implementations are found with
 * {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/dev.funes.ingest.LogFormat} and give it a public no-argument
 * constructor. See {@link AgentLogs#formats(ClassLoader)}.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>Streaming.</b> {@link #parse} hands memories to its sink as soon as they are complete
 *       and keeps no more of the file in memory than it needs for the memory being built, so a
 *       file of any size can be read.</li>
 *   <li><b>No exception on bad input.</b> Whatever the file holds (malformed lines, invalid UTF-8,
 *       unexpected JSON types, a missing file), {@code parse} returns a {@link ParseResult} that
 *       lists the problems, and indexes what it could read. Only exceptions thrown by the sink
 *       itself propagate, unchanged, and end the parse.</li>
 *   <li><b>Exact provenance.</b> Every memory's {@link dev.funes.Provenance} names the file and
 *       the 1-based line range (and byte range) of exactly the records it was built from; its
 *       first and last line are records that contributed to it.</li>
 *   <li><b>Deterministic.</b> Reading the same bytes again yields the same memories, with the
 *       same ids.</li>
 *   <li><b>Threads.</b> Implementations are stateless between calls and thread-safe: several
 *       files may be parsed at once.</li>
 * </ul>
 */
public interface LogFormat {

    /** A stable, lower-case name such as {@code claude-code}; stored in each file's checkpoint. */
    String name();

    /**
     * Whether this format reads the file, judged mainly from its content.
     *
     * @param file the file, which a format may use as a hint (extension, folder layout)
     * @param head the file's first bytes (up to {@link Indexer#HEAD_BYTES}); may end in the middle
     *             of a line or character, and is empty for an empty file
     * @return true if {@link #parse} should be used for this file; never throws
     */
    boolean canRead(Path file, byte[] head);

    /**
     * Reads one file, handing each memory to {@code sink} as soon as it is complete.
     *
     * @param file absolute path of the log file
     * @param sink receives the memories, each once; may throw to stop the parse
     * @return counts, the checkpoint and the problems met; never null
     */
    ParseResult parse(Path file, Consumer<Memory> sink);
}
