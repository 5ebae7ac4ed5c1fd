package dev.funes.store;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.solr.SolrMemoryStore;
import dev.funes.solr.TeamCluster;
import dev.funes.solr.TeamOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import java.nio.file.Path;

/**
 * {@link SolrMemoryStore} against the {@link MemoryStoreContract}, on a two-node SolrCloud with a
 * collection of 2 shards × 2 replicas. (In this package because the contract is package-private.)
 * Each test's directory stands for a fresh store: the first open in a new directory empties the
 * collection, so every test starts from an empty team collection as it would from an empty
 * directory.
 */
class SolrStoreContractTest extends MemoryStoreContract {

    private static final String COLLECTION = "contract";

    private Embedder embedder;
    private TeamCluster cluster;
    private Path current;

    @BeforeAll
    void start() {
        embedder = Embedders.bundled(BundledModel.DEFAULT);
        cluster = TeamCluster.withCollection(COLLECTION, embedder.modelId(), embedder.dimension());
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
        if (!dir.equals(current)) {
            cluster.clear(COLLECTION);
            current = dir;
        }
        return SolrMemoryStore.open(cluster.connect(COLLECTION), embedder, TeamOptions.defaults());
    }
}
