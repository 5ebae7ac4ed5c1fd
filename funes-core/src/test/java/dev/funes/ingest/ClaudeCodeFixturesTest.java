package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The real Claude Code logs in the shared fixtures folder (see its SOURCES.md). Skipped, with a
 * message, where that folder is absent.
 */
class ClaudeCodeFixturesTest {

    private static Path fixture(String name) {
        Path dir = Logs.shared().resolve("fixtures").resolve("claude-code");
        assumeTrue(Files.isDirectory(dir), "shared fixtures not found at " + dir.toAbsolutePath()
                + " (set -Dfunes.shared.dir); real-log tests skipped");
        return dir.resolve(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"episodic-memory-tiny.jsonl", "episodic-memory-short.jsonl", "episodic-memory-medium.jsonl",
            "episodic-memory-long.jsonl", "episodic-memory-large.jsonl"})
    void everyFileParsesCompletelyWithFocusedExactRanges(String name) throws Exception {
        Path file = fixture(name);
        Logs.Parsed parsed = Logs.parse(file);
        Logs.Lines lines = Logs.Lines.of(file);

        assertThat(AgentLogs.claudeCode().canRead(file, Files.readAllBytes(file))).isTrue();
        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.result().recordsSkipped()).isZero();
        assertThat(parsed.result().indexedBytes()).isEqualTo(Files.size(file));
        assertThat(parsed.result().indexedLines()).isEqualTo(lines.count());
        for (Memory m : parsed.memories()) {
            assertThat(m.provenance().lineCount()).as("%s", m.provenance()).isLessThanOrEqualTo(Chunker.MAX_LINES);
            assertThat(m.text().length()).as("%s", m.provenance()).isLessThanOrEqualTo(Chunker.MAX_CHARS);
            Logs.assertExactProvenance(m, lines);
        }
    }

    @Test
    void tinyHasItsTwoExchanges() {
        List<Memory> exchanges = Logs.parse(fixture("episodic-memory-tiny.jsonl")).ofKind(MemoryKind.EXCHANGE);

        assertThat(exchanges).hasSize(2);
        assertThat(exchanges.get(0).text()).startsWith("User: Lately, I've noticed you being very tentative.");
        assertThat(exchanges.get(1).text()).startsWith("User: What's the right way to fix the instructions?")
                .contains("[mcp__private-journal__process_thoughts]", "→ ok: Thoughts recorded successfully.");
        assertThat(exchanges.get(1).provenance().lineStart()).isEqualTo(3);
        assertThat(exchanges.get(1).provenance().lineEnd()).isEqualTo(7);
        assertThat(exchanges).allSatisfy(m -> {
            assertThat(m.session()).isEqualTo("67a8478e-78dc-44ab-82ea-f65c8ead85f6");
            assertThat(m.project()).isEqualTo("/Users/testuser/Documents/GitHub/projects/example-project/.worktrees/streaming");
            assertThat(m.metadata()).containsEntry("gitBranch", "feature-branch");
        });
    }

    @Test
    void mediumHasOnlyItsSummary() {
        List<Memory> memories = Logs.parse(fixture("episodic-memory-medium.jsonl")).memories();

        assertThat(memories).singleElement().satisfies(m -> {
            assertThat(m.kind()).isEqualTo(MemoryKind.SUMMARY);
            assertThat(m.text()).isEqualTo("Debugging Complex Web App Authentication and State Management");
            assertThat(m.provenance().lineStart()).isEqualTo(22);
            // No record names the session: the file name does.
            assertThat(m.session()).isEqualTo("episodic-memory-medium");
        });
    }

    @Test
    void shortIsASummaryAndOneToolDrivenExchange() {
        Logs.Parsed parsed = Logs.parse(fixture("episodic-memory-short.jsonl"));

        assertThat(parsed.memories()).extracting(Memory::kind).containsExactly(MemoryKind.SUMMARY, MemoryKind.EXCHANGE);
        Memory exchange = parsed.memories().get(1);
        assertThat(exchange.text()).startsWith("User: Summarize this part of a conversation")
                .contains("Assistant: <summary>The agent designed an Employee class");
        assertThat(exchange.text().length()).isLessThanOrEqualTo(Chunker.MAX_CHARS);
    }

    @Test
    void largeHasAFocusedExchangeAboutCiCheckingMainInsteadOfTheWorktreeBranch() {
        List<Memory> exchanges = Logs.parse(fixture("episodic-memory-large.jsonl")).ofKind(MemoryKind.EXCHANGE);

        Memory ci = exchanges.stream()
                .filter(m -> m.text().contains("the ci is running on the current commit...but seems to be checking the main branch"))
                .filter(m -> m.text().toLowerCase(Locale.ROOT).contains("worktree"))
                .findFirst().orElseThrow();
        assertThat(ci.text()).startsWith("User: ok. uh. no. the ci is running on the current commit");
        assertThat(ci.provenance().lineStart()).isEqualTo(116);
        assertThat(ci.provenance().lineCount()).isBetween(2, Chunker.MAX_LINES);
        // "main is now fixed" closes the story, in an exchange of its own.
        assertThat(exchanges).anySatisfy(m -> assertThat(m.text()).startsWith("User: ahhhh. now i've got it. main is now fixed."));
        // The file's 460 records give many focused memories, not a few huge ones.
        assertThat(exchanges.size()).isGreaterThan(20);
    }

    @Test
    void largeDropsTheLocalContextCommandAndKeepsBothSummaries() {
        Logs.Parsed parsed = Logs.parse(fixture("episodic-memory-large.jsonl"));

        assertThat(parsed.ofKind(MemoryKind.SUMMARY)).extracting(Memory::text).containsExactly(
                "Debugging Complex Web App Authentication and Performance Issues",
                "Clarifying AI Assistant's Action-Taking Guidelines");
        assertThat(parsed.memories()).noneSatisfy(m -> assertThat(m.text()).contains("/context"));
        assertThat(parsed.memories()).allSatisfy(m -> assertThat(m.session()).isEqualTo("0fae0449-64d3-4788-8622-d3a47d82c14b"));
    }

    @Test
    void longKeepsThinkingAndSplitsLongRunsIntoPartsThatCarryTheRequest() {
        List<Memory> exchanges = Logs.parse(fixture("episodic-memory-long.jsonl")).ofKind(MemoryKind.EXCHANGE);

        assertThat(exchanges).anySatisfy(m -> assertThat(m.text())
                .contains("Thinking: The user is asking about switching from Anthropic to OpenAI and using GPT-5."));
        List<Memory> continued = exchanges.stream().filter(m -> m.metadata().containsKey("requestLine")).toList();
        assertThat(continued).isNotEmpty().allSatisfy(m -> {
            assertThat(m.text()).startsWith("Request (continued): ");
            assertThat(m.metadata().get("part")).matches("[2-9]/[2-9]");
        });
        // The 343 KB PDF read and the injected document record do not bloat any memory.
        assertThat(exchanges).allSatisfy(m -> assertThat(m.text()).doesNotContain("JVBERi0"));
    }
}
