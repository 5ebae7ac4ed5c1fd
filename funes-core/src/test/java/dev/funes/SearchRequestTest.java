package dev.funes;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SearchRequestTest {

    private static Memory memory(String text, String key, String value) {
        Memory.Builder b = Memory.builder(MemoryKind.EXCHANGE, "claude-code", text);
        if (key != null) {
            b.metadata(key, value);
        }
        return b.build();
    }

    private static boolean names(String text, String file) {
        return SearchRequest.builder("q").file(file).build().matches(memory(text, null, null));
    }

    @Test
    void fileFilterMatchesPathSuffixOrFileNameAtPathBoundaries() {
        assertThat(names("Edited funes-store/src/main/java/dev/funes/store/Schema.java:120", "Schema.java")).isTrue();
        assertThat(names("Edited funes-store/src/main/java/dev/funes/store/Schema.java:120", "store/Schema.java"))
                .isTrue();
        assertThat(names("see Schema.java.", "Schema.java")).isTrue();
        assertThat(names("Read(C:\\repo\\store\\Schema.java)", "store/Schema.java")).isTrue();
        assertThat(names("Edited OldSchema.java", "Schema.java")).isFalse();
        assertThat(names("Edited Schema.javascript", "Schema.java")).isFalse();
        assertThat(names("Edited other/Schema.java", "store/Schema.java")).isFalse();
        assertThat(names("nothing here", "Schema.java")).isFalse();
    }

    @Test
    void fileFilterLooksInMetadataToo() {
        SearchRequest r = SearchRequest.builder("q").file("./src/Main.kt").build();
        assertThat(r.file()).isEqualTo("src/Main.kt");
        assertThat(r.matches(memory("no path in the text", "file", "/home/u/app/src/Main.kt"))).isTrue();
        assertThat(r.matches(memory("no path in the text", "file", "/home/u/app/src/Other.kt"))).isFalse();
    }

    @Test
    void blankFileFilterIsRejected() {
        assertThatThrownBy(() -> SearchRequest.builder("q").file("  ").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("file filter");
    }

    @Test
    void retrievalDefaultsToHybrid() {
        assertThat(SearchRequest.of("q").retrieval()).isEqualTo(Retrieval.HYBRID);
        assertThat(SearchRequest.builder("q").limit(5).build().file()).isNull();
        assertThat(SearchRequest.builder("q").retrieval(Retrieval.LEXICAL).build().retrieval())
                .isEqualTo(Retrieval.LEXICAL);
        assertThat(Retrieval.fromLabel("Dense")).isEqualTo(Retrieval.DENSE);
        assertThatThrownBy(() -> Retrieval.fromLabel("sparse")).hasMessageContaining("hybrid, dense, lexical");
    }

    @Test
    void scorePartsAddUpAndExplainThem() {
        ScoreParts p = ScoreParts.of(2, 0.61, 1, 7.3, 0.45, 0.5, -0.5);
        assertThat(p.fused()).isEqualTo(0.45 + 0.5 - 0.5);
        assertThat(p.hasContributions()).isTrue();
        assertThat(p.explain()).isEqualTo("dense #2 (0.610) 0.4500 + lexical #1 (7.30) 0.5000 - rerank 0.5000 = 0.4500");
        ScoreParts unsplit = new ScoreParts(0, Double.NaN, 1, 1.0, 1.0, Double.NaN, Double.NaN, 0);
        assertThat(unsplit.hasContributions()).isFalse();
        assertThat(unsplit.explain()).isEqualTo("lexical #1 (1.00) -> 1.0000");
    }
}
