package dev.funes.solr;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Publish throughput and search latency, team collection against local store, in one run; only
 * with {@code -Dfunes.team.bench=N} (N memories): {@code mvn -o -q -pl funes-solr -am test
 * -Dtest=TeamBenchmarkTest -Dfunes.team.bench=20000 -Dsurefire.failIfNoSpecifiedTests=false}.
 * Memories are synthetic texts from a fixed vocabulary with random unit vectors (embedding N
 * texts would measure the model, not the stores); queries are embedded by the real model.
 * Prints its figures; docs/TEAM.md records them.
 */
@EnabledIfSystemProperty(named = "funes.team.bench", matches = "\\d+")
class TeamBenchmarkTest {

    private static final String[] WORDS = ("build test branch merge deploy cache index query parser socket timeout "
            + "retry docker kubernetes memory leak heap thread lock database migration schema column nginx tls "
            + "certificate token session login cookie queue worker cron backup restore snapshot replica shard leader "
            + "commit rebase flaky clock timezone locale unicode encoding json yaml config secret vault gradle maven "
            + "npm webpack react router state store reducer graphql resolver loader latency throughput benchmark").split(" ");

    @Test
    void publishAndSearchTeamAgainstLocal(@TempDir Path dir) {
        int n = Integer.getInteger("funes.team.bench");
        Random random = new Random(2026);
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore local = FunesStore.open(dir, embedder)) {
            long t0 = System.nanoTime();
            for (int from = 0; from < n; from += 5000) {
                List<Memory> memories = new ArrayList<>();
                List<float[]> vectors = new ArrayList<>();
                for (int i = from; i < Math.min(n, from + 5000); i++) {
                    StringBuilder text = new StringBuilder("Memory " + i + ":");
                    for (int w = 0; w < 40; w++) {
                        text.append(' ').append(WORDS[random.nextInt(WORDS.length)]);
                    }
                    memories.add(Memory.builder(MemoryKind.NOTE, "agent-" + (i % 5), text.toString())
                            .project("/work/p" + (i % 20)).session("s" + (i / 50)).build());
                    vectors.add(unit(random, embedder.dimension()));
                }
                FunesStore.vectors(local).put(memories, vectors);
            }
            double localFill = (System.nanoTime() - t0) / 1e9;

            TeamCluster cluster = TeamCluster.shared();
            String collection = "bench" + n;
            try (TeamConnection conn = cluster.connect(collection)) {
                TeamSetup.init(conn, embedder.modelId(), embedder.dimension(), 2, 2);
            }
            try (SolrMemoryStore team = SolrMemoryStore.open(cluster.connect(collection, TeamCluster.PUBLISHER),
                    embedder, TeamOptions.defaults())) {
                long p0 = System.nanoTime();
                TeamPublish.Report r = TeamPublish.publish(local, team, Set.of(), TeamPublish.Cursor.START, "bench",
                        c -> { });
                double publish = (System.nanoTime() - p0) / 1e9;
                assertThat(r.stored().added()).isEqualTo(n);

                List<SearchRequest> queries = new ArrayList<>();
                for (int q = 0; q < 100; q++) {
                    queries.add(SearchRequest.of(WORDS[random.nextInt(WORDS.length)] + " "
                            + WORDS[random.nextInt(WORDS.length)] + " " + WORDS[random.nextInt(WORDS.length)]));
                }
                for (int warm = 0; warm < 10; warm++) { // first searches load caches and code
                    local.search(queries.get(warm));
                    team.search(queries.get(warm));
                }
                double[] localMs = new double[queries.size()];
                double[] teamMs = new double[queries.size()];
                for (int q = 0; q < queries.size(); q++) {
                    long s = System.nanoTime();
                    local.search(queries.get(q));
                    localMs[q] = (System.nanoTime() - s) / 1e6;
                    s = System.nanoTime();
                    team.search(queries.get(q));
                    teamMs[q] = (System.nanoTime() - s) / 1e6;
                }
                System.out.printf(Locale.ROOT, "TEAM-BENCH n=%d local-fill=%.1fs publish=%.1fs (%.0f memories/s)"
                                + " search local p50=%.1fms p95=%.1fms team p50=%.1fms p95=%.1fms index-bytes=%d%n",
                        n, localFill, publish, n / publish, pct(localMs, 50), pct(localMs, 95), pct(teamMs, 50),
                        pct(teamMs, 95), indexBytes(cluster, collection, embedder));
            }
        }
    }

    /** The collection's index size as the administrator sees it (a publisher may not ask). */
    private static long indexBytes(TeamCluster cluster, String collection, Embedder embedder) {
        try (SolrMemoryStore admin = SolrMemoryStore.open(cluster.connect(collection), embedder, TeamOptions.defaults())) {
            return admin.stats().databaseBytes();
        }
    }

    private static float[] unit(Random random, int dimension) {
        float[] v = new float[dimension];
        double norm = 0;
        for (int d = 0; d < dimension; d++) {
            v[d] = (float) random.nextGaussian();
            norm += v[d] * v[d];
        }
        for (int d = 0; d < dimension; d++) {
            v[d] /= (float) Math.sqrt(norm);
        }
        return v;
    }

    private static double pct(double[] values, int p) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0 * sorted.length) - 1)];
    }
}
