package dev.funes.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.funes.store.FusionOptions;
import dev.funes.store.StoreOptions;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Which models a run of the evaluation measures, and with which options of the default configuration. */
class EvaluateOptionsTest {

    private static final Path ROOT = Path.of(".");

    @Test
    void withoutModelsTheThreeLongFollowedOnesAreMeasured() {
        assertThat(Evaluate.Options.parse(new String[0], ROOT).models())
                .containsExactly("all-minilm-l6-v2-q", "all-minilm-l6-v2", "bge-small-en-v15-q");
    }

    @Test
    void e5IsMeasuredWhenNamed() {
        assertThat(Evaluate.Options.parse(new String[] {"--models", "e5-small-v2-q,all-minilm-l6-v2-q"}, ROOT).models())
                .containsExactly("e5-small-v2-q", "all-minilm-l6-v2-q");
        assertThatThrownBy(() -> Evaluate.Options.parse(new String[] {"--models", "e5-small"}, ROOT))
                .hasMessageContaining("e5-small-v2-q");
    }

    @Test
    void theDefaultConfigurationIsTheStoresUnlessItsWeightsAreGiven() {
        Evaluate.Options plain = Evaluate.Options.parse(new String[0], ROOT);
        assertThat(plain.tuned().fusion()).isEqualTo(StoreOptions.defaults().fusion());
        assertThat(plain.tuned().rerank()).isEqualTo(StoreOptions.defaults().rerank());
        assertThat(plain.tunedLabel()).isEmpty();

        Evaluate.Options conversation = Evaluate.Options.parse(
                new String[] {"--dense-weight", "0.6", "--neighbour-weight", "0.25"}, ROOT);
        StoreOptions tuned = conversation.tuned();
        assertThat(tuned.fusion().method()).isEqualTo(FusionOptions.Method.MINMAX);
        assertThat(tuned.fusion().denseWeight()).isEqualTo(0.6);
        assertThat(tuned.fusion().lexicalWeight()).isEqualTo(0.4, within(1e-12));
        assertThat(tuned.rerank().neighbourWeight()).isEqualTo(0.25);
        assertThat(tuned.rerank().passageWeight()).isEqualTo(StoreOptions.defaults().rerank().passageWeight());
        assertThat(conversation.tunedLabel()).isEqualTo("fusion weights 0.6 dense / 0.4 lexical, neighbour weight 0.25");

        assertThatThrownBy(() -> Evaluate.Options.parse(new String[] {"--dense-weight", "1.5"}, ROOT))
                .hasMessageContaining("--dense-weight must be from 0 to 1");
        assertThatThrownBy(() -> Evaluate.Options.parse(new String[] {"--neighbour-weight", "-1"}, ROOT))
                .hasMessageContaining("--neighbour-weight");
        assertThatThrownBy(() -> Evaluate.Options.parse(new String[] {"--neighbour-weight", "lots"}, ROOT))
                .hasMessageContaining("needs a number, was lots");
    }
}
