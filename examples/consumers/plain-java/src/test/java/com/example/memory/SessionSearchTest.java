package com.example.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.funes.SearchHit;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionSearchTest {

    /** The sample session of the Funes repository: 16 log lines about replacing a parser. */
    static final Path SAMPLE = Path.of("../../demo-session");

    @Test
    void findsTheReasonForTheDecisionWithItsSourceLines(@TempDir Path store) {
        List<SearchHit> hits = SessionSearch.indexAndSearch(SAMPLE, store,
                "why did we move away from the streaming parser?", 3);

        assertFalse(hits.isEmpty());
        SearchHit best = hits.get(0);
        assertTrue(best.memory().text().contains("two-pass"), best.memory().text());
        // Every memory says where it came from: the log file and its lines.
        assertEquals("sample-session.jsonl", best.memory().provenance().source().getFileName().toString());
        assertTrue(best.memory().provenance().lineStart() >= 1 && best.memory().provenance().lineEnd() <= 16,
                best.memory().provenance().toString());
    }
}
