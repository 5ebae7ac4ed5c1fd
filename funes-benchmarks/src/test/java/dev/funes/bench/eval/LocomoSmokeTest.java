package dev.funes.bench.eval;

import dev.funes.embed.BundledModel;
import dev.funes.store.StoreOptions;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The harness end to end on one real LoCoMo conversation, BM25 only: a real store (SQLite, FTS5,
 * the bundled int8 MiniLM, which the store needs to store anything), real questions, sane numbers.
 */
class LocomoSmokeTest {

    @Test
    void bm25OnOneConversationGivesSaneRecall() throws Exception {
        Path locomo = Path.of(System.getProperty("funes.shared.dir", "../../shared")).resolve("eval/locomo10.json");
        assumeTrue(Files.isRegularFile(locomo), "skipped: no LoCoMo data at " + locomo.toAbsolutePath().normalize());

        LocomoEval.Prepared data = LocomoEval.prepare(locomo, Set.of("conv-26"));
        assertThat(data.memories()).hasSize(419);
        assertThat(data.items()).hasSize(197); // 199 questions, 2 without evidence
        assertThat(String.join("\n", data.notes())).contains("\"D8:6; D9:17\" -> D8:6, D9:17");

        ByteArrayOutputStream log = new ByteArrayOutputStream();
        LocomoEval.Result result;
        try (StoreDirs dirs = new StoreDirs(null)) {
            result = LocomoEval.run(data, List.of(BundledModel.DEFAULT.id()), dirs, LocomoEval.Split.ALL, true,
                    StoreOptions.defaults(), new PrintStream(log, true, StandardCharsets.UTF_8));
        }
        assertThat(result.scores()).containsOnlyKeys(LocomoEval.LEXICAL);
        Map<Integer, Metrics.Mean> byCategory = result.scores().get(LocomoEval.LEXICAL);
        assertThat(byCategory.keySet()).containsExactly(1, 2, 3, 4, 5);
        assertThat(byCategory.values().stream().mapToInt(Metrics.Mean::questions).sum()).isEqualTo(197);

        Metrics.Mean headline = result.headline(LocomoEval.LEXICAL);
        Metrics.Mean notAdversarial = result.excluding(LocomoEval.LEXICAL, LocomoEval.ADVERSARIAL);
        assertThat(headline.questions()).isEqualTo(197);
        assertThat(notAdversarial.questions()).isEqualTo(197 - byCategory.get(5).questions());
        for (Metrics.Mean m : List.of(headline, notAdversarial, byCategory.get(1), byCategory.get(5))) {
            double previous = 0;
            for (int k : Metrics.CUTOFFS) {
                assertThat(m.atK(k)).isBetween(0.0, 1.0).isGreaterThanOrEqualTo(previous);
                previous = m.atK(k);
            }
            assertThat(m.mrr()).isBetween(0.0, 1.0);
            // A question's reciprocal rank is 1 whenever its first result is evidence, so MRR >= recall@1.
            assertThat(m.mrr()).isGreaterThanOrEqualTo(m.atK(1));
        }
        // Evidence really is found: a broken turn-to-dia_id mapping or session filter would give ~0.
        assertThat(headline.atK(20)).isGreaterThan(0.3);

        // The halves alternate within the conversation and together hold every scored question.
        assertThat(data.items()).extracting(LocomoEval.Item::index).startsWith(0, 1, 2);
        assertThat(data.items().get(0).split()).isEqualTo(LocomoEval.Split.TUNE);
        assertThat(data.items().get(1).split()).isEqualTo(LocomoEval.Split.HELDOUT);
        Metrics.Mean[] halves = result.halves().get(LocomoEval.LEXICAL);
        assertThat(halves[0].questions() + halves[1].questions()).isEqualTo(197);
        assertThat(halves[0].questions()).isBetween(90, 107);

        Report report = new Report();
        report.locomo(data, result);
        assertThat(report.text()).contains("| BM25 |", "cat 5 (adversarial)", "D8:6; D9:17");
    }
}
