package dev.funes.ingest;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PassageBytesTest {

    @Test
    void eachPassageOfALongJsonLineCitesTheBytesThatHoldIt(@TempDir Path tmp) throws IOException {
        StringBuilder output = new StringBuilder();
        for (int i = 1; i <= 120; i++) {
            output.append("row ").append(i).append(": caf\u00e9 \"quoted\" \\ path\tand tab \u2014 value ").append(i * 7).append('\n');
        }
        String first = "{\"type\":\"user\",\"n\":1}\n";
        String line = new ObjectMapper().createObjectNode().put("type", "result").put("content", output.toString()) + "\n";
        Path log = tmp.resolve("s.jsonl");
        Files.writeString(log, first + line, StandardCharsets.UTF_8);
        long start = first.getBytes(StandardCharsets.UTF_8).length;
        long end = start + line.getBytes(StandardCharsets.UTF_8).length;
        Memory piece = Memory.builder(MemoryKind.PASSAGE, "claude-code", output.toString())
                .provenance(new Provenance(log, 2, 2, start, end, List.of()))
                .metadata(Passages.HEADER_KEY, "Result of [Bash] cat data.txt")
                .build();

        List<Memory> passages = PassageBytes.narrow(Passages.split(piece));
        assertThat(passages).hasSizeGreaterThan(3);
        for (Memory p : passages) {
            Provenance cited = p.provenance();
            assertThat(cited.lineStart()).isEqualTo(2);
            assertThat(cited.byteStart()).isGreaterThan(start);
            assertThat(cited.byteEnd()).isLessThan(end);
            String bytes = read(log, cited.byteStart(), cited.byteEnd());
            String body = p.text().substring(p.text().indexOf('\n') + 1);
            // Exactly the passage, as the log wrote it.
            assertThat(bytes).isEqualTo(Json.escape(body));
        }
        assertThat(passages.get(1).provenance().byteStart()).isGreaterThan(passages.get(0).provenance().byteEnd() - 1);
    }

    @Test
    void wordsThatRepeatAcrossPassagesDoNotMoveTheirRanges(@TempDir Path tmp) throws IOException {
        StringBuilder text = new StringBuilder();
        for (int p = 0; p < 8; p++) {
            text.append("- Model name is configurable\n");
            for (int l = 0; l < 6; l++) {
                text.append("paragraph ").append(p).append(" says this line ").append(l).append(", Model name is configurable\n");
            }
            text.append("- Model name is configurable\n\n");
        }
        String line = new ObjectMapper().createObjectNode().put("thinking", text.toString()) + "\n";
        Path log = tmp.resolve("s.jsonl");
        Files.writeString(log, line, StandardCharsets.UTF_8);
        Memory piece = Memory.builder(MemoryKind.PASSAGE, "a", text.toString())
                .provenance(new Provenance(log, 1, 1, 0, line.getBytes(StandardCharsets.UTF_8).length, List.of()))
                .metadata(Passages.HEADER_KEY, "Thinking").build();
        List<Memory> passages = PassageBytes.narrow(Passages.split(piece));
        assertThat(passages).hasSizeGreaterThan(2);
        for (Memory p : passages) {
            assertThat(read(log, p.provenance().byteStart(), p.provenance().byteEnd()))
                    .isEqualTo(Json.escape(p.text().substring(p.text().indexOf('\n') + 1)));
        }
    }

    @Test
    void aShortRecordOrAPassageNotFoundAsWrittenKeepsTheRecordsRange(@TempDir Path tmp) throws IOException {
        Path log = tmp.resolve("s.jsonl");
        String line = "{\"content\":\"" + "x".repeat(3000) + "\"}\n";
        Files.writeString(log, line, StandardCharsets.UTF_8);
        Provenance record = new Provenance(log, 1, 1, 0, line.length(), List.of());
        Memory redacted = Memory.builder(MemoryKind.PASSAGE, "a", "Header\ntoken [REDACTED:github-token] here")
                .provenance(record).build();
        assertThat(PassageBytes.narrow(List.of(redacted)).get(0).provenance()).isEqualTo(record);
        Provenance small = new Provenance(log, 1, 1, 0, 100, List.of());
        Memory shortOne = Memory.builder(MemoryKind.PASSAGE, "a", "Header\nxxxxxxxxxx").provenance(small).build();
        assertThat(PassageBytes.narrow(List.of(shortOne)).get(0).provenance()).isEqualTo(small);
    }

    @Test
    void passagesOfARecordOfSeveralLinesCiteTheLineAndBytesThatHoldThem(@TempDir Path tmp) throws IOException {
        StringBuilder output = new StringBuilder();
        for (int i = 1; i <= 40; i++) {
            output.append("line ").append(i).append(" of the \"file\" read: caf\u00e9 ").append(i * 3).append('\n');
        }
        // A pretty-printed JSON log: the message spans lines 2-8, its output is one string on line 6.
        String json = "[\n  {\n    \"type\": \"gemini\",\n    \"toolCalls\": [ {\n      \"name\": \"read_file\",\n"
                + "      \"output\": \"" + Json.escape(output.toString()) + "\"\n    } ]\n  }\n]\n";
        Path log = tmp.resolve("session.json");
        Files.writeString(log, json, StandardCharsets.UTF_8);
        long start = "[\n".length();
        long end = json.getBytes(StandardCharsets.UTF_8).length - "]\n".length();
        Memory piece = Memory.builder(MemoryKind.PASSAGE, "gemini", output.toString())
                .provenance(new Provenance(log, 2, 8, start, end, List.of()))
                .metadata(Passages.HEADER_KEY, "Result of [read_file] notes.txt")
                .build();

        List<Memory> passages = PassageBytes.narrow(Passages.split(piece));
        assertThat(passages).hasSizeGreaterThan(1);
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        for (Memory p : passages) {
            Provenance cited = p.provenance();
            // sed -n 6p shows it: the line of the output string, and exactly its bytes.
            assertThat(cited.lineStart()).isEqualTo(6);
            assertThat(cited.lineEnd()).isEqualTo(6);
            String body = p.text().substring(p.text().indexOf('\n') + 1);
            assertThat(read(log, cited.byteStart(), cited.byteEnd())).isEqualTo(Json.escape(body));
            assertThat(lines.get(5)).contains(Json.escape(body));
        }
    }

    @Test
    void aPassageWhoseFirstWordsTheRecordSaysEarlierCitesWhereItIs(@TempDir Path tmp) throws IOException {
        // A Claude Code edit: the record names the working folder before the call, and the
        // passage of the edit begins with the file's path, which begins with that folder.
        String folder = "/Users/someone/projects/example-project/.worktrees/streaming";
        String path = folder + "/app/lib/ai.server.ts";
        StringBuilder old = new StringBuilder();
        for (int i = 0; i < 80; i++) {
            old.append("  const converted").append(i).append(": Record<string, any> = {};\n");
        }
        String line = new ObjectMapper().createObjectNode().put("cwd", folder).put("sessionId", "s-1")
                .set("input", new ObjectMapper().createObjectNode().put("file_path", path)
                        .put("old_string", old.toString()).put("new_string", "x")) + "\n";
        Path log = tmp.resolve("s.jsonl");
        Files.writeString(log, line, StandardCharsets.UTF_8);
        String body = path + "\n\n" + old;
        Memory piece = Memory.builder(MemoryKind.PASSAGE, "claude-code", body)
                .provenance(new Provenance(log, 1, 1, 0, line.getBytes(StandardCharsets.UTF_8).length, List.of()))
                .metadata(Passages.HEADER_KEY, "[Edit] app/lib/ai.server.ts")
                .build();

        List<Memory> passages = PassageBytes.narrow(Passages.split(piece));
        assertThat(passages).isNotEmpty();
        Provenance cited = passages.get(0).provenance();
        String bytes = read(log, cited.byteStart(), cited.byteEnd());
        assertThat(bytes).startsWith(path + "\",\"old_string\":\"  const converted0").doesNotContain("sessionId");
        String last = passages.get(passages.size() - 1).text();
        assertThat(read(log, passages.get(passages.size() - 1).provenance().byteStart(),
                passages.get(passages.size() - 1).provenance().byteEnd()))
                .endsWith(Json.escape(last.substring(last.lastIndexOf('\n', last.length() - 2) + 1).strip()));
    }

    @Test
    void aRealGeminiReadCitesTheLineOfItsOutput() throws IOException {
        Path file = Logs.fixtures("gemini").resolve("codemie-session-2026-01-16T11-01-file-ops-37b7abef.json");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(file), "skipped: no fixture at " + file);
        InMemoryStore store = new InMemoryStore();
        dev.funes.ingest.Indexer.builder(store).build().index(List.of(file));
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Memory> found = store.all().stream()
                .filter(m -> m.kind() == MemoryKind.PASSAGE && m.text().contains("ghcr.io/gitleaks/gitleaks"))
                .toList();
        assertThat(found).isNotEmpty();
        for (Memory p : found) {
            Provenance cited = p.provenance();
            // The read_file message spans many lines; its output is one JSON string on one of them.
            assertThat(cited.lineEnd()).isEqualTo(cited.lineStart());
            assertThat(lines.get(cited.lineStart() - 1)).contains("ghcr.io/gitleaks/gitleaks");
            assertThat(read(file, cited.byteStart(), cited.byteEnd())).contains("ghcr.io/gitleaks/gitleaks");
        }
    }

    /** The bytes {@code [from, to)} of {@code file}, as UTF-8. */
    static String read(Path file, long from, long to) throws IOException {
        byte[] bytes = new byte[(int) (to - from)];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            f.seek(from);
            f.readFully(bytes);
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
