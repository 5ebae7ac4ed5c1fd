package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A project-written Aider history, with every memory, text and line range expected exactly. It
 * covers: a startup block whose command line spans two lines, a two-line request, a reply with a
 * SEARCH/REPLACE edit, a whole-file write and a plain code block, "Applied edit" and "Commit"
 * lines, /ask echoed as a plain message, a thinking block, an unanswered /undo, an answered
 * /add, a yes/no answer, and a second session in watch mode with a diff-fenced edit and ^C.
 */
class AiderSampleTest {

    static Path sample() {
        return Logs.resource("aider/acme-shop/.aider.chat.history.md");
    }

    private static Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.aider(), file);
    }

    @Test
    void sampleGivesTheExpectedMemoriesInOrder() {
        Logs.Parsed parsed = parse(sample());

        assertThat(parsed.memories()).extracting(m -> m.kind() + " " + m.provenance().lineStart() + "-" + m.provenance().lineEnd())
                .containsExactly("EXCHANGE 11-45", "EXCHANGE 47-55", "EXCHANGE 61-62", "EXCHANGE 71-86");
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.result().indexedLines()).isEqualTo(86);
        assertThat(parsed.memories()).allSatisfy(m -> {
            assertThat(m.agent()).isEqualTo("aider");
            assertThat(m.kind()).isEqualTo(MemoryKind.EXCHANGE);
            assertThat(m.provenance().recordIds()).isEmpty();
        });
    }

    @Test
    void anExchangeShowsEditsCompactlyWithTheirOutcomeAndTheCommit() {
        Memory m = parse(sample()).memories().get(0);

        assertThat(m.text()).isEqualTo("""
                User: The cart total ignores the discount code.
                Apply it before tax and add a test.
                Assistant: The discount is read but never subtracted. I'll apply it in `total()` before tax and add a test.
                [edit] src/cart.py: -2 +3 lines | subtotal -= self.discount(subtotal) → ok
                [write] tests/test_cart.py (4 lines) → ok
                Assistant: Run it with:
                ```bash
                pytest -q tests/test_cart.py
                ```
                [commit] 3f9a2c1 fix: Apply discount code before tax in cart total""");
        assertThat(m.project()).isEqualTo("/home/dev/acme-shop");
        assertThat(m.metadata()).isEqualTo(Map.of("agentVersion", "0.84.0", "model", "anthropic/claude-sonnet-4",
                "commits", "3f9a2c1"));
    }

    @Test
    void sessionsAreNamedAndDatedByTheirHeader() {
        List<Memory> memories = parse(sample()).memories();
        java.time.Instant start = LocalDateTime.of(2025, 6, 10, 9, 15, 0).atZone(ZoneId.systemDefault()).toInstant();

        assertThat(memories.get(0).session()).matches("aider-20250610T091500-[0-9a-f]{8}");
        assertThat(memories.get(0).startedAt()).isEqualTo(start);
        assertThat(memories.get(0).endedAt()).isEqualTo(start);
        assertThat(memories.get(2).session()).isEqualTo(memories.get(0).session());
        assertThat(memories.get(3).session()).matches("aider-20250610T140230-[0-9a-f]{8}");
        // No "Git working dir" line in the second session: the history file's folder is the project.
        assertThat(memories.get(3).project()).isEqualTo(sample().toAbsolutePath().normalize().getParent().toString());
    }

    @Test
    void anAskCommandAndItsEchoAreOneRequestWithTheReasoning() {
        assertThat(parse(sample()).memories().get(1).text()).isEqualTo("""
                User: /ask why before tax and not after?
                Thinking: The user asks about the order. Tax law: discounts reduce the taxable base.
                Assistant: A discount lowers the price the customer pays, so tax is charged on the discounted amount.""");
    }

    @Test
    void commandsAreKeptOnlyWhenAiderAnsweredThemAndYesNoAnswersAreNotRequests() {
        List<Memory> memories = parse(sample()).memories();

        assertThat(memories.get(2).text()).isEqualTo("User command: /add src/tax.py\nAdded to the chat: src/tax.py");
        assertThat(memories).noneSatisfy(m -> assertThat(m.text()).contains("/undo", "(Y)es"));
    }

    @Test
    void watchModeRequestsComeFromCodeComments() {
        assertThat(parse(sample()).memories().get(3).text()).isEqualTo("""
                User: (a request written as an AI! comment in the code)
                Assistant: Renaming the helper as the comment asks.
                [edit] src/tax.py: -1 +1 line | def tax_for(x): → ok
                (interrupted)""");
    }

    @Test
    void everyCitedRangeIsExactAndStartsAndEndsOnContent() {
        Logs.Lines lines = Logs.Lines.of(sample());
        for (Memory m : parse(sample()).memories()) {
            Logs.assertCitedLinesExist(m, lines);
            assertThat(lines.line(m.provenance().lineStart())).isNotBlank();
            assertThat(lines.line(m.provenance().lineEnd())).isNotBlank();
        }
    }

    @Test
    void readingTwiceGivesTheSameIds() {
        assertThat(parse(sample()).memories()).extracting(Memory::id)
                .isEqualTo(parse(sample()).memories().stream().map(Memory::id).toList());
    }

    @Test
    void detectsHistoriesFromTheirFirstLine() throws Exception {
        byte[] head = Files.readAllBytes(sample());

        assertThat(AgentLogs.aider().canRead(sample(), head)).isTrue();
        assertThat(AgentLogs.aider().canRead(Path.of("history-example.md"), head)).isTrue();
        assertThat(AgentLogs.aider().canRead(Path.of("notes.md"),
                "# Notes\n\n# aider chat started at 2025-06-10 09:15:00\n".getBytes(StandardCharsets.UTF_8))).isFalse();
        assertThat(AgentLogs.aider().canRead(Path.of("x.md"), new byte[0])).isFalse();
        assertThat(AgentLogs.aider().canRead(Logs.mainSample(), Files.readAllBytes(Logs.mainSample()))).isFalse();
        assertThat(AgentLogs.codex().canRead(sample(), head)).isFalse();
        assertThat(AgentLogs.claudeCode().canRead(sample(), head)).isFalse();
    }

    @Test
    void promptsWrappedByAnIdePluginKeepOnlyTheUserPart() {
        assertThat(AiderReader.unwrap("<SystemPrompt>\nBe brief.\n</SystemPrompt>\n<UserPrompt>fix the parser</UserPrompt>"))
                .isEqualTo("fix the parser");
        assertThat(AiderReader.unwrap("<SystemPrompt>Be brief.</SystemPrompt> and fix it")).isEqualTo("and fix it");
        assertThat(AiderReader.unwrap("plain request")).isEqualTo("plain request");
    }
}
