package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The classifier over real logs (../shared/fixtures): decisions and lookups a person found there
 * by reading, with their exact records. Skipped, with a message, where the folder is absent.
 */
class ClassifierFixturesTest {

    private static List<Memory> derived(LogFormat format, Path file) {
        List<Memory> derived = new ArrayList<>();
        Classifier classifier = new Classifier();
        for (Memory m : Logs.parse(format, file).memories()) {
            derived.addAll(classifier.classify(m));
        }
        return derived;
    }

    private static Memory find(List<Memory> derived, MemoryKind kind, String text) {
        List<Memory> found = derived.stream().filter(m -> m.kind() == kind && m.text().contains(text)).toList();
        assertThat(found).as("%s containing '%s'", kind, text).hasSize(1);
        return found.get(0);
    }

    @Test
    void claudeCodeDecisionsAndLookupsCiteTheirRecords() throws Exception {
        Path file = Logs.fixtures("claude-code").resolve("episodic-memory-long.jsonl");
        List<Memory> derived = derived(AgentLogs.claudeCode(), file);
        Logs.Lines lines = Logs.Lines.of(file);
        for (Memory m : derived) {
            Logs.assertCitedLinesExist(m, lines);
            assertThat(m.metadata()).containsKeys("derivedFrom", "rule", "files");
        }

        // The user moves the project from Docker to Apple's container tool.
        Memory container = find(derived, MemoryKind.DECISION, "let's use apple container instead of docker proper.");
        assertThat(container.provenance().lineStart()).isEqualTo(151);
        assertThat(container.provenance().lineEnd()).isEqualTo(151);
        assertThat(container.provenance().recordIds()).containsExactly("d7b6b125-81d6-4080-b09d-cf1a11142bce");
        assertThat(container.metadata()).containsEntry("speaker", "user").containsEntry("rule", "decision:instead-of");
        assertThat(container.session()).isNotNull();

        // The agent's fix for a failing container build, with its reason.
        Memory npm = find(derived, MemoryKind.DECISION, "Changed to use `npm install` instead");
        assertThat(npm.provenance().lineStart()).isEqualTo(285);

        // A web page read while choosing a computer-use server.
        Memory fetch = find(derived, MemoryKind.LOOKUP, "[WebFetch] https://github.com/CursorTouch/Windows-MCP");
        assertThat(fetch.provenance().lineStart()).isEqualTo(43);
        assertThat(fetch.provenance().recordIds()).startsWith("c6c568c0-bd36-4ab8-bc05-6086f990afa4");
        assertThat(fetch.metadata()).containsEntry("files", "[\"https://github.com/CursorTouch/Windows-MCP\"]");

        // Reading the project's research notes, and what the agent made of them.
        Memory report = find(derived, MemoryKind.LOOKUP, "[Read] research/scenario-testing-report.md");
        assertThat(report.provenance().lineStart()).isEqualTo(10);
        assertThat(report.text()).contains("Concluded: Based on the research report");

        // A question about switching providers is not a decision.
        assertThat(derived).noneMatch(m -> m.provenance().lineStart() == 239);
    }

    @Test
    void codexDecisionsCiteBothLoggingsOfTheMessage() throws Exception {
        Path file = Logs.fixtures("codex").resolve("rtchess-realtime-chess.jsonl");
        List<Memory> derived = derived(AgentLogs.codex(), file);
        Logs.Lines lines = Logs.Lines.of(file);
        for (Memory m : derived) {
            Logs.assertCitedLinesExist(m, lines);
        }
        // Codex logs an answer as an event and as a response item; the citation covers both.
        Memory http = find(derived, MemoryKind.DECISION, "Serve the folder over HTTP instead of opening the file directly.");
        assertThat(http.provenance().lineStart()).isEqualTo(376);
        assertThat(http.provenance().lineEnd()).isEqualTo(378);
        Memory clockwise = find(derived, MemoryKind.DECISION, "clockwise instead of counter-clockwise");
        assertThat(clockwise.metadata()).containsEntry("speaker", "user");
        assertThat(clockwise.provenance().lineStart()).isEqualTo(1333);
    }
}
