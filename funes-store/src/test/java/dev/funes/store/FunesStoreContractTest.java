package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;

/**
 * {@link FunesStore} against the {@link MemoryStoreContract}, with the default bundled model. The
 * fresh limit is tiny so that the ANN graph is rebuilt and swapped again and again while the
 * contract runs, concurrent searches included.
 */
class FunesStoreContractTest extends MemoryStoreContract {

    private Embedder embedder;

    @BeforeAll
    void loadModel() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
    }

    @AfterAll
    void closeModel() {
        if (embedder != null) {
            embedder.close();
        }
    }

    @Override
    protected Embedder embedder() {
        return embedder;
    }

    @Override
    protected MemoryStore open(Path dir, Embedder embedder) {
        return FunesStore.open(dir, embedder, StoreOptions.builder().freshLimit(4).build());
    }
}
