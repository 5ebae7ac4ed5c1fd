package dev.funes.store;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * What {@link FunesStore#check} found in a store: one finding per check, in the order they ran.
 * The store is {@linkplain #healthy() healthy} when no finding is a {@link Status#PROBLEM}.
 *
 * @param store    the store directory
 * @param findings the findings, in order
 */
public record CheckReport(Path store, List<Finding> findings) {

    /** The verdict of one check. */
    public enum Status {
        /** The check passed. */
        OK,
        /** Something is off but harmless: answers are right, nothing is at risk. */
        WARNING,
        /** There was a problem in derived data and {@code --repair} rebuilt it; the check now passes. */
        REPAIRED,
        /** A problem remains: answers may be wrong or incomplete, or the store cannot be opened. */
        PROBLEM
    }

    /**
     * One check's verdict.
     *
     * @param check   a short name of what was checked: {@code database}, {@code schema},
     *                {@code integrity}, {@code foreign-keys}, {@code meta}, {@code vectors},
     *                {@code model}, {@code sessions}, {@code fts}, {@code ann}
     * @param status  the verdict
     * @param message    what was found (and, for a repair, what was done; for a problem, what to do)
     * @param repairable whether {@code --repair} fixes this problem (derived data of a sound
     *                   database); other problems need what the message says (a backup, indexing
     *                   the logs again, another model)
     */
    public record Finding(String check, Status status, String message, boolean repairable) {

        /** Validates that no component is null and that only a problem is repairable. */
        public Finding {
            Objects.requireNonNull(check, "check");
            Objects.requireNonNull(status, "status");
            Objects.requireNonNull(message, "message");
            if (repairable && status != Status.PROBLEM) {
                throw new IllegalArgumentException("only a problem is repairable: " + status + " " + check);
            }
        }

        /** A finding that {@code --repair} does not change. */
        public Finding(String check, Status status, String message) {
            this(check, status, message, false);
        }
    }

    /** Copies the findings. */
    public CheckReport {
        Objects.requireNonNull(store, "store");
        findings = List.copyOf(findings);
    }

    /** Whether no problem remains. */
    public boolean healthy() {
        return problems().isEmpty();
    }

    /** Whether some problem is one {@code --repair} fixes (so advising it helps). */
    public boolean repairable() {
        return findings.stream().anyMatch(Finding::repairable);
    }

    /** The findings with status {@link Status#PROBLEM}. */
    public List<Finding> problems() {
        return findings.stream().filter(f -> f.status() == Status.PROBLEM).toList();
    }

    /** One line, for example {@code healthy: 11 checks, 1 repaired} or {@code 2 problems (fts, ann)}. */
    public String summary() {
        long repaired = findings.stream().filter(f -> f.status() == Status.REPAIRED).count();
        long warnings = findings.stream().filter(f -> f.status() == Status.WARNING).count();
        List<Finding> problems = problems();
        StringBuilder s = new StringBuilder();
        if (problems.isEmpty()) {
            s.append("healthy: ").append(findings.size()).append(findings.size() == 1 ? " check" : " checks");
        } else {
            s.append(problems.size()).append(problems.size() == 1 ? " problem (" : " problems (");
            for (int i = 0; i < problems.size(); i++) {
                s.append(i == 0 ? "" : ", ").append(problems.get(i).check());
            }
            s.append(')');
        }
        if (repaired > 0) {
            s.append(", ").append(repaired).append(" repaired");
        }
        if (warnings > 0) {
            s.append(", ").append(warnings).append(warnings == 1 ? " warning" : " warnings");
        }
        return s.toString();
    }
}
