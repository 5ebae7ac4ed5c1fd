package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Test helpers: where the sample logs are, parsing into a list, and checking provenance against the file. */
final class Logs {

    private static final ObjectMapper JSON = new ObjectMapper();

    static final String SESSION = "5f0c1a2e-7b3d-4c11-9a8e-2d6f4b9c0e17";

    private Logs() {
    }

    /** A memory list and the parse result of one file. */
    record Parsed(List<Memory> memories, ParseResult result) {
        List<Memory> ofKind(MemoryKind kind) {
            return memories.stream().filter(m -> m.kind() == kind).toList();
        }
    }

    /** The project-written sample logs, as a folder laid out like {@code ~/.claude/projects}. */
    static Path samples() {
        try {
            return Path.of(Logs.class.getResource("/claude-code").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Path mainSample() {
        return samples().resolve("-home-dev-acme").resolve(SESSION + ".jsonl");
    }

    static Path subagentSample() {
        return samples().resolve("-home-dev-acme").resolve(SESSION).resolve("subagents").resolve("agent-a1b2c3d.jsonl");
    }

    /** The shared folder of real agent logs; see COMMON.md. */
    static Path shared() {
        return Path.of(System.getProperty("funes.shared.dir", "../../shared"));
    }

    static Parsed parse(Path file) {
        return parse(AgentLogs.claudeCode(), file);
    }

    static Parsed parse(LogFormat format, Path file) {
        List<Memory> memories = new ArrayList<>();
        ParseResult result = format.parse(file, memories::add);
        return new Parsed(memories, result);
    }

    /** A test resource folder or file, as a path. */
    static Path resource(String name) {
        try {
            return Path.of(Logs.class.getResource("/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("no test resource " + name, e);
        }
    }

    /** A folder of the shared real logs; the test is skipped, visibly, when it is absent. */
    static Path fixtures(String format) {
        Path dir = shared().resolve("fixtures").resolve(format);
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(dir), "shared fixtures not found at "
                + dir.toAbsolutePath() + " (set -Dfunes.shared.dir); real-log tests skipped");
        return dir;
    }

    /**
     * Checks what holds for every format: the cited lines exist, the byte range is exactly
     * those lines, and the memory is focused (at most {@link Chunker#MAX_LINES} lines and
     * {@link Chunker#MAX_CHARS} characters).
     */
    static void assertCitedLinesExist(Memory m, Lines lines) {
        Provenance p = m.provenance();
        assertThat(p).as("provenance of %s", m.id()).isNotNull();
        assertThat(p.lineEnd()).as("%s", p).isLessThanOrEqualTo(lines.count());
        assertThat(p.byteStart()).as("byteStart of %s", p).isEqualTo(lines.offsets()[p.lineStart() - 1]);
        assertThat(p.byteEnd()).as("byteEnd of %s", p).isEqualTo(lines.offsets()[p.lineEnd()]);
        assertThat(p.lineCount()).as("%s", p).isLessThanOrEqualTo(Chunker.MAX_LINES);
        assertThat(m.text().length()).as("%s", p).isLessThanOrEqualTo(Chunker.MAX_CHARS);
    }

    /** The lines of a file with their byte offsets: {@code offsets[i]} is where line i+1 starts. */
    record Lines(byte[] bytes, long[] offsets, int count) {
        static Lines of(Path file) {
            try {
                byte[] bytes = Files.readAllBytes(file);
                long[] offsets = new long[16];
                int count = 0;
                long start = 0;
                for (int i = 0; i <= bytes.length; i++) {
                    if (i == bytes.length ? i > start : bytes[i] == '\n') {
                        if (count + 1 >= offsets.length) {
                            offsets = Arrays.copyOf(offsets, offsets.length * 2);
                        }
                        offsets[count++] = start;
                        start = i + 1;
                    }
                }
                offsets[count] = bytes.length;
                return new Lines(bytes, offsets, count);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** Line {@code n} (1-based) without its newline. */
        String line(int n) {
            int from = (int) offsets[n - 1];
            int to = (int) offsets[n];
            while (to > from && (bytes[to - 1] == '\n' || bytes[to - 1] == '\r')) {
                to--;
            }
            return new String(bytes, from, to - from, StandardCharsets.UTF_8);
        }

        JsonNode record(int n) {
            try {
                return JSON.readTree(line(n));
            } catch (IOException e) {
                return null;
            }
        }
    }

    /**
     * Checks a memory's provenance against the file itself: the byte range is exactly its lines,
     * the record ids are the uuids of the cited lines, and the first and last cited lines are
     * records that can have contributed to a memory of that kind.
     */
    static void assertExactProvenance(Memory m, Lines lines) {
        Provenance p = m.provenance();
        assertThat(p.lineEnd()).as("%s", p).isLessThanOrEqualTo(lines.count());
        assertThat(p.byteStart()).as("byteStart of %s", p).isEqualTo(lines.offsets()[p.lineStart() - 1]);
        assertThat(p.byteEnd()).as("byteEnd of %s", p).isEqualTo(lines.offsets()[p.lineEnd()]);
        List<String> uuids = new ArrayList<>();
        for (int n = p.lineStart(); n <= p.lineEnd(); n++) {
            JsonNode r = lines.record(n);
            if (r != null && r.path("uuid").isTextual()) {
                uuids.add(r.get("uuid").asText());
            }
        }
        assertThat(p.recordIds()).as("record ids of %s", p).isEqualTo(uuids);
        assertContributes(m, lines.record(p.lineStart()), p.lineStart());
        assertContributes(m, lines.record(p.lineEnd()), p.lineEnd());
    }

    private static void assertContributes(Memory m, JsonNode r, int line) {
        assertThat(r).as("line %d cited by %s is a record", line, m.provenance()).isNotNull();
        String type = r.path("type").asText();
        if (m.kind() == MemoryKind.SUMMARY) {
            assertThat(type.equals("summary") || r.path("isCompactSummary").asBoolean())
                    .as("line %d of summary %s is a summary record", line, m.provenance()).isTrue();
        } else {
            assertThat(type).as("line %d cited by %s", line, m.provenance()).isIn("user", "assistant");
            assertThat(r.path("isMeta").asBoolean()).as("line %d is an injected record", line).isFalse();
        }
    }
}
