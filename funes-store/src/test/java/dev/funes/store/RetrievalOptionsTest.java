package dev.funes.store;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

/** The fusion and rerank options, and the pure parts of the rerank stage. */
class RetrievalOptionsTest {

    @Test
    void defaultsAreMinMaxFusionAndTheRerankStage() {
        assertThat(StoreOptions.defaults().fusion()).isEqualTo(FusionOptions.MINMAX);
        assertThat(StoreOptions.defaults().rerank()).isEqualTo(RerankOptions.DEFAULT);
        StoreOptions built = StoreOptions.builder().candidates(100).build();
        assertThat(built.fusion()).isEqualTo(FusionOptions.MINMAX);
        assertThat(built.rerank()).isEqualTo(RerankOptions.DEFAULT);
        assertThat(built.lexicalBudget()).isEqualTo(StoreOptions.DEFAULT_LEXICAL_BUDGET);
        StoreOptions rrf = StoreOptions.builder().fusion(FusionOptions.RRF).rerank(RerankOptions.NONE).build();
        assertThat(rrf.fusion().method()).isEqualTo(FusionOptions.Method.RRF);
        assertThat(rrf.rerank().enabled()).isFalse();
        assertThat(RerankOptions.DEFAULT.proximityWeight()).isEqualTo(0.1);
        assertThat(RerankOptions.DEFAULT.duplicateWeight()).isEqualTo(0.5);
        assertThat(RerankOptions.DEFAULT.passageWeight()).isEqualTo(0.65);
        assertThat(RerankOptions.NONE.passageWeight()).isZero();
    }

    @Test
    void badValuesAreRefusedByName() {
        assertThatThrownBy(() -> new FusionOptions(FusionOptions.Method.MINMAX, 0, 0, 60)).hasMessageContaining("weights");
        assertThatThrownBy(() -> new FusionOptions(FusionOptions.Method.RRF, 1, 1, 0)).hasMessageContaining("rrfK");
        assertThatThrownBy(() -> new RerankOptions(-1, 0.5, 0.8, 100)).hasMessageContaining("weights");
        assertThatThrownBy(() -> new RerankOptions(0.1, 0.5, 0.8, 100, -0.1)).hasMessageContaining("weights");
        assertThatThrownBy(() -> new RerankOptions(0.1, 0.5, 0, 100)).hasMessageContaining("duplicateSimilarity");
        assertThatThrownBy(() -> new RerankOptions(0.1, 0.5, 0.8, 0)).hasMessageContaining("depth");
    }

    @Test
    void proximityRewardsMatchedTermsCloseTogether() {
        List<String> q = Rerank.stems(List.of("retry", "latch"));
        assertThat(Rerank.proximity("the retry latch fix", q)).isCloseTo(1.0, within(1e-9));
        assertThat(Rerank.proximity("retry now, and much later a latch", q)).isCloseTo(2.0 / 7, within(1e-9));
        assertThat(Rerank.proximity("only retry here", q)).isZero();
        // camelCase parts count as words at the identifier's place; plural matches singular.
        assertThat(Rerank.proximity("added retryLatches", q)).isGreaterThan(0.5);
    }

    @Test
    void wordsAreLowerCaseWithCamelCasePartsAfterTheirIdentifier() {
        assertThat(Rerank.words("Fix parseHTTPResponse, x2Y and HTTP_4xx: Ünïcode déjà-vu"))
                .containsExactly("fix", "parsehttpresponse", "parse", "http", "response", "x2y", "x2", "y", "and",
                        "http", "4xx", "ünïcode", "déjà", "vu");
        assertThat(Rerank.words("")).isEmpty();
        assertThat(Rerank.words("  ... ")).isEmpty();
        assertThat(Rerank.words("end")).containsExactly("end");
    }

    @Test
    void shingleJaccardSeesNearDuplicates() {
        Set<Long> a = Rerank.shingles("the deploy failed because the staging password expired yesterday");
        Set<Long> b = Rerank.shingles("the deploy failed because the staging password expired yesterday!");
        Set<Long> c = Rerank.shingles("staging deploys kept failing on the migration");
        assertThat(Rerank.jaccard(a, b)).isEqualTo(1.0);
        assertThat(Rerank.jaccard(a, c)).isLessThan(0.2);
    }
}
