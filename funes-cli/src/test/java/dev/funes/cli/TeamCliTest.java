package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The team commands where no Solr answers (a closed port): a federated search warns and answers
 * from the local store, a publish fails clearly and moves no cursor, credentials in a URL are
 * refused without being echoed. The commands against a real SolrCloud are tested in funes-solr
 * (TeamTest, TeamAuthTest, TeamFaultTest) through the same library calls.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TeamCliTest {

    record Result(int status, String out, String err) {
    }

    private static Result funes(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(status, out.toString(), err.toString());
    }

    private Path store;
    private String nowhere;

    @BeforeAll
    void indexTheDemoSession(@TempDir Path dir) throws Exception {
        store = dir.resolve("store");
        Result index = funes("index", "--index-path", "../examples/demo-session", "--store", store.toString());
        assertThat(index.status()).as(index.err()).isZero();
        try (ServerSocket s = new ServerSocket(0)) {
            nowhere = "http://127.0.0.1:" + s.getLocalPort() + "/solr/team";
        }
    }

    @Test
    void aSearchWhoseTeamIsUnreachableWarnsAndAnswersFromTheLocalStore() throws Exception {
        Result local = funes("search", "--store", store.toString(), "--json", "why did CI check the wrong branch");
        Result both = funes("search", "--store", store.toString(), "--json", "--team", nowhere,
                "why did CI check the wrong branch");
        assertThat(both.status()).as(both.err()).isZero();
        assertThat(both.err()).contains("warning: the team collection could not be searched")
                .contains("local results only");
        JsonNode mine = HitJson.MAPPER.readTree(local.out());
        JsonNode merged = HitJson.MAPPER.readTree(both.out());
        assertThat(merged.size()).isEqualTo(mine.size()).isPositive();
        List<String> mineIds = new ArrayList<>();
        List<String> mergedIds = new ArrayList<>();
        for (int i = 0; i < mine.size(); i++) {
            mineIds.add(mine.get(i).get("id").asText());
            mergedIds.add(merged.get(i).get("id").asText());
            assertThat(merged.get(i).get("from").asText()).isEqualTo("local");
        }
        assertThat(mergedIds).isEqualTo(mineIds);

        Result text = funes("search", "--store", store.toString(), "--team", nowhere, "-n", "2",
                "why did CI check the wrong branch");
        assertThat(text.out()).startsWith("1. ").contains("\n2. ").contains("   from the local store");
    }

    @Test
    void aPublishToAnUnreachableTeamFailsClearlyAndMovesNoCursor() {
        Result r = funes("publish", "--store", store.toString(), "--team", nowhere);
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).startsWith("funes: cannot").contains("the team collection " + nowhere);
        assertThat(Files.exists(store.resolve("team-cursors.properties"))).isFalse();
    }

    @Test
    void credentialsInATeamUrlAreRefusedWithoutBeingEchoed() {
        String secret = "hunter2-" + System.nanoTime();
        Result r = funes("publish", "--store", store.toString(), "--team", "http://ann:" + secret + "@127.0.0.1:1/solr/team");
        assertThat(r.status()).isNotZero();
        assertThat(r.err()).contains("must not hold credentials").contains("FUNES_TEAM_USER").doesNotContain(secret);
        assertThat(r.out()).doesNotContain(secret);
    }

    @Test
    void aResidentServerLeavesTeamSearchesToTheCallingProcess() {
        // The team's credentials are in the caller's environment, not the server's.
        assertThat(ServeWire.served(new String[] {"search", "--team", nowhere, "query"})).isFalse();
        assertThat(ServeWire.served(new String[] {"search", "--team=" + nowhere, "query"})).isFalse();
        assertThat(ServeWire.served(new String[] {"search", "query"})).isTrue();
    }

    @Test
    void teamInitNeedsAReachableSolr() {
        Result r = funes("team", "init", "--store", store.toString(), nowhere);
        assertThat(r.status()).isEqualTo(1);
        assertThat(r.err()).startsWith("funes: cannot").contains(nowhere);
    }

    @Test
    void theConfigsTeamIsShownWithItsLineAndABadOneFailsNamingFileAndLine(@TempDir Path dir) throws Exception {
        Path other = Files.createDirectories(dir.resolve("store"));
        Path config = other.resolve("config.toml");
        Files.writeString(config, "# the team's collection\nteam = \"" + nowhere + "\"\n");
        Result shown = funes("config", "--store", other.toString());
        assertThat(shown.status()).as(shown.err()).isZero();
        assertThat(shown.out().lines().filter(l -> l.startsWith("team ")).findFirst().orElseThrow())
                .contains(nowhere, config + ":2");
        Result json = funes("config", "--json", "--store", other.toString());
        assertThat(HitJson.MAPPER.readTree(json.out()).path("team").path("value").asText()).isEqualTo(nowhere);

        String secret = "hunter2-" + System.nanoTime();
        Files.writeString(config, "\nteam = \"ftp://ann:" + secret + "@127.0.0.1/solr/team\"\n");
        for (String command : List.of("config", "mcp")) {
            Result bad = funes(command, "--store", other.toString());
            assertThat(bad.status()).as(command).isEqualTo(1);
            assertThat(bad.err()).as(command).contains(config + ":2: a team URL must not hold credentials")
                    .doesNotContain(secret);
        }
        Files.writeString(config, "team = \"solr/team\"\n");
        assertThat(funes("mcp", "--store", other.toString()).err()).contains(config + ":1: not a team URL");
    }

    @Test
    void withoutATeamTheConfigSaysMcpSearchesTheLocalStoreOnly() throws Exception {
        Result json = funes("config", "--json", "--store", store.toString());
        assertThat(json.status()).as(json.err()).isZero();
        JsonNode team = HitJson.MAPPER.readTree(json.out()).path("team");
        assertThat(team.path("value").isNull()).as(team.toString()).isTrue();
        assertThat(team.path("source").asText()).contains("local store only");
    }
}
