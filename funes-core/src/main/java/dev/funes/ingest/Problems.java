package dev.funes.ingest;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The problems met in one file: listed up to {@link #MAX} and then counted, plus records of
 * unknown types, which are summed up in one problem at the end rather than one per record.
 */
final class Problems {

    private static final Logger LOG = LoggerFactory.getLogger(Problems.class);

    /** Problems listed per file; more are counted in one last problem. */
    static final int MAX = 50;

    private final Path file;
    private final List<IndexProblem> listed = new ArrayList<>();
    private int suppressed;
    private final Map<String, long[]> unknownTypes = new LinkedHashMap<>();

    Problems(Path file) {
        this.file = file;
    }

    /** A problem about {@code line} (0: the whole file). */
    void add(long line, String message) {
        LOG.debug("{}:{}: {}", file, line, message);
        if (listed.size() < MAX) {
            listed.add(new IndexProblem(file, line, message));
        } else {
            suppressed++;
        }
    }

    /** A record of a type the format does not know, at {@code line}. */
    void unknownType(String type, long line) {
        long[] seen = unknownTypes.computeIfAbsent(type, t -> new long[] {0, line});
        seen[0]++;
    }

    /**
     * Every problem in file order, then {@code skipped N records of unknown type: ...} (always
     * listed, even past the cap: it is the one warning a file gets for them) and the count of
     * problems not listed.
     */
    List<IndexProblem> list() {
        List<IndexProblem> all = new ArrayList<>(listed);
        if (!unknownTypes.isEmpty()) {
            StringBuilder s = new StringBuilder();
            long count = 0;
            long first = Long.MAX_VALUE;
            for (Map.Entry<String, long[]> e : unknownTypes.entrySet()) {
                count += e.getValue()[0];
                first = Math.min(first, e.getValue()[1]);
                s.append(s.length() == 0 ? "" : ", ").append('\'').append(e.getKey()).append("' \u00d7")
                 .append(e.getValue()[0]).append(" (first at line ").append(e.getValue()[1]).append(')');
            }
            all.add(new IndexProblem(file, first, "skipped " + count + (count == 1 ? " record" : " records")
                    + " of unknown type: " + s));
        }
        if (suppressed > 0) {
            all.add(new IndexProblem(file, 0, suppressed + " more problems not listed"));
        }
        return all;
    }
}
