package dev.funes.solr;

import dev.funes.Embedder;
import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.MemoryStore;
import dev.funes.StoreException;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * BasicAuth on the test SolrCloud: a wrong password gives a clear error naming the user and
 * publishes nothing, and no password appears in an error, its causes, or Solr's log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TeamAuthTest {

    private static final String COLLECTION = "auth";
    private static final String WRONG = "not-the-password-" + System.nanoTime();

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

    private static String everything(Throwable e) {
        StringWriter s = new StringWriter();
        e.printStackTrace(new PrintWriter(s));
        return s.toString();
    }

    @Test
    void aWrongPasswordIsAClearErrorThatPublishesNothingAndShowsNoPassword(@TempDir Path dir) throws Exception {
        Memory m = Memory.builder(MemoryKind.NOTE, "codex", "A memory that must not reach the team.").build();
        TeamCredentials wrong = new TeamCredentials(TeamCluster.PUBLISHER.user(), WRONG);
        try (MemoryStore local = FunesStore.open(dir, embedder)) {
            local.add(m);
            StoreException e = catchThrowableOfType(StoreException.class, () -> {
                try (SolrMemoryStore team = SolrMemoryStore.open(cluster.connect(COLLECTION, wrong), embedder,
                        TeamOptions.defaults())) {
                    TeamPublish.publish(local, team, Set.of(), TeamPublish.Cursor.START, "m", c -> { });
                }
            });
            assertThat(e).isNotNull();
            assertThat(e.getMessage()).contains("refused the credentials of user publisher", "HTTP 401",
                    cluster.url(COLLECTION).toString());
            assertThat(everything(e)).doesNotContain(WRONG, TeamCluster.PUBLISHER.password());

            StoreException none = catchThrowableOfType(StoreException.class, () -> SolrMemoryStore.open(
                    cluster.connect(COLLECTION, null), embedder, TeamOptions.defaults()));
            assertThat(none.getMessage()).contains("none were given", TeamCredentials.USER_ENV);
        }
        try (SolrMemoryStore admin = SolrMemoryStore.open(cluster.connect(COLLECTION), embedder, TeamOptions.defaults())) {
            assertThat(admin.get(m.id())).isEmpty();
            assertThat(admin.stats().memories()).isZero();
        }
        try (TeamConnection c = cluster.connect(COLLECTION, wrong)) {
            assertThat(c.toString()).contains("publisher").doesNotContain(WRONG);
        }
        // Solr's own log of this JVM (log4j2-test.xml), which holds the refused requests' warnings.
        Path log = Path.of("target/test-logs/solr.log");
        assertThat(log).exists();
        assertThat(Files.readString(log)).doesNotContain(WRONG, TeamCluster.PUBLISHER.password(),
                TeamCluster.ADMIN.password(), TeamCluster.READER.password());
    }
}
