package dev.funes.why;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one linking pass did.
 *
 * @param repositories    the git repositories found and read (work tree paths)
 * @param commitsAdded    commits read from them that were not stored before
 * @param memoriesScanned memories read for evidence in this pass (those stored since the last pass)
 * @param linksAdded      links that were not stored before, per evidence label
 * @param linksTotal      every stored link, per evidence label
 * @param problems        repositories that could not be read, one line each; they are skipped
 */
public record LinkReport(List<String> repositories, int commitsAdded, long memoriesScanned,
                         Map<String, Long> linksAdded, Map<String, Long> linksTotal, List<String> problems) {

    /** Copies the lists and maps (maps sorted by label). */
    public LinkReport {
        repositories = List.copyOf(repositories);
        linksAdded = new TreeMap<>(linksAdded);
        linksTotal = new TreeMap<>(linksTotal);
        problems = List.copyOf(problems);
    }

    /** Number of new links. */
    public long added() {
        return linksAdded.values().stream().mapToLong(Long::longValue).sum();
    }

    /** One line: repositories, commits, new links and all links by evidence. */
    public String summary() {
        return "linked: " + repositories.size() + (repositories.size() == 1 ? " repository, " : " repositories, ")
                + commitsAdded + " new commits, " + memoriesScanned + " memories scanned; " + added()
                + " new links; links by evidence " + (linksTotal.isEmpty() ? "(none)" : linksTotal)
                + (problems.isEmpty() ? "" : "; " + problems.size() + " problems");
    }
}
