package dev.funes.embed;

import static dev.funes.embed.EmbedderContract.assertClose;
import static dev.funes.embed.EmbedderContract.dot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.Embedder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * e5 reads {@code "passage: "} before every stored text and {@code "query: "} before every query.
 * Compared with the same e5 files run as a folder model without prefixes, given the prefixed
 * texts by hand.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DocumentPrefixTest {

    private static final String TEXT = "Switched the JSON parser to streaming mode to cut memory use on large session logs.";
    private static final String QUERY = "why did the parser run out of memory";

    private OnnxEmbedder e5;
    private OnnxEmbedder plain;

    @BeforeAll
    void open(@TempDir Path dir) {
        e5 = (OnnxEmbedder) Embedders.bundled(BundledModel.E5_SMALL_V2_Q);
        Path folder = BundledFiles.writeModelFolder(BundledModel.E5_SMALL_V2_Q, dir.resolve("e5"));
        plain = (OnnxEmbedder) Embedders.fromDirectory(folder, EmbedderOptions.builder().maxTokens(512).build());
    }

    @AfterAll
    void close() {
        for (Embedder embedder : new Embedder[] {e5, plain}) {
            if (embedder != null) {
                embedder.close();
            }
        }
    }

    @Test
    void theModelDeclaresBothPrefixes() {
        EmbedderOptions options = BundledModel.E5_SMALL_V2_Q.options();
        assertThat(options.queryPrefix()).isEqualTo("query: ");
        assertThat(options.documentPrefix()).isEqualTo("passage: ");
        assertThat(options.pooling()).isEqualTo(Pooling.MEAN);
        assertThat(options.maxTokens()).isEqualTo(512);
    }

    @Test
    void documentsAreEmbeddedAsPassages() {
        for (String text : List.of(TEXT, "", "ok")) {
            assertThat(e5.windowIds(text, true)).containsExactlyElementsOf(plain.windowIds("passage: " + text, false));
            assertClose(e5.embedDocuments(List.of(text)).get(0), plain.embedDocuments(List.of("passage: " + text)).get(0),
                    1e-4, "document '" + text + "'");
        }
        assertThat(dot(e5.embedDocuments(List.of(TEXT)).get(0), plain.embedDocuments(List.of(TEXT)).get(0)))
                .isLessThan(0.999);
    }

    @Test
    void queriesAreEmbeddedAsQueriesNeverAsPassages() {
        float[] query = e5.embedQuery(QUERY);
        assertClose(query, plain.embedDocuments(List.of("query: " + QUERY)).get(0), 1e-4, "query");
        assertThat(dot(query, plain.embedDocuments(List.of("passage: " + QUERY)).get(0))).isLessThan(0.999);
        assertThat(dot(query, plain.embedDocuments(List.of("query: passage: " + QUERY)).get(0))).isLessThan(0.999);
    }

    @Test
    void everyWindowOfALongDocumentStartsWithThePrefix() {
        String text = "The SQLite FTS5 index is rebuilt when the schema version changes. ".repeat(100);
        long[] prefixed = plain.windowIds("passage: x", false).get(0);
        long[] head = Arrays.copyOf(prefixed, prefixed.length - 2); // [CLS] passage :
        long[] all = new long[0]; // the text's tokens, from the windows of the model without prefix
        long sep = 0;
        for (long[] window : plain.windowIds(text, false)) {
            all = concat(all, Arrays.copyOfRange(window, 1, window.length - 1));
            sep = window[window.length - 1];
        }
        List<long[]> windows = e5.windowIds(text, true);
        assertThat(windows).hasSizeGreaterThan(1);
        long[] textTokens = new long[0];
        for (long[] window : windows) {
            assertThat(window.length).isLessThanOrEqualTo(512);
            assertThat(Arrays.copyOf(window, head.length)).isEqualTo(head);
            assertThat(window[window.length - 1]).isEqualTo(sep);
            long[] body = Arrays.copyOfRange(window, head.length, window.length - 1);
            textTokens = concat(textTokens, body);
        }
        // Nothing of the text is lost or repeated: the windows hold its tokens in order.
        assertThat(textTokens).isEqualTo(all);
    }

    private static long[] concat(long[] a, long[] b) {
        long[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
