package dev.funes.bench.eval;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import org.junit.jupiter.api.Test;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The LoCoMo reader and the turn-to-memory mapping, on a small file written for these tests. */
class LocomoTest {

    static Path resource(String name) throws URISyntaxException {
        return Path.of(LocomoTest.class.getResource("/eval/" + name).toURI());
    }

    @Test
    void readsConversationsTurnsAndQuestions() throws Exception {
        List<Locomo.Conversation> all = Locomo.read(resource("locomo-sample.json"));
        assertThat(all).extracting(Locomo.Conversation::sampleId).containsExactly("conv-test-1", "conv-test-2");
        Locomo.Conversation c = all.get(0);
        assertThat(c.turns()).extracting(Locomo.Turn::diaId).containsExactly("D1:1", "D1:2", "D1:3", "D2:1", "D2:2");
        assertThat(c.turns().get(3).session()).isEqualTo(2);
        assertThat(c.turns().get(1).blipCaption()).isEqualTo("a photo of a ridge trail above a lake");
        assertThat(c.turns().get(0).blipCaption()).isNull();
        assertThat(c.sessionDates()).containsEntry(1, "9:05 am on 3 June, 2023").containsEntry(2, "6:40 pm on 12 July, 2023");
        assertThat(c.questions()).extracting(Locomo.Question::category).containsExactly(1, 2, 3, 5);
        assertThat(c.questions().get(3).evidence()).containsExactly("D:2:02", "D9:9", "D");
        assertThat(c.questions().get(2).evidence()).isEmpty();
    }

    @Test
    void everyTurnCitesExactlyTheLinesAndBytesOfItsJsonObject() throws Exception {
        Path file = resource("locomo-sample.json");
        byte[] bytes = Files.readAllBytes(file);
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (Locomo.Conversation c : Locomo.read(file)) {
            for (Locomo.Turn t : c.turns()) {
                List<String> cited = lines.subList(t.lineStart() - 1, t.lineEnd());
                assertThat(cited.get(0).trim()).as(t.diaId()).isEqualTo("{");
                assertThat(cited.get(cited.size() - 1).trim()).as(t.diaId()).isIn("}", "},");
                assertThat(String.join("\n", cited)).contains("\"dia_id\": \"" + t.diaId() + "\"", t.text());
                String range = new String(Arrays.copyOfRange(bytes, (int) t.byteStart(), (int) t.byteEnd()),
                        StandardCharsets.UTF_8);
                assertThat(range).isEqualTo(String.join("\n", cited) + "\n");
            }
        }
    }

    @Test
    void aTurnBecomesAnExchangeOfItsConversationWithDateSpeakerAndCaption() throws Exception {
        LocomoEval.Prepared data = LocomoEval.prepare(resource("locomo-sample.json"), Set.of());
        Memory photo = data.memories().get(1);
        Memory first = data.memories().get(0);
        assertThat(first.text()).doesNotContain("\non: "); // nothing precedes the first turn of a session
        assertThat(photo.text()).isEqualTo("(9:05 am on 3 June, 2023) Ana said, \"I finally did the ridge trail, look at"
                + " this view.\" and shared a photo of a ridge trail above a lake\non: "
                + first.metadata().get("speaker") + ": " + data.conversations().get(0).turns().get(0).text());
        assertThat(photo.kind()).isEqualTo(MemoryKind.EXCHANGE);
        assertThat(photo.agent()).isEqualTo("locomo");
        assertThat(photo.session()).isEqualTo("conv-test-1");
        assertThat(photo.startedAt()).isEqualTo(Instant.parse("2023-06-03T09:05:00Z"));
        assertThat(photo.metadata()).containsEntry("diaId", "D1:2").containsEntry("locomoSession", "1")
                .containsEntry("speaker", "Ana");
        assertThat(photo.provenance().source()).isEqualTo(resource("locomo-sample.json").toAbsolutePath().normalize());
        assertThat(photo.provenance().recordIds()).containsExactly("D1:2");
        // An unreadable session date keeps the text and leaves the time out.
        Memory rainy = data.memories().get(5);
        assertThat(rainy.text()).isEqualTo("(noon-ish on a rainy day) Cy said, \"Rain again.\"");
        assertThat(rainy.startedAt()).isNull();
        assertThat(LocomoEval.instant("6:40 PM on 12 July, 2023")).isEqualTo(Instant.parse("2023-07-12T18:40:00Z"));
    }

    @Test
    void aTurnEndsWithTheStartOfThePreviousTurnOfItsSessionOnly() throws Exception {
        LocomoEval.Prepared data = LocomoEval.prepare(resource("locomo-sample.json"), Set.of("conv-test-1"));
        // D2:1 opens session 2: the last turn of session 1 is another day's talk, not what it answers.
        assertThat(data.memories().get(3).metadata()).containsEntry("diaId", "D2:1");
        assertThat(data.memories().get(3).text()).doesNotContain("\non: ");
        assertThat(data.memories().get(4).text()).endsWith("\non: Ben: Guess what, I adopted the grey cat from the shelter.");

        String longer = "word ".repeat(40).strip();
        Locomo.Turn before = new Locomo.Turn(1, "D1:1", "Ben", "  line one\n" + longer, null, 1, 1, 0, 1);
        Locomo.Turn reply = new Locomo.Turn(1, "D1:2", "Ana", "Sure.", null, 2, 2, 1, 2);
        String text = LocomoEval.text("1 May, 2023", reply, before);
        String context = text.substring(text.indexOf("\non: Ben: ") + "\non: Ben: ".length());
        assertThat(context).hasSize(LocomoEval.CONTEXT_CHARS).startsWith("line one word word").endsWith("\u2026")
                .doesNotContain("\n");
        assertThat(text).startsWith("(1 May, 2023) Ana said, \"Sure.\"\non: Ben: ");
    }

    @Test
    void evidenceIsNormalisedAndQuestionsWithoutAnyAreSkippedAndReported() throws Exception {
        LocomoEval.Prepared data = LocomoEval.prepare(resource("locomo-sample.json"), Set.of("conv-test-1"));
        assertThat(data.conversations()).hasSize(1);
        assertThat(data.items()).extracting(i -> i.question().question())
                .containsExactly("Which trail did Ana hike in June?", "When did Ben adopt a cat?", "What did Ana name her dog?");
        assertThat(data.items().get(1).evidence()).containsExactlyInAnyOrder("D2:1", "D1:3");
        assertThat(data.items().get(2).evidence()).containsExactly("D2:2");
        // One note per repaired or dropped raw id, one per skipped question, in file order.
        assertThat(data.notes()).hasSize(5);
        assertThat(data.notes().get(0)).contains("\"D2:1; D1:3\" -> D2:1, D1:3");
        assertThat(data.notes().get(1)).contains("no usable evidence", "Would Ana enjoy a climbing trip?");
        assertThat(data.notes().get(2)).contains("\"D:2:02\" -> D2:2");
        assertThat(data.notes().get(3)).contains("\"D9:9\" -> nothing (dropped: D9:9)");
        assertThat(data.notes().get(4)).contains("\"D\" -> nothing (dropped: D)");
    }

    @Test
    void badInputNamesTheFileAndLine() throws Exception {
        Path file = resource("locomo-turn-without-text.json");
        assertThatThrownBy(() -> Locomo.read(file))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(file + ":7:")
                .hasMessageContaining("'text'");
        assertThatThrownBy(() -> LocomoEval.prepare(resource("locomo-sample.json"), Set.of("conv-404")))
                .hasMessageContaining("no conversation conv-404");
    }
}
