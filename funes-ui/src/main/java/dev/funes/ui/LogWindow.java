package dev.funes.ui;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Lines of a log around a cited range: a few before, the range, a few after. A very long range
 * keeps its first and last lines; a very long line is cut. Undecodable bytes become U+FFFD
 * rather than failing the page.
 *
 * @param lines    the lines read, in order
 * @param first    the number of {@code lines.get(0)}, 1-based
 * @param skipped  lines of the cited range left out in the middle (after {@code skippedAfter}), 0 for none
 * @param skippedAfter the number of the last line shown before the gap
 * @param total    whether the file ended before the cited range did
 */
record LogWindow(List<String> lines, int first, int skipped, int skippedAfter, boolean total) {

    /** Lines shown before and after the cited range. */
    static final int AROUND = 5;
    /** Lines of a cited range shown at most (half from each end). */
    static final int MAX_CITED = 200;
    /** Characters of one line shown at most. */
    static final int MAX_LINE = 20_000;

    /**
     * Reads lines {@code start - AROUND} to {@code end + AROUND} of {@code file}.
     *
     * @throws IOException if the file cannot be read (a missing file is the caller's to check first)
     */
    static LogWindow read(Path file, int start, int end) throws IOException {
        int from = Math.max(1, start - AROUND);
        int to = end + AROUND;
        int keepHead = start + MAX_CITED / 2 - 1;
        int keepTail = end - MAX_CITED / 2 + 1;
        boolean elide = end - start + 1 > MAX_CITED;
        List<String> lines = new ArrayList<>();
        int skipped = 0;
        int n = 0;
        var decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
        try (BufferedReader in = new BufferedReader(new java.io.InputStreamReader(Files.newInputStream(file), decoder))) {
            String line;
            while ((line = in.readLine()) != null) {
                n++;
                if (n < from) {
                    continue;
                }
                if (n > to) {
                    break;
                }
                if (elide && n > keepHead && n < keepTail) {
                    skipped++;
                    continue;
                }
                lines.add(line.length() > MAX_LINE ? line.substring(0, MAX_LINE) + "…" : line);
            }
        }
        return new LogWindow(lines, from, skipped, elide ? keepHead : 0, n < end);
    }

    /** The line number of {@code lines.get(i)}. */
    int number(int i) {
        int n = first + i;
        return skipped > 0 && n > skippedAfter ? n + skipped : n;
    }
}
