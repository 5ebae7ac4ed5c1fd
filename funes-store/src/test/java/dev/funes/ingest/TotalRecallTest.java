package dev.funes.ingest;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchHit;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Words that the compact rendering of an exchange drops (a line deep in a file the agent read, the
 * code of a file it wrote, a sentence in the middle of its thinking) are found in a real Claude
 * Code log, and the hit's passage cites exactly the record holding them: {@code sed -n} on its
 * lines, and a read of its bytes, show the answer.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TotalRecallTest {

    private Path log;
    private Embedder embedder;
    private MemoryStore store;

    @BeforeAll
    void index(@TempDir Path dir) {
        log = Logs.shared().resolve("fixtures/claude-code/episodic-memory-long.jsonl").toAbsolutePath().normalize();
        assumeTrue(Files.isRegularFile(log), "skipped: real Claude Code logs not found at " + log);
        try {
            log = log.toRealPath(); // what the indexer cites
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        store = FunesStore.open(dir.resolve("store"), embedder);
        Indexer.builder(store).build().index(List.of(log));
    }

    @AfterAll
    void close() {
        if (store != null) {
            store.close();
        }
        if (embedder != null) {
            embedder.close();
        }
    }

    @Test
    void aLineDeepInAFileTheAgentReadIsFound() throws IOException {
        // The agent read a 69-line research document; the rendering says "ok (69 lines)".
        assertFoundOnlyInPassage("Which AI testing tool used evolutionary search to cut mobile crash rates?",
                "Sapienz", 12);
    }

    @Test
    void theCodeOfAFileTheAgentWroteIsFound() throws IOException {
        // [Write] src/computer-use/browser.ts -> ok: the rendering keeps none of the code.
        assertFoundOnlyInPassage("browser page mouse click at x y coordinates", "this.page.mouse.click(x, y)", 143);
    }

    @Test
    void aSentenceInTheMiddleOfLongThinkingIsFound() throws IOException {
        assertFoundOnlyInPassage("which class does the scenario agent initialize for each provider, ChatAnthropic or ChatOpenAI",
                "Initializes either ChatAnthropic or ChatOpenAI based on provider", 240);
    }

    @Test
    void filteringByExchangeStillFindsPassages() {
        List<SearchHit> hits = store.search(SearchRequest.builder("Sapienz evolutionary search crash rates")
                .kinds(MemoryKind.EXCHANGE).limit(5).build());
        assertThat(hits).isNotEmpty();
        assertThat(hits).allMatch(h -> h.memory().kind() == MemoryKind.EXCHANGE);
        assertThat(hits.get(0).passage()).isNotNull();
    }

    @Test
    void furtherPassagesOfAHitAreOtherPassagesOfItsMemoryCitingItsOwnLines() {
        int further = 0;
        for (String question : List.of("Which AI testing tool used evolutionary search to cut mobile crash rates?",
                "browser page mouse click at x y coordinates", "which model vendor and languages for the agent",
                "how does the visual oracle judge a screenshot", "what went wrong building the container image")) {
            for (SearchHit hit : store.search(SearchRequest.builder(question).limit(10).build())) {
                assertThat(hit.passages()).doesNotHaveDuplicates();
                for (Memory p : hit.morePassages()) {
                    further++;
                    assertThat(p.kind()).isEqualTo(MemoryKind.PASSAGE);
                    assertThat(p.metadata().get(Memory.PASSAGE_OF)).isEqualTo(hit.memory().id());
                    assertThat(p.provenance().source()).isEqualTo(log);
                    assertThat(p.provenance().lineStart()).isBetween(hit.memory().provenance().lineStart(),
                            hit.memory().provenance().lineEnd());
                    assertThat(hit.returnedText()).contains(p.text());
                }
                assertThat(hit.morePassages()).hasSizeLessThanOrEqualTo(2);
            }
        }
        assertThat(further).as("some hit returned a further passage").isPositive();
    }

    @Test
    void theFirstHitsAndTheirPassagesDoNotDependOnHowManyHitsAreAskedFor() {
        // Passages roll up to their exchange, which gains from its further matching passages
        // wherever they rank, and a search of 60 hits brings longer candidate lists (300 each):
        // `funes search -n 5`, `-n 20` and `-n 60` agree on the first five.
        for (String question : List.of("Which AI testing tool used evolutionary search to cut mobile crash rates?",
                "Why did we stop trying to prove the loop on the laptop itself?",
                "How does the agent inside the container reach the app served on my Mac?",
                "What kind of bug judgement did I want instead of pixel comparisons?",
                "Where is the visual oracle implemented?")) {
            List<SearchHit> five = store.search(SearchRequest.builder(question).limit(5).build());
            assertThat(five).as(question).hasSize(5);
            for (int limit : new int[] {20, 60}) {
                List<SearchHit> more = store.search(SearchRequest.builder(question).limit(limit).build());
                assertThat(five).as("%s, %d hits", question, limit).extracting(TotalRecallTest::shown)
                        .containsExactlyElementsOf(more.subList(0, 5).stream().map(TotalRecallTest::shown).toList());
            }
        }
    }

    /** A hit as a caller sees it: its memory, score and passages. */
    private static String shown(SearchHit hit) {
        StringBuilder s = new StringBuilder(hit.memory().id()).append(' ').append(hit.score());
        if (hit.passage() != null) {
            s.append(' ').append(hit.passage().id());
        }
        hit.morePassages().forEach(p -> s.append(' ').append(p.id()));
        return s.toString();
    }

    private void assertFoundOnlyInPassage(String question, String answer, int line) throws IOException {
        List<Memory> renderings = store.search(SearchRequest.builder(answer).limit(50).build()).stream()
                .map(SearchHit::memory).toList();
        assertThat(renderings).as("no memory's rendering holds the answer").noneMatch(m -> m.text().contains(answer));

        List<SearchHit> hits = store.search(SearchRequest.builder(question).limit(5).build());
        SearchHit hit = hits.stream().filter(h -> h.passage() != null && h.passageText().contains(answer))
                .findFirst().orElseThrow(() -> new AssertionError("no passage with '" + answer + "' in " + hits));
        Memory passage = hit.passage();
        assertThat(hit.memory().kind()).isEqualTo(MemoryKind.EXCHANGE);
        assertThat(hit.memory().id()).isEqualTo(passage.metadata().get(Memory.PASSAGE_OF));
        assertThat(passage.provenance().source()).isEqualTo(log);
        assertThat(passage.provenance().lineStart()).isEqualTo(line);
        assertThat(passage.provenance().lineEnd()).isEqualTo(line);
        // The exchange cites the record too: the passage narrows it.
        assertThat(hit.memory().provenance().lineStart()).isLessThanOrEqualTo(line);
        assertThat(hit.memory().provenance().lineEnd()).isGreaterThanOrEqualTo(line);

        // sed -n "${lineStart},${lineEnd}p" shows the answer (as the JSON of the record, escaped).
        String cited = Files.readAllLines(log, StandardCharsets.UTF_8).get(line - 1);
        assertThat(unescape(cited)).contains(answer);
        byte[] bytes = new byte[(int) (passage.provenance().byteEnd() - passage.provenance().byteStart())];
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            f.seek(passage.provenance().byteStart());
            f.readFully(bytes);
        }
        assertThat(unescape(new String(bytes, StandardCharsets.UTF_8))).contains(answer);
        // Inside a long JSON line, the bytes are the passage's, not the whole record's.
        long lineStart = 0;
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        for (int i = 0; i < line - 1; i++) {
            lineStart += lines.get(i).getBytes(StandardCharsets.UTF_8).length + 1;
        }
        long lineEnd = lineStart + cited.getBytes(StandardCharsets.UTF_8).length + 1;
        assertThat(passage.provenance().byteStart()).isGreaterThan(lineStart);
        assertThat(passage.provenance().byteEnd()).isLessThan(lineEnd);
    }

    /** A JSON string's escapes undone, enough to find plain words in a JSONL record. */
    private static String unescape(String json) {
        return json.replace("\\n", "\n").replace("\\\"", "\"").replace("\\t", "\t");
    }
}
