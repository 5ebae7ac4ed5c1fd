package dev.funes.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.funes.MemoryKind;
import dev.funes.SearchRequest;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The benchmark's {@code filter} parameter sets the request's filters it names, and rejects others. */
class StoreSearchBenchmarkFilterTest {

    private static SearchRequest request(String spec) {
        SearchRequest.Builder b = SearchRequest.builder("q");
        StoreSearchBenchmark.filters(spec).accept(b);
        return b.build();
    }

    @Test
    void everyNamedFilterReachesTheRequest() {
        SearchRequest r = request("agent:locomo+project:funes-bench+kind:exchange;decision"
                + "+after:2027-10-01+before:2027-11-01T12:00:00Z+session:s1");
        assertThat(r.agent()).isEqualTo("locomo");
        assertThat(r.project()).isEqualTo("funes-bench");
        assertThat(r.kinds()).isEqualTo(Set.of(MemoryKind.EXCHANGE, MemoryKind.DECISION));
        assertThat(r.after()).isEqualTo(Instant.parse("2027-10-01T00:00:00Z"));
        assertThat(r.before()).isEqualTo(Instant.parse("2027-11-01T12:00:00Z"));
        assertThat(r.session()).isEqualTo("s1");
    }

    @Test
    void emptyIsNoFilter() {
        SearchRequest r = request("");
        assertThat(r.agent()).isNull();
        assertThat(r.project()).isNull();
        assertThat(r.kinds()).isEmpty();
        assertThat(r.after()).isNull();
    }

    @Test
    void unknownOrMalformedFiltersFail() {
        assertThatThrownBy(() -> request("colour:red")).hasMessageContaining("colour:red");
        assertThatThrownBy(() -> request("agent")).hasMessageContaining("NAME:VALUE");
        assertThatThrownBy(() -> request("kind:nope")).hasMessageContaining("nope");
    }
}
