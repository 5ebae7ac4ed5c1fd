package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code funes index} links commits, {@code funes why} answers from the links, {@code funes stats} counts them. */
class WhyCommandTest {

    static final Path SAMPLE = Path.of("../examples/demo-session");

    @Test
    void indexLinksTheSampleCommitAndWhyReturnsTheExchangeThatMadeIt(@TempDir Path tmp) throws Exception {
        String store = tmp.resolve("store").toString();
        CliTest.Result index = CliTest.funes("index", "--store", store, "--index-path", SAMPLE.toString());
        assertThat(index.status()).as(index.err()).isZero();
        assertThat(index.out()).contains("linked: 0 repositories").contains("commit-output=1");

        CliTest.Result why = CliTest.funes("why", "--json", "--store", store, "4e1c9a7");
        assertThat(why.status()).as(why.err()).isZero();
        JsonNode hits = new ObjectMapper().readTree(why.out());
        assertThat(hits.isArray()).isTrue();
        JsonNode first = hits.get(0);
        assertThat(first.get("evidence").asText()).isEqualTo("commit-output");
        assertThat(first.get("commit").asText()).isEqualTo("4e1c9a7");
        assertThat(first.get("commitTitle").asText()).startsWith("Parse ledgers in two passes");
        assertThat(first.get("stale").asBoolean()).isFalse();
        assertThat(first.get("agent").asText()).isEqualTo("claude-code");
        Path source = Path.of(first.get("source").get("path").asText());
        List<String> lines = Files.readAllLines(source);
        assertThat(String.join("\n", lines.subList(first.get("source").get("lineStart").asInt() - 1,
                first.get("source").get("lineEnd").asInt()))).contains("[main 4e1c9a7]");

        CliTest.Result text = CliTest.funes("why", "--store", store, "4e1c9a7");
        assertThat(text.out()).startsWith("1. exchange  claude-code").contains("commit-output 0.95")
                .contains("commit 4e1c9a7  Parse ledgers in two passes");

        CliTest.Result stats = CliTest.funes("stats", "--store", store);
        assertThat(stats.out()).contains("links to commits, by evidence:").containsPattern("commit-output\\s+1");
    }

    @Test
    void whyWithoutAStoreFailsWithOneLine(@TempDir Path tmp) {
        CliTest.Result why = CliTest.funes("why", "--store", tmp.resolve("none").toString(), "abc1234");
        assertThat(why.status()).isEqualTo(1);
        assertThat(why.err().strip()).startsWith("funes: no Funes store at").doesNotContain("\n");
    }
}
