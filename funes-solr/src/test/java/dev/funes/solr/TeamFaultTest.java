package dev.funes.solr;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.StoreException;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.redact.Redactor;
import dev.funes.store.FunesStore;
import dev.funes.store.StoreChanges;
import dev.funes.store.StoreOptions;
import org.apache.solr.common.cloud.Replica;
import org.apache.solr.embedded.JettySolrRunner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A node stops in the middle of a publish: the publish either fails with an error or completes
 * through the other node's replicas; searches keep answering from the replicas left; once the
 * shards have leaders again, running the publish again leaves exactly the local memories in the
 * collection (none lost, none twice). The node is started again afterwards, so later tests find
 * the cluster whole.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TeamFaultTest {

    private static final String COLLECTION = "fault";
    private static final int MEMORIES = 400;

    private Embedder embedder;
    private TeamCluster cluster;

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

    private SolrMemoryStore team() {
        return SolrMemoryStore.open(cluster.connect(COLLECTION, TeamCluster.PUBLISHER), embedder,
                new TeamOptions(StoreOptions.builder().redactor(Redactor.standard()).build(), "machine-f", "tester"));
    }

    /** Memories with their own unit vectors (nothing to embed: the test is about the cluster). */
    private static void fill(MemoryStore local) {
        Random random = new Random(28);
        List<Memory> memories = new ArrayList<>();
        List<float[]> vectors = new ArrayList<>();
        for (int i = 0; i < MEMORIES; i++) {
            memories.add(Memory.builder(MemoryKind.NOTE, "codex", "Fault drill memory " + i + ": the replica "
                    + (i % 7) + " answered while node " + (i % 3) + " was down.").session("drill-" + (i % 10)).build());
            float[] v = new float[384];
            double norm = 0;
            for (int d = 0; d < v.length; d++) {
                v[d] = (float) random.nextGaussian();
                norm += v[d] * v[d];
            }
            for (int d = 0; d < v.length; d++) {
                v[d] /= (float) Math.sqrt(norm);
            }
            vectors.add(v);
        }
        FunesStore.vectors(local).put(memories, vectors);
    }

    @Test
    void aNodeStoppedDuringAPublishLosesNothingAndDoublesNothing(@TempDir Path dir) throws Exception {
        JettySolrRunner stopped = cluster.solr().getJettySolrRunner(1);
        try (MemoryStore local = FunesStore.open(dir, embedder)) {
            fill(local);
            AtomicReference<TeamPublish.Cursor> cursor = new AtomicReference<>(TeamPublish.Cursor.START);
            String outcome;
            try (SolrMemoryStore team = team()) {
                TeamPublish.Report r = TeamPublish.publish(local, team, Set.of(), cursor.get(), "machine-f", c -> {
                    boolean first = cursor.get().seq() == 0;
                    cursor.set(c);
                    if (first) { // the first page arrived: stop a node before the next
                        try {
                            cluster.solr().stopJettySolrRunner(stopped);
                            cluster.solr().waitForJettyToStop(stopped);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }, 50);
                outcome = "completed: " + r.read();
            } catch (StoreException e) {
                outcome = "failed: " + e.getMessage();
            }
            assertThat(stopped.isRunning()).isFalse();
            assertThat(cursor.get().seq()).as(outcome).isPositive();

            // Every shard gets a leader on the node left (its replica there takes over).
            String live = cluster.solr().getJettySolrRunner(0).getNodeName();
            cluster.solr().getZkStateReader().waitForState(COLLECTION, 90, TimeUnit.SECONDS, (nodes, state) ->
                    state != null && state.getSlices().stream().allMatch(s -> s.getLeader() != null
                            && s.getLeader().getState() == Replica.State.ACTIVE
                            && live.equals(s.getLeader().getNodeName())));

            try (SolrMemoryStore team = team()) {
                assertThat(team.search(SearchRequest.of("fault drill replica answered"))).isNotEmpty();
                TeamPublish.Report again = TeamPublish.publish(local, team, Set.of(), cursor.get(), "machine-f",
                        cursor::set, 50);
                assertThat(again.stored().added() + again.stored().unchanged()).isPositive();
                assertThat(team.stats().memories()).as(outcome).isEqualTo(MEMORIES);
                List<String> ids = StoreChanges.memories(local, 0, Set.of(), MEMORIES).memories().stream()
                        .map(Memory::id).toList();
                assertThat(ids).hasSize(MEMORIES);
                assertThat(team.getAll(ids)).hasSize(MEMORIES);
            }
        } finally {
            if (!stopped.isRunning()) {
                cluster.solr().startJettySolrRunner(stopped, true);
                cluster.solr().waitForNode(stopped, 60);
            }
            for (String c : cluster.solr().getZkStateReader().getClusterState().getCollectionNames()) {
                cluster.solr().waitForActiveCollection(c, 120, TimeUnit.SECONDS);
            }
        }
    }
}
