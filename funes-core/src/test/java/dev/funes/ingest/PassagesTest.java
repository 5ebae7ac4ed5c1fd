package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PassagesTest {

    @Test
    void shortTextIsOnePassageAndTinyTextNone() {
        assertThat(Passages.cut("Use pnpm, not npm, in this repository.")).containsExactly("Use pnpm, not npm, in this repository.");
        assertThat(Passages.cut("ok")).isEmpty();
        assertThat(Passages.cut("   \n\n  ")).isEmpty();
    }

    @Test
    void longTextIsCutAtParagraphsThenLinesAndNothingIsLost() {
        StringBuilder text = new StringBuilder();
        for (int p = 0; p < 6; p++) {
            for (int l = 0; l < 5; l++) {
                text.append("paragraph ").append(p).append(" line ").append(l).append(" says something worth keeping here\n");
            }
            text.append('\n');
        }
        List<String> passages = Passages.cut(text.toString());
        assertThat(passages).hasSizeGreaterThan(1);
        assertThat(passages).allMatch(p -> p.length() <= Passages.MAX_CHARS);
        // Cut at blank lines: no passage starts in the middle of a paragraph.
        assertThat(passages).allMatch(p -> p.startsWith("paragraph ") && p.contains(" line 0 "));
        String joined = String.join("\n", passages);
        for (int p = 0; p < 6; p++) {
            for (int l = 0; l < 5; l++) {
                assertThat(joined).contains("paragraph " + p + " line " + l + " ");
            }
        }
    }

    @Test
    void anOverlongLineIsCutAtSpacesWithinTheLimit() {
        String line = "word ".repeat(500).strip();
        List<String> passages = Passages.cut(line);
        assertThat(passages).hasSizeGreaterThan(3).allMatch(p -> p.length() <= Passages.MAX_CHARS);
        assertThat(passages).allMatch(p -> p.startsWith("word") && p.endsWith("word"));
        assertThat(String.join(" ", passages).split(" ")).hasSize(500);
    }

    @Test
    void contentPastTheCapIsNamedAsSkipped() {
        String text = "x".repeat(100) + "\n" + "line of output\n".repeat(Passages.MAX_CONTENT_CHARS / 15 + 1000);
        List<String> passages = Passages.cut(text);
        assertThat(passages.get(passages.size() - 1)).matches("\\[\\d+ more characters not indexed]");
    }

    @Test
    void aPieceIsSplitIntoHeadedPassagesCitingItsRecord() {
        Provenance record = new Provenance(Path.of("/logs/s.jsonl"), 7, 7, 100, 900, List.of("uuid-7"));
        Memory piece = Memory.builder(MemoryKind.PASSAGE, "claude-code", "first paragraph\n".repeat(30) + "\n" + "second one\n".repeat(30))
                .session("s1").project("/work").provenance(record)
                .metadata(Memory.PASSAGE_OF, "exchange-id")
                .metadata(Passages.HEADER_KEY, "Thinking \u00b7 2025-10-14")
                .metadata(Passages.CONTEXT_KEY, "why does the build fail on arm64 when the image is multi-arch and cached")
                .build();
        List<Memory> passages = Passages.split(piece);
        assertThat(passages).hasSize(2);
        for (Memory p : passages) {
            assertThat(p.kind()).isEqualTo(MemoryKind.PASSAGE);
            assertThat(p.provenance()).isEqualTo(record);
            assertThat(p.metadata()).containsEntry(Memory.PASSAGE_OF, "exchange-id")
                    .doesNotContainKeys(Passages.HEADER_KEY, Passages.CONTEXT_KEY);
            assertThat(p.text()).startsWith("Thinking \u00b7 2025-10-14 \u00b7 on: why does the build fail");
            assertThat(p.id()).isEqualTo(Memory.idOf(p.kind(), p.agent(), p.session(), p.provenance(), p.text()));
        }
        assertThat(passages.get(0).text()).contains("first paragraph").doesNotContain("second one");
        assertThat(passages.get(1).text()).contains("second one");
        assertThat(passages.get(0).id()).isNotEqualTo(passages.get(1).id());
    }
}
