package dev.funes.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.Embedder;
import dev.funes.ForwardingEmbedder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardingEmbedder} over the bundled model: every call reaches the model unchanged, an
 * override changes only its own call, and closing the wrapper closes the model only when the
 * wrapper was made to.
 */
class ForwardingEmbedderTest {

    /** Counts the documents it is given; the rest as the model has it. */
    private static final class Counting extends ForwardingEmbedder {
        final List<String> seen = new ArrayList<>();

        Counting(Embedder delegate, boolean closesDelegate) {
            super(delegate, closesDelegate);
        }

        @Override
        public List<float[]> embedDocuments(List<String> texts) {
            seen.addAll(texts);
            return super.embedDocuments(texts);
        }
    }

    @Test
    void forwardsEveryCallAndClosesTheModelOnlyWhenAsked() {
        List<String> texts = List.of("the parser broke on a partial record", "CI checked out the wrong branch");
        try (Embedder model = Embedders.bundled(BundledModel.DEFAULT)) {
            Counting kept = new Counting(model, false);
            assertThat(kept.modelId()).isEqualTo(model.modelId());
            assertThat(kept.dimension()).isEqualTo(model.dimension());
            List<float[]> direct = model.embedDocuments(texts);
            List<float[]> forwarded = kept.embedDocuments(texts);
            assertThat(forwarded).hasSize(2);
            for (int i = 0; i < texts.size(); i++) {
                assertThat(forwarded.get(i)).containsExactly(direct.get(i));
            }
            assertThat(kept.seen).isEqualTo(texts);
            assertThat(kept.embedQuery("which branch")).containsExactly(model.embedQuery("which branch"));
            kept.close();
            assertThat(model.embedQuery("still open")).hasSize(model.dimension());

            Counting owning = new Counting(model, true);
            owning.close();
            assertThatThrownBy(() -> model.embedQuery("closed")).isInstanceOf(IllegalStateException.class);
        }
    }
}
