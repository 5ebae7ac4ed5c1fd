package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The real Codex rollouts in the shared fixtures folder (see its SOURCES.md); skipped, with a
 * message, where that folder is absent. The localpush files have their text redacted upstream:
 * they serve for structure only.
 */
class CodexFixturesTest {

    private static List<Path> files() {
        try (Stream<Path> files = Files.list(Logs.fixtures("codex"))) {
            return files.filter(f -> f.toString().endsWith(".jsonl")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Logs.Parsed parse(String name) {
        return Logs.parse(AgentLogs.codex(), Logs.fixtures("codex").resolve(name));
    }

    private static long count(Path file, String needle) throws IOException {
        try (Stream<String> lines = Files.lines(file)) {
            return lines.filter(l -> l.contains(needle)).count();
        }
    }

    @Test
    void everyFileIsDetectedAndParsesCompletelyWithExactFocusedRanges() throws Exception {
        assertThat(files()).hasSize(10);
        for (Path file : files()) {
            byte[] bytes = Files.readAllBytes(file);
            Logs.Parsed parsed = Logs.parse(AgentLogs.codex(), file);
            Logs.Lines lines = Logs.Lines.of(file);

            assertThat(AgentLogs.codex().canRead(file, Arrays.copyOf(bytes, Math.min(bytes.length, Indexer.HEAD_BYTES))))
                    .as("%s", file).isTrue();
            assertThat(AgentLogs.claudeCode().canRead(file, Arrays.copyOf(bytes, Math.min(bytes.length, Indexer.HEAD_BYTES))))
                    .as("%s", file).isFalse();
            assertThat(parsed.result().complete()).as("%s", file).isTrue();
            assertThat(parsed.result().problems()).as("%s", file).isEmpty();
            assertThat(parsed.result().indexedBytes()).as("%s", file).isEqualTo(bytes.length);
            assertThat(parsed.memories()).as("%s", file).isNotEmpty();
            for (Memory m : parsed.memories()) {
                Logs.assertCitedLinesExist(m, lines);
                CodexSampleTest.assertContributes(m, lines.record(m.provenance().lineStart()));
                CodexSampleTest.assertContributes(m, lines.record(m.provenance().lineEnd()));
                assertThat(m.agent()).isEqualTo("codex");
            }
            // One exchange starts at each thing the person typed.
            long requests = parsed.memories().stream().filter(m -> m.text().startsWith("User: ")).count();
            assertThat(requests).as("%s", file).isEqualTo(count(file, "\"type\":\"user_message\""));
        }
    }

    @Test
    void theOlderExecRolloutIsOneExchangeWithItsShellCalls() {
        Logs.Parsed parsed = parse("codemie-exec-repo-summary-v0.77.jsonl");

        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).startsWith("User: what is current repository about? summarize purpuse and explain goals\n"
                    + "[shell] ls → ok:\n    _bmad\n").contains("[shell] rg --files -g 'AGENTS.md' → ok: docs/AGENTS.md");
            assertThat(m.provenance().lineStart()).isEqualTo(4);
            assertThat(m.session()).isEqualTo("019b7f94-51b4-7593-922e-ba12b5b73b52");
            assertThat(m.project()).isEqualTo("/Users/Nikita_Levyankov/repos/EPMCDME/codemie-ai/codemie-code");
            assertThat(m.metadata()).containsEntry("agentVersion", "0.77.0")
                    .containsEntry("gitCommit", "02942347cadda24d3080fbfbc2d13295bb3a496d")
                    .containsEntry("ghostCommit", "5392ce71154897a21148dd2e33147569343af651");
        });
    }

    @Test
    void theTuiSessionKeepsEachAgentMessageOnceAndLinksPollsToTheirCommand() {
        List<Memory> memories = parse("codemie-tui-compaction-threshold.jsonl").memories();

        assertThat(memories.get(1).text()).startsWith("User: let's update the defailt context compart to 90 in env var\n");
        assertThat(memories.get(1).provenance().lineStart()).isEqualTo(22);
        assertThat(memories.stream().filter(m -> m.text().contains("Implemented the default context compaction setting")))
                .hasSize(1);
        assertThat(memories).anySatisfy(m -> assertThat(m.text())
                .contains("[write_stdin] session 94348 (npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts -t \"Compaction Config\") → ok:"));
        assertThat(memories).anySatisfy(m -> assertThat(m.text()).contains("[apply_patch] M src/agents/plugins/codemie-code.plugin.ts"));
        assertThat(memories).allSatisfy(m -> assertThat(m.metadata()).containsEntry("gitBranch", "feat/codex-agent-plugin"));
    }

    @Test
    void theDesktopSessionKeepsTheRequestWithoutTheIdeContext() {
        List<Memory> memories = parse("codemie-desktop-demo-prep.jsonl").memories();

        assertThat(memories.get(0).text()).startsWith("User: analyze trascript and summarzie action items related to codemie"
                + " and demo preapration, specifically focus on demo, User and Vadym\n");
        assertThat(memories).noneSatisfy(m -> assertThat(m.text()).contains("# Files mentioned by the user"));
    }

    @Test
    void theChessSessionHasItsFiftyFourTurnsAndTheAbortedOne() {
        List<Memory> memories = parse("rtchess-realtime-chess.jsonl").memories();

        assertThat(memories.stream().filter(m -> m.text().startsWith("User: "))).hasSize(54);
        assertThat(memories).filteredOn(m -> m.text().startsWith("User: Use images for the pieces, and take them from li-chess"))
                .singleElement().satisfies(m -> assertThat(m.metadata()).containsKey("ghostCommit"));
        assertThat(memories).filteredOn(m -> m.text().contains("(turn aborted: interrupted)")).hasSize(1);
    }

    @Test
    void theRedactedLongSessionHasItsCompaction() {
        Logs.Parsed parsed = parse("localpush-rollout-t1254.jsonl");

        assertThat(parsed.ofKind(MemoryKind.SUMMARY)).singleElement().satisfies(s -> {
            assertThat(s.provenance().lineStart()).isEqualTo(1788);
            assertThat(s.metadata()).containsEntry("compaction", "true");
        });
        assertThat(parsed.memories().stream().filter(m -> m.text().startsWith("User: "))).hasSize(38);
    }

    @Test
    void anAbortedSessionWithACallLeftWithoutOutputStillGivesItsExchange() {
        assertThat(parse("localpush-rollout-t1319.jsonl").memories()).singleElement().satisfies(m -> {
            assertThat(m.provenance().lineStart()).isEqualTo(10);
            assertThat(m.provenance().lineEnd()).isEqualTo(18);
            assertThat(m.text()).contains("[exec_command]");
        });
    }
}
