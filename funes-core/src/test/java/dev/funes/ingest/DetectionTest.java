package dev.funes.ingest;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every real log is recognised by its own format and by no other, and the files next to logs
 * that are not logs are recognised by none: the formats can be tried in any order, and the
 * generic one, tried last, never takes a file a specific one reads.
 */
class DetectionTest {

    private static final Map<String, String> FORMAT_OF_FOLDER = Map.of("claude-code", "claude-code", "codex", "codex",
            "aider", "aider", "gemini", "gemini", "cline", "cline", "openhands", "openhands", "swe-agent", "swe-agent");
    /** Files of the fixtures that are not session logs. */
    private static final Set<String> NOT_LOGS = Set.of("README.md", "SOURCES.md", "ui_messages.json", "task_metadata.json",
            "focus_chain_taskid_1769053680585.md");

    @Test
    void eachRealLogIsClaimedByItsOwnFormatOnly() throws IOException {
        Path fixtures = Logs.fixtures("");
        List<Path> files;
        try (Stream<Path> all = Files.walk(fixtures)) {
            files = all.filter(Files::isRegularFile).sorted().toList();
        }
        assertThat(files).hasSizeGreaterThan(30);
        for (Path file : files) {
            byte[] head = head(file);
            List<String> claimed = new ArrayList<>();
            for (LogFormat format : AgentLogs.formats()) {
                if (format.canRead(file, head)) {
                    claimed.add(format.name());
                }
            }
            String folder = fixtures.relativize(file).getName(0).toString();
            if (NOT_LOGS.contains(file.getFileName().toString())) {
                assertThat(claimed).as("%s", file).isEmpty();
            } else {
                assertThat(claimed).as("%s", file).containsExactly(FORMAT_OF_FOLDER.get(folder));
            }
        }
    }

    @Test
    void eachSampleIsClaimedByItsOwnFormatOnly() throws IOException {
        Map<Path, String> samples = Map.of(Logs.mainSample(), "claude-code", CodexSampleTest.sample(), "codex",
                AiderSampleTest.sample(), "aider", GeminiSampleTest.document(), "gemini", GeminiSampleTest.lines(), "gemini",
                ClineSampleTest.task(), "cline", OpenHandsTest.sample(), "openhands", SweAgentTest.oldLayout(), "swe-agent",
                SweAgentTest.functionCalling(), "swe-agent", GenericTest.sample(), "generic");
        for (Map.Entry<Path, String> sample : samples.entrySet()) {
            byte[] head = head(sample.getKey());
            assertThat(AgentLogs.formats()).filteredOn(f -> f.canRead(sample.getKey(), head)).extracting(LogFormat::name)
                    .as("%s", sample.getKey()).containsExactly(sample.getValue());
        }
    }

    private static byte[] head(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return in.readNBytes(Indexer.HEAD_BYTES);
        }
    }
}
