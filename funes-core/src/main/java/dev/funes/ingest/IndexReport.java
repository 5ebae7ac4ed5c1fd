package dev.funes.ingest;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * What one {@link Indexer#index} call did.
 *
 * @param filesSeen         files looked at
 * @param filesIndexed      files read and stored
 * @param filesUnchanged    files skipped because their checkpoint shows they did not change
 * @param filesFailed       files that could not be read or stored (they are retried next time)
 * @param filesIgnored      files no log format recognised
 * @param memoriesAdded     memories newly stored
 * @param memoriesUnchanged memories read again that were already stored
 * @param textsEmbedded     texts the store had to embed
 * @param recordsSkipped    log records that could not be used (malformed, too long, unknown type)
 * @param redactions        secrets replaced by placeholders in the memories read (text, project and
 *                          metadata) and in the problems' messages, per type (see
 *                          {@link dev.funes.redact.Redactor}); sorted by type, empty when none
 * @param problems          every problem met, in order
 * @param elapsed           wall-clock time taken
 * @param filesSkippedByRequest files not indexed because a message typed in them says {@code funes:ignore}
 * @param filesResumed      of the files indexed, those read on from their resume point rather than
 *                          from their beginning (see {@link Indexer})
 * @param bytesRead         bytes the formats read from the files indexed
 */
public record IndexReport(int filesSeen, int filesIndexed, int filesUnchanged, int filesFailed, int filesIgnored,
                          long memoriesAdded, long memoriesUnchanged, long textsEmbedded, long recordsSkipped,
                          Map<String, Long> redactions, List<IndexProblem> problems, Duration elapsed,
                          int filesSkippedByRequest, int filesResumed, long bytesRead) {

    /** Copies the redaction counts and the problems. */
    public IndexReport {
        redactions = redactions == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(redactions));
        problems = List.copyOf(problems);
        Objects.requireNonNull(elapsed, "elapsed");
    }

    /** A report with no file resumed (the shape before that count existed). */
    public IndexReport(int filesSeen, int filesIndexed, int filesUnchanged, int filesFailed, int filesIgnored,
                       long memoriesAdded, long memoriesUnchanged, long textsEmbedded, long recordsSkipped,
                       Map<String, Long> redactions, List<IndexProblem> problems, Duration elapsed,
                       int filesSkippedByRequest) {
        this(filesSeen, filesIndexed, filesUnchanged, filesFailed, filesIgnored, memoriesAdded, memoriesUnchanged,
                textsEmbedded, recordsSkipped, redactions, problems, elapsed, filesSkippedByRequest, 0, 0);
    }

    /** A report with no redaction and no file skipped by request (the shape before those counts existed). */
    public IndexReport(int filesSeen, int filesIndexed, int filesUnchanged, int filesFailed, int filesIgnored,
                       long memoriesAdded, long memoriesUnchanged, long textsEmbedded, long recordsSkipped,
                       List<IndexProblem> problems, Duration elapsed) {
        this(filesSeen, filesIndexed, filesUnchanged, filesFailed, filesIgnored, memoriesAdded, memoriesUnchanged,
                textsEmbedded, recordsSkipped, Map.of(), problems, elapsed, 0, 0, 0);
    }

    /** Secrets redacted, of all types. */
    public long secretsRedacted() {
        long n = 0;
        for (long c : redactions.values()) {
            n += c;
        }
        return n;
    }

    /**
     * One line for people, for example
     * {@code 12 files: 3 indexed, 8 unchanged, 1 failed; 140 memories added, 20 unchanged, 150 embedded; 2 records skipped; 3 problems; 1.2 s},
     * with {@code 4 secrets redacted; } before the problems when there were any, and
     * {@code 3 indexed (2 resumed, 12.5 KB read)} when files were read on from their resume point.
     */
    public String summary() {
        StringBuilder s = new StringBuilder();
        s.append(filesSeen).append(filesSeen == 1 ? " file: " : " files: ")
         .append(filesIndexed).append(" indexed");
        if (filesResumed > 0) {
            s.append(" (").append(filesResumed).append(" resumed, ")
             .append(String.format(Locale.ROOT, "%.1f KB read", bytesRead / 1024.0)).append(')');
        }
        s.append(", ")
         .append(filesUnchanged).append(" unchanged, ")
         .append(filesFailed).append(" failed");
        if (filesIgnored > 0) {
            s.append(", ").append(filesIgnored).append(" ignored");
        }
        if (filesSkippedByRequest > 0) {
            s.append(", ").append(filesSkippedByRequest).append(" skipped by request");
        }
        s.append("; ").append(memoriesAdded).append(" memories added, ")
         .append(memoriesUnchanged).append(" unchanged, ")
         .append(textsEmbedded).append(" embedded; ")
         .append(recordsSkipped).append(" records skipped; ");
        long secrets = secretsRedacted();
        if (secrets > 0) {
            s.append(secrets).append(secrets == 1 ? " secret redacted; " : " secrets redacted; ");
        }
        s.append(problems.size()).append(problems.size() == 1 ? " problem; " : " problems; ")
         .append(String.format(Locale.ROOT, "%.1f s", elapsed.toMillis() / 1000.0));
        return s.toString();
    }
}
