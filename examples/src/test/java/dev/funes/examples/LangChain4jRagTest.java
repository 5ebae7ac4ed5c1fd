package dev.funes.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The RAG example builds the augmented prompt from Funes memories, citing their lines, offline. */
class LangChain4jRagTest {

    @Test
    void theAugmentedMessageHoldsTheQuestionAndTheMemoriesWithTheirSources() throws Exception {
        Set<Path> before = QuickstartTest.temporary("funes-rag-");
        String out = AgentLoopTest.run(() -> LangChain4jRag.main(
                new String[] {"demo-session", "Why did we stop using the streaming ledger parser?"}));

        assertThat(out).startsWith("Why did we stop using the streaming ledger parser?");
        assertThat(out).contains("Answer using the following information:");
        assertThat(out).contains("two-pass");
        // DefaultContentInjector includes the chosen metadata keys with each content.
        assertThat(out).containsPattern("source: /\\S+sample-session\\.jsonl");
        assertThat(out).contains("lineStart: ").contains("lineEnd: ");
        // The listing after the prompt: one line per content, log memories with their line range.
        assertThat(out.lines().filter(l -> l.startsWith("-- ")).count()).isEqualTo(5);
        assertThat(out).containsPattern("-- (exchange|summary) /\\S+sample-session\\.jsonl:\\d+-\\d+");
        // The note added through LangChain4j's EmbeddingStore API is retrieved too.
        assertThat(out).contains("Team rule: ledger files are parsed in two passes; the streaming parser is retired.");
        assertThat(QuickstartTest.temporary("funes-rag-")).as("the example's temporary store is removed").isSubsetOf(before);
    }

    @Test
    void readmeShowsTheRagCodeVerbatim() throws IOException {
        String readme = Files.readString(Path.of("../README.md"));
        String snippet = QuickstartTest.snippet(Path.of("src/main/java/dev/funes/examples/LangChain4jRag.java"));
        assertThat(readme).as("README.md must contain, verbatim, the code between the README markers:%n%s", snippet)
                .contains(snippet);
    }
}
