package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.SearchHit;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** The real Aider histories in the shared fixtures folder (see its SOURCES.md); skipped where it is absent. */
class AiderFixturesTest {

    private static List<Path> files() {
        try (Stream<Path> files = Files.list(Logs.fixtures("aider"))) {
            return files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Logs.Parsed parse(String name) {
        return Logs.parse(AgentLogs.aider(), Logs.fixtures("aider").resolve(name));
    }

    @Test
    void everyFileIsDetectedAndParsesCompletelyWithExactFocusedRanges() throws Exception {
        assertThat(files()).hasSize(7);
        for (Path file : files()) {
            byte[] bytes = Files.readAllBytes(file);
            byte[] head = Arrays.copyOf(bytes, Math.min(bytes.length, Indexer.HEAD_BYTES));
            Logs.Parsed parsed = Logs.parse(AgentLogs.aider(), file);
            Logs.Lines lines = Logs.Lines.of(file);

            assertThat(AgentLogs.aider().canRead(file, head)).as("%s", file).isTrue();
            assertThat(AgentLogs.claudeCode().canRead(file, head) || AgentLogs.codex().canRead(file, head)).isFalse();
            assertThat(parsed.result().complete()).as("%s", file).isTrue();
            assertThat(parsed.result().problems()).as("%s", file).isEmpty();
            assertThat(parsed.result().indexedBytes()).as("%s", file).isEqualTo(bytes.length);
            assertThat(parsed.memories()).as("%s", file).isNotEmpty();
            for (Memory m : parsed.memories()) {
                Logs.assertCitedLinesExist(m, lines);
                assertThat(lines.line(m.provenance().lineStart())).as("%s", m.provenance()).isNotBlank();
                assertThat(lines.line(m.provenance().lineEnd())).as("%s", m.provenance()).isNotBlank();
            }
            // Every commit Aider made is remembered.
            long commits;
            try (Stream<String> all = Files.lines(file)) {
                commits = all.filter(l -> l.startsWith("> Commit ")).count();
            }
            assertThat(parsed.memories().stream().mapToLong(m -> m.text().lines().filter(l -> l.startsWith("[commit] ")).count())
                    .sum()).as("%s", file).isEqualTo(commits);
        }
    }

    @Test
    void theIdePluginSessionKeepsTheRequestTheEditAndItsCommit() {
        List<Memory> memories = parse("coding-aider-history-example2.md").memories();

        assertThat(memories.get(0).text()).startsWith("User: fix the LastCommand parsing issues in AiderHistoryService\n");
        assertThat(memories.get(0).provenance().lineStart()).isEqualTo(27);
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains(
                "[edit] src\\main\\kotlin\\de\\andrena\\codingaider\\services\\AiderHistoryService.kt: -18 +62 lines"));
        assertThat(memories).last().satisfies(m -> assertThat(m.text())
                .endsWith("[commit] ab1a4a5 refactor: Improve XML prompt parsing and output cleaning in AiderHistoryService"));
        assertThat(memories).allSatisfy(m -> assertThat(m.metadata()).containsEntry("commits", "ab1a4a5")
                .containsEntry("agentVersion", "0.75.1"));
    }

    @Test
    void architectModeDoesNotTurnThePlanHandedToTheEditorIntoARequest() {
        List<Memory> memories = parse("pocketflow-text2sql-gui.aider.chat.history.md").memories();

        assertThat(memories).noneSatisfy(m -> assertThat(m.text()).startsWith("User: Changes to implement a FastAPI web service"));
        assertThat(memories.get(0).text()).startsWith("User: Create a plan for how to make this command line app into a webservice using FastAPI.");
        assertThat(memories.get(0).project()).isEqualTo("C:\\temp\\pocketflow-text2sql");
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("[write] backend/app.py (46 lines)"));
    }

    @Test
    void aSessionOfOnlyCommandsAndInterruptsStillGivesItsCommands() {
        List<Memory> memories = parse("zen-mcp-server.aider.chat.history.md").memories();

        assertThat(memories.get(0).text()).isEqualTo("User command: /add **\n(interrupted)");
        assertThat(memories).allSatisfy(m -> assertThat(m.text()).startsWith("User command: /"));
    }

    @Test
    void reasoningBlocksOfLocalModelsAreThinking() {
        List<Memory> memories = parse("mozgoslav.aider.chat.history.md").memories();

        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("User: Про что проект мозгослав и на каком этапе сейчас RAG?"));
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("Thinking: Here's a thinking process:"));
        assertThat(memories).noneSatisfy(m -> assertThat(m.text()).contains("<thinking-content-"));
    }

    @Test
    void aLongInputIsKeptWholeAndTheRulesDeepInItAreConventionsCitedToTheirLine() throws IOException {
        Path file = Logs.fixtures("aider").resolve("mozgoslav.aider.chat.history.md");
        List<String> lines = Files.readAllLines(file);
        int rule = lines.indexOf("#### Do NOT git clone. External code \u2014 only via sourcebot.  ") + 1;
        assertThat(rule).as("the fixture's line").isEqualTo(3986);

        // A long input is cited in slices of lines; each slice is kept whole for the passages.
        List<Memory> pieces = new ArrayList<>();
        AgentLogs.aider().parse(file, (PassageSink) m -> {
            if (m.kind() == MemoryKind.PASSAGE) {
                pieces.add(m);
            }
        });
        assertThat(pieces).filteredOn(p -> p.text().contains("Do NOT git clone.")).singleElement().satisfies(p -> {
            assertThat(p.metadata().get(Passages.HEADER_KEY)).startsWith("User \u00b7 ");
            assertThat(p.provenance().lineStart()).isLessThanOrEqualTo(rule);
            assertThat(p.provenance().lineEnd()).isGreaterThanOrEqualTo(rule);
        });
        // The classifier reads it whole: a convention citing the lines of its sentence (a heading
        // without a full stop, two blank lines above it, reads as the sentence's start).
        List<Memory> derived = new Classifier().classify(AgentLogs.aider(), file);
        assertThat(derived).filteredOn(m -> m.text().contains("Do NOT git clone.")).singleElement().satisfies(c -> {
            assertThat(c.kind()).isEqualTo(MemoryKind.CONVENTION);
            assertThat(c.metadata()).containsEntry("speaker", "user");
            assertThat(c.text()).isEqualTo("Convention (user): HARD CONSTRAINTS Do NOT git clone.");
            assertThat(c.provenance().lineStart()).isEqualTo(lines.indexOf("#### HARD CONSTRAINTS  ") + 1);
            assertThat(c.provenance().lineEnd()).isEqualTo(rule);
        });
        // Each statement once per exchange, though its exchange and its piece both hold it.
        assertThat(derived).extracting(m -> m.kind() + " " + m.provenance().lineStart() + " " + m.text())
                .doesNotHaveDuplicates();
    }

    @Test
    void aWholeFileWrittenIsHeldWholeAndEachPassageCitesTheLinesThatHoldIt() throws IOException {
        Path file = Logs.fixtures("aider").resolve("doc-processor.aider.chat.history.md");
        List<String> lines = Files.readAllLines(file);
        // A reply writes doc_processor.py (344 lines) in a fence opened on line 1921.
        int first = 1922;
        int last = first + lines.subList(first, lines.size()).indexOf("        return graph_builder.compile()") + 1;
        assertThat(lines.get(first - 1)).startsWith("from typing import List, Tuple, Dict, Optional, TypedDict, Any");
        assertThat(last).as("the fixture's line").isEqualTo(2265);

        InMemoryStore store = new InMemoryStore();
        Indexer.builder(store).build().index(List.of(file));
        List<Memory> written = store.all().stream()
                .filter(m -> m.kind() == MemoryKind.PASSAGE && m.text().startsWith("[write] doc_processor.py (344 lines)"))
                .toList();
        // Its first lines too (read ahead to tell a written file from an edit).
        assertThat(written).anySatisfy(p -> assertThat(p.text()).contains(lines.get(first - 1).strip()));
        // Each passage cites the lines that hold it, however deep in the file: sed -n shows it.
        for (String deep : List.of(lines.get(first - 1).strip(), "return graph_builder.compile()")) {
            assertThat(written).filteredOn(p -> p.text().contains(deep)).isNotEmpty().allSatisfy(p -> {
                String cited = String.join("\n", lines.subList(p.provenance().lineStart() - 1, p.provenance().lineEnd()));
                assertThat(cited).contains(deep);
                assertThat(p.provenance().lineEnd() - p.provenance().lineStart()).isLessThan(20);
            });
        }
    }

    @Test
    void everyPassageOfAWrittenOrEditedFileCitesAboutAsManyLinesAsItHolds() throws IOException {
        try (var files = Files.list(Logs.fixtures("aider"))) {
            List<Path> histories = files.filter(f -> f.toString().endsWith(".md")).sorted().toList();
            assertThat(histories).hasSizeGreaterThan(5);
            int checked = 0;
            for (Path file : histories) {
                List<String> lines = Files.readAllLines(file);
                InMemoryStore store = new InMemoryStore();
                Indexer.builder(store).build().index(List.of(file));
                for (Memory p : store.all()) {
                    if (p.kind() != MemoryKind.PASSAGE || !(p.text().startsWith("[write] ") || p.text().startsWith("[edit] "))) {
                        continue;
                    }
                    checked++;
                    List<String> own = SearchHit.body(p).lines().map(String::strip).toList();
                    String longest = own.stream().max(java.util.Comparator.comparingInt(String::length)).orElseThrow();
                    String cited = String.join("\n", lines.subList(p.provenance().lineStart() - 1, p.provenance().lineEnd()));
                    // Found as written, not as a JSON string (whose length, with every line break
                    // written as two characters, sent the end of a passage far past its last line).
                    assertThat(p.provenance().lineCount()).as("%s:%s %s", file.getFileName(), p.provenance(), longest)
                            .isLessThanOrEqualTo(own.size() + 5);
                    assertThat(cited).as("%s:%s", file.getFileName(), p.provenance()).contains(longest);
                }
            }
            assertThat(checked).isGreaterThan(500);
        }
    }

    @Test
    void aidersOwnOutputIsHeldWholeInPassagesThatShareTheExchangesVector() throws IOException {
        Path file = Logs.fixtures("aider").resolve("pocketflow-text2sql-gui.aider.chat.history.md");
        List<String> lines = Files.readAllLines(file);
        // The provider's reason sits past the 140th character of a rate-limit error Aider printed:
        // the exchange shows the line cut ("Provider returned…"), its passage holds it whole.
        String reason = "openrouter/horizon-beta is temporarily rate-limited upstream";
        List<Memory> memories = new ArrayList<>();
        List<Memory> pieces = new ArrayList<>();
        AgentLogs.aider().parse(file, new PassageSink() {
            @Override
            public void accept(Memory m) {
                (m.kind() == MemoryKind.PASSAGE ? pieces : memories).add(m);
            }
        });
        assertThat(memories).isNotEmpty().noneMatch(m -> m.text().contains(reason));
        assertThat(memories).anyMatch(m -> m.text().contains("Provider returned\u2026"));
        assertThat(pieces).filteredOn(p -> p.text().contains(reason)).isNotEmpty().allSatisfy(p -> {
            assertThat(p.metadata().get(Passages.HEADER_KEY)).startsWith("Output");
            assertThat(p.metadata()).containsEntry(Passages.OUTPUT_KEY, "true");
            // sed -n on its lines shows the reason.
            String cited = String.join("\n", lines.subList(p.provenance().lineStart() - 1, p.provenance().lineEnd()));
            assertThat(cited).contains(reason);
        });
        // No passage of any Aider history holds a rendering: no head and tail, no cut lines.
        for (Path each : files()) {
            List<Memory> held = new ArrayList<>();
            AgentLogs.aider().parse(each, (PassageSink) m -> {
                if (m.kind() == MemoryKind.PASSAGE) {
                    held.add(m);
                }
            });
            assertThat(held).as("%s", each).noneMatch(p -> p.text().matches("(?s).*\u2026 \\(\\d+ more lines\\) \u2026.*"))
                    .noneMatch(p -> p.text().contains("\u2026\n"));
        }
    }
}
