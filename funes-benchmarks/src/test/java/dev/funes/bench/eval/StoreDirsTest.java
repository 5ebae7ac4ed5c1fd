package dev.funes.bench.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.ingest.Indexer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoreDirsTest {

    @Test
    void theIndexingCodeNamesTheCodingStoresFolderToo() {
        String indexer = StoreDirs.codeOf(Indexer.class);
        assertThat(indexer).matches("code:[0-9a-f]{64}").isEqualTo(StoreDirs.codeOf(Indexer.class));
        // Another package's code (this module's classes) has another fingerprint.
        assertThat(StoreDirs.codeOf(StoreDirs.class)).isNotEqualTo(indexer);

        List<String> ids = List.of("b", "a");
        List<String> withCode = new ArrayList<>(ids);
        withCode.add(indexer);
        assertThat(StoreDirs.key(ids)).isEqualTo(StoreDirs.key(List.of("a", "b")));
        assertThat(StoreDirs.key(withCode)).isNotEqualTo(StoreDirs.key(ids));
    }
}
