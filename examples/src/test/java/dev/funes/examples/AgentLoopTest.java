package dev.funes.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The agent loop recalls before acting and, in its second iteration, recalls the decision of its first. */
class AgentLoopTest {

    static String run(ThrowingMain main) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            main.run();
        } finally {
            System.setOut(saved);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    interface ThrowingMain {
        void run() throws Exception;
    }

    @Test
    void theSecondIterationRecallsTheDecisionRecordedByTheFirst() throws Exception {
        String out = run(() -> AgentLoop.main(new String[] {"demo-session"}));
        String first = out.substring(out.indexOf("== iteration 1"), out.indexOf("== iteration 2"));
        String second = out.substring(out.indexOf("== iteration 2"));

        // Iteration 1 recalls the session from the log, with its lines, and decides from it.
        assertThat(first).contains("recalled [").contains("sample-session.jsonl:").doesNotContain("recalled [decision]");
        assertThat(first).contains("decided: Read the ledger in two passes");
        assertThat(first).contains("recorded decision").containsPattern("evidence: /\\S+sample-session\\.jsonl:\\d+");

        // Iteration 2 recalls that decision first, and keeps it.
        String firstRecall = second.lines().filter(l -> l.startsWith("recalled ")).findFirst().orElseThrow();
        assertThat(firstRecall).startsWith("recalled [decision] Read the ledger in two passes");
        assertThat(second).contains("decided: Keep the earlier decision (Read the ledger in two passes");
        // The recorded decision cites the log lines of its evidence.
        String citedLine = second.lines().dropWhile(l -> !l.startsWith("recalled [decision]")).skip(1).findFirst()
                .orElseThrow();
        assertThat(citedLine.strip()).startsWith("from /").contains("sample-session.jsonl:");
    }

    @Test
    void readmeShowsTheAgentLoopCodeVerbatim() throws IOException {
        String readme = Files.readString(Path.of("../README.md"));
        String snippet = QuickstartTest.snippet(Path.of("src/main/java/dev/funes/examples/AgentLoop.java"));
        assertThat(readme).as("README.md must contain, verbatim, the code between the README markers:%n%s", snippet)
                .contains(snippet);
    }
}
