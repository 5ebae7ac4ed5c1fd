package dev.funes.cli;

import dev.funes.Memory;
import dev.funes.Provenance;
import dev.funes.SearchHit;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The human-readable form of search hits. */
final class HitText {

    private static final int PREVIEW_LINES = 6;
    private static final int PREVIEW_WIDTH = 160;

    private HitText() {
    }

    static void print(List<SearchHit> hits, PrintWriter out) {
        print(hits, out, 0);
    }

    /**
     * Prints the hits, the first {@code fullTexts} of them with their whole text, the rest as a
     * preview of a few lines.
     */
    static void print(List<SearchHit> hits, PrintWriter out, int fullTexts) {
        if (hits.isEmpty()) {
            out.println("no memories match");
            return;
        }
        int rank = 1;
        for (SearchHit hit : hits) {
            boolean full = rank <= fullTexts;
            Memory memory = hit.memory();
            String when = HitJson.timestamp(memory);
            out.printf(Locale.ROOT, "%d. %s  %s  %s%s%s%n", rank++, memory.kind().label(), memory.agent(),
                    when == null ? "" : when.replace('T', ' ').replaceFirst("\\.\\d+Z$", "Z"),
                    memory.session() == null ? "" : "  session " + memory.session(),
                    String.format(Locale.ROOT, "  score %.4f", hit.score()));
            // A log that changed since it was read: the lines cite the file as it was.
            String changedAt = memory.metadata().get(dev.funes.SourceState.CHANGED_KEY);
            String changed = changedAt == null ? ""
                    : "  (the file changed since: seen " + changedAt + "; these lines cite its earlier version)";
            if (hit.passage() != null && hit.passage().provenance() != null) {
                // The answer first: the passage and the lines that hold it; the memory's range after.
                out.println("   " + where(hit.passage(), memory)
                        + (memory.provenance() == null ? "" : "  (in " + memory.provenance().lineStart()
                        + "-" + memory.provenance().lineEnd() + ")") + changed);
                passage(hit.passage(), full, out);
                for (Memory more : hit.morePassages()) {
                    // Further passages of the same memory: nearly as good a match, or query words the others lack.
                    if (more.provenance() != null) {
                        out.println("   also " + where(more, memory));
                        passage(more, full, out);
                    }
                }
                out.println("   [" + hit.parts().explain() + "]");
                out.println();
                continue;
            }
            if (memory.provenance() != null) {
                out.println("   " + memory.provenance() + changed);
            }
            if (full) {
                memory.text().strip().lines().forEach(line -> out.println("   " + line));
            } else {
                preview(memory.text(), out);
            }
            out.println("   [" + hit.parts().explain() + "]");
            out.println();
        }
    }

    /**
     * Where a passage is: its lines, and its bytes when it is part of one line (a JSON Lines
     * record, a JSON log written as one line), which {@code sed -n} would print whole.
     */
    static String where(Memory passage, Memory memory) {
        Provenance p = passage.provenance();
        Provenance m = memory.provenance();
        boolean part = p.lineStart() == p.lineEnd() && m != null && p.byteStart() >= m.byteStart()
                && p.byteEnd() <= m.byteEnd() && p.byteEnd() - p.byteStart() < m.byteEnd() - m.byteStart();
        return p + (part ? " bytes " + p.byteStart() + "-" + p.byteEnd() : "");
    }

    /** A passage's header line (what was said where), then its words: all of them, or a preview. */
    private static void passage(Memory passage, boolean full, PrintWriter out) {
        String text = SearchHit.body(passage);
        String context = SearchHit.header(passage);
        if (!context.isEmpty()) {
            out.println("   \u2014 " + context);
        }
        if (full) {
            text.strip().lines().forEach(line -> out.println("   " + line));
        } else {
            preview(text, out);
        }
    }

    static void preview(String text, PrintWriter out) {
        String[] lines = text.strip().split("\n");
        int shown = 0;
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            if (shown == PREVIEW_LINES) {
                out.println("   …");
                break;
            }
            String trimmed = line.strip();
            out.println("   " + (trimmed.length() > PREVIEW_WIDTH ? trimmed.substring(0, PREVIEW_WIDTH - 1) + "…" : trimmed));
            shown++;
        }
    }
}
