package dev.funes.ingest;

import java.nio.file.Path;
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
 * @param memoriesReplaced  memories deleted because a read gave them anew: earlier versions of an
 *                          exchange that was still being written when its log was last read
 * @param memoriesForgotten memories deleted at their log's request ({@code funes:ignore})
 * @param earlierMemoriesKept memories of {@code changedFiles} that their file no longer gives,
 *                          kept and marked {@link dev.funes.SourceState#CHANGED_KEY}
 * @param changedFiles      files that no longer hold what was read from them (rotated, truncated or
 *                          rewritten since: new generations of the log at that path), in order
 */
public record IndexReport(int filesSeen, int filesIndexed, int filesUnchanged, int filesFailed, int filesIgnored,
                          long memoriesAdded, long memoriesUnchanged, long textsEmbedded, long recordsSkipped,
                          Map<String, Long> redactions, List<IndexProblem> problems, Duration elapsed,
                          int filesSkippedByRequest, int filesResumed, long bytesRead, long memoriesReplaced,
                          long memoriesForgotten, long earlierMemoriesKept, List<Path> changedFiles) {

    /** Files {@link #summary} names; more are counted. */
    static final int FILES_NAMED = 5;

    /** Copies the redaction counts, the problems and the changed files. */
    public IndexReport {
        redactions = redactions == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(redactions));
        problems = List.copyOf(problems);
        Objects.requireNonNull(elapsed, "elapsed");
        changedFiles = changedFiles == null ? List.of() : List.copyOf(changedFiles);
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
     * Every memory removed is told after the embedded count
     * ({@code 2 memories replaced by their newer version; }, {@code 5 memories removed by request; }),
     * and so are the changed files, named (the first {@value #FILES_NAMED}):
     * {@code 1 file changed since it was read, its 40 earlier memories kept: /logs/s.jsonl; }.
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
         .append(textsEmbedded).append(" embedded; ");
        if (!changedFiles.isEmpty()) {
            boolean one = changedFiles.size() == 1;
            s.append(changedFiles.size()).append(one ? " file changed since it was read, its " : " files changed since"
                    + " they were read, their ").append(earlierMemoriesKept)
             .append(earlierMemoriesKept == 1 ? " earlier memory kept: " : " earlier memories kept: ");
            for (int i = 0; i < Math.min(FILES_NAMED, changedFiles.size()); i++) {
                s.append(i == 0 ? "" : ", ").append(changedFiles.get(i));
            }
            if (changedFiles.size() > FILES_NAMED) {
                s.append(" and ").append(changedFiles.size() - FILES_NAMED).append(" more");
            }
            s.append("; ");
        }
        if (memoriesReplaced > 0) {
            s.append(memoriesReplaced).append(memoriesReplaced == 1 ? " memory" : " memories")
             .append(" replaced by their newer version; ");
        }
        if (memoriesForgotten > 0) {
            s.append(memoriesForgotten).append(memoriesForgotten == 1 ? " memory" : " memories")
             .append(" removed by request; ");
        }
        s.append(recordsSkipped).append(" records skipped; ");
        long secrets = secretsRedacted();
        if (secrets > 0) {
            s.append(secrets).append(secrets == 1 ? " secret redacted; " : " secrets redacted; ");
        }
        s.append(problems.size()).append(problems.size() == 1 ? " problem; " : " problems; ")
         .append(String.format(Locale.ROOT, "%.1f s", elapsed.toMillis() / 1000.0));
        return s.toString();
    }
}
