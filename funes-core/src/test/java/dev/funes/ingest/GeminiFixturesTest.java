package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The real Gemini CLI recordings in the shared fixtures folder (see its SOURCES.md); skipped where it is absent. */
class GeminiFixturesTest {

    private static List<Path> files() {
        try (Stream<Path> files = Files.list(Logs.fixtures("gemini"))) {
            return files.filter(f -> f.toString().endsWith(".json") || f.toString().endsWith(".jsonl")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyFileIsDetectedAndParsesCompletelyWithExactFocusedRanges() throws Exception {
        assertThat(files()).hasSize(2);
        for (Path file : files()) {
            byte[] bytes = Files.readAllBytes(file);
            byte[] head = Arrays.copyOf(bytes, Math.min(bytes.length, Indexer.HEAD_BYTES));
            Logs.Parsed parsed = Logs.parse(AgentLogs.gemini(), file);
            Logs.Lines lines = Logs.Lines.of(file);

            assertThat(AgentLogs.gemini().canRead(file, head)).as("%s", file).isTrue();
            assertThat(parsed.result().complete()).as("%s", file).isTrue();
            assertThat(parsed.result().problems()).as("%s", file).isEmpty();
            assertThat(parsed.result().indexedBytes()).as("%s", file).isEqualTo(bytes.length);
            assertThat(parsed.memories()).as("%s", file).isNotEmpty();
            for (Memory m : parsed.memories()) {
                Logs.assertCitedLinesExist(m, lines);
                assertThat(m.provenance().recordIds()).as("%s", m.provenance()).isNotEmpty();
            }
            // One request per message the person typed.
            long typed;
            try (Stream<String> all = Files.lines(file)) {
                typed = all.filter(l -> l.strip().equals("\"type\": \"user\",")).count();
            }
            assertThat(parsed.memories().stream().filter(m -> m.text().startsWith("User: "))).hasSize((int) typed);
        }
    }

    @Test
    void theCopyAndCondenseRequestShowsItsFileOperations() {
        List<Memory> memories = Logs.parse(AgentLogs.gemini(),
                Logs.fixtures("gemini").resolve("codemie-session-2025-12-01T21-45-5b959dae.json")).memories();

        Memory request = memories.stream().filter(m -> m.text().startsWith("User: Make a copy of lead_memory.txt name it as lead_gemini.txt"))
                .findFirst().orElseThrow();
        assertThat(request.provenance().lineStart()).isEqualTo(338);
        assertThat(memories).anySatisfy(m -> assertThat(m.text())
                .contains("[write_file] /Users/Jane_Smith/Documents/projects/epm-cdme/assistants/lead_gemini.txt → ok"));
        assertThat(memories).anySatisfy(m -> assertThat(m.text())
                .contains("[replace] /Users/Jane_Smith/Documents/projects/epm-cdme/assistants/lead_gemini.txt → ok"));
        assertThat(memories).allSatisfy(m -> assertThat(m.session()).isEqualTo("5b959dae-8655-4cd1-b10f-720b8c336ea2"));
    }

    @Test
    void theFileOpsSessionDelegatesToASubAgentAndEditsHelloMd() {
        List<Memory> memories = Logs.parse(AgentLogs.gemini(),
                Logs.fixtures("gemini").resolve("codemie-session-2026-01-16T11-01-file-ops-37b7abef.json")).memories();

        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("[delegate_to_agent]", "agent_name: codebase_investigator"));
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).startsWith("User: create hello.md file\n[write_file] hello.md → ok"));
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("User: remove 2 and 3 line"));
    }
}
