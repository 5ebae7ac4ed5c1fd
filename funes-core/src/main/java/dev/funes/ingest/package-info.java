/**
 * Reading coding-agent session logs into memories.
 *
 * <p>{@link dev.funes.ingest.Indexer} walks log files and folders (by default
 * {@link dev.funes.ingest.AgentLogs#defaultRoots()}), picks each file's
 * {@link dev.funes.ingest.LogFormat}, and stores the memories it reads in a
 * {@link dev.funes.MemoryStore} together with the file's checkpoint, so unchanged files are
 * skipped next time. Bad input never throws: it becomes {@link dev.funes.ingest.IndexProblem}s
 * in the {@link dev.funes.ingest.IndexReport}. Formats are plug-ins
 * ({@link java.util.ServiceLoader}); built in are Claude Code, OpenAI Codex CLI, Aider, Gemini
 * CLI, Cline (and Roo Code), OpenHands, SWE-agent, and a generic JSONL of chat messages (see
 * {@link dev.funes.ingest.AgentLogs}). What each record of each format becomes is written down
 * in docs/FORMATS.md.
 */
package dev.funes.ingest;
