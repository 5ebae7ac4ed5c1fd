package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.store.FunesStore;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code funes ui}'s refusals, which return at once (its serving is UiBrowserTest's). */
class UiCommandTest {

    @TempDir
    Path tmp;

    @Test
    void aMissingStoreIsAFailureNamingIt() {
        Path none = tmp.resolve("none");
        CliTest.Result r = CliTest.funes("ui", "--store", none.toString(), "--no-browser");
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).contains("no Funes store at " + none);
        assertThat(r.out()).isEmpty();
    }

    @Test
    void aPortOutOfRangeIsBadUsage() {
        CliTest.Result r = CliTest.funes("ui", "--store", tmp.toString(), "--port", "70000", "--no-browser");
        assertThat(r.status()).isEqualTo(2);
        assertThat(r.err()).contains("--port must be between 0 and 65535, was 70000");
    }

    @Test
    void aTakenPortIsAFailureThatSaysSo() throws Exception {
        Path store = tmp.resolve("store");
        // An empty store, made without loading the model.
        try (LazyEmbedder embedder = LazyEmbedder.of(BundledModel.DEFAULT); MemoryStore s = FunesStore.open(store, embedder)) {
            assertThat(s.stats().memories()).isZero();
        }
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            CliTest.Result r = CliTest.funes("ui", "--store", store.toString(), "--port", String.valueOf(taken.getLocalPort()),
                    "--no-browser");
            assertThat(r.status()).isEqualTo(1);
            assertThat(r.err()).contains("port " + taken.getLocalPort() + " of 127.0.0.1 is taken");
            assertThat(r.out()).isEmpty();
        }
    }
}
