package dev.funes.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Which models a run of the evaluation measures. */
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
}
