package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.funes.solr.TeamUrl;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes mcp} with a team collection, over the real MCP protocol (a separate JVM driven on
 * its stdin and stdout), against a real two-node SolrCloud with BasicAuth: funes-solr's
 * {@code TeamClusterMain} in a JVM of its own (this module's test classpath holds another Jetty).
 * One machine publishes; another machine's {@code search_memory}, whose store's config names the
 * team, finds those memories with their origin and owner next to its own. A team that cannot be
 * reached gives a warning in the result and exactly the local hits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class McpTeamTest {

    /** A guard against a hang, not a timing assertion. */
    private static final Duration PATIENCE = Duration.ofMinutes(5);
    private static final Path SOLR = Path.of("../funes-solr/target");
    private static final String QUESTION = "why did CI check the wrong branch";

    private FunesProcess cluster;
    private Path credentials;
    private String team;
    private Path published;

    @BeforeAll
    void startTheClusterAndPublishAStore(@TempDir Path tmp) throws Exception {
        Path classpath = SOLR.resolve("test-classpath.txt");
        assertThat(classpath).as("funes-solr's test classpath, written by its build: build with -am").exists();
        String cp = SOLR.resolve("test-classes") + java.io.File.pathSeparator + SOLR.resolve("classes")
                + java.io.File.pathSeparator + Files.readString(classpath).strip();
        credentials = tmp.resolve("credentials");
        cluster = FunesProcess.startCommand(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx1g", "-cp", cp, "dev.funes.solr.TeamClusterMain", credentials.toString(), "mcp"));
        team = cluster.awaitOut(l -> l.startsWith("team "), PATIENCE).substring("team ".length());

        // Another machine: the demo session, indexed and published as machine-b.
        published = tmp.resolve("machine-b");
        Result index = funes("index", "--index-path", "../examples/demo-session", "--store", published.toString());
        assertThat(index.status()).as(index.err()).isZero();
        FunesProcess publish = FunesProcess.start(env(tmp, "publisher"), "512m",
                "publish", "--store", published.toString(), "--team", team, "--origin", "machine-b");
        publish.closeStdin();
        assertThat(publish.waitFor(PATIENCE)).as(publish.describe("publish")).isZero();
        assertThat(publish.out()).contains("as machine-b:").doesNotContain(" 0 added");
    }

    @AfterAll
    void stopTheCluster() throws Exception {
        if (cluster != null) {
            cluster.closeStdin();
            cluster.waitFor(PATIENCE);
            cluster.close();
        }
    }

    @Test
    void searchMemoryFindsTheTeamsMemoriesWithTheirOriginNextToItsOwn(@TempDir Path tmp) throws Exception {
        Path store = Files.createDirectories(tmp.resolve("machine-a"));
        // The team comes from the store's config, not from the command line.
        Files.writeString(store.resolve("config.toml"), "team = \"" + team + "\"\n");
        try (FunesProcess mcp = FunesProcess.start(env(tmp, "reader"), "512m", "mcp", "--store", store.toString())) {
            McpStdioClient client = new McpStdioClient(mcp, PATIENCE);
            client.initialize();
            String note = client.remember("decision", "Releases are cut by the release-train job from the"
                    + " release branch, never by hand.").get("id").asText();

            JsonNode theirs = search(client, QUESTION);
            assertThat(theirs.has("warning")).as(theirs.toString()).isFalse();
            List<String> teamIds = new ArrayList<>();
            for (JsonNode hit : theirs.get("hits")) {
                if (hit.get("from").asText().equals("team")) {
                    assertThat(hit.get("origin").asText()).isEqualTo("machine-b");
                    assertThat(hit.get("owner").asText()).isEqualTo(System.getProperty("user.name"));
                    teamIds.add(hit.get("id").asText());
                }
            }
            assertThat(teamIds).as("team hits of %s", theirs).isNotEmpty();
            assertThat(localIds(published, QUESTION, 50)).as("the publishing store's hits").containsAll(teamIds);

            JsonNode mine = search(client, "who cuts releases, the release-train job?");
            JsonNode first = mine.get("hits").get(0);
            assertThat(first.get("id").asText()).as(mine.toString()).isEqualTo(note);
            assertThat(first.get("from").asText()).isEqualTo("local");
            assertThat(first.has("origin")).isFalse();
        }
    }

    @Test
    void anUnreachableTeamGivesAWarningAndExactlyTheLocalHits(@TempDir Path tmp) throws Exception {
        String nowhere;
        try (ServerSocket s = new ServerSocket(0)) {
            nowhere = "http://127.0.0.1:" + s.getLocalPort() + "/solr/mcp";
        }
        List<String> local = localIds(published, QUESTION, 5); // before the server holds the store
        try (FunesProcess mcp = FunesProcess.start(env(tmp, "reader"), "512m",
                "mcp", "--store", published.toString(), "--team", nowhere)) {
            McpStdioClient client = new McpStdioClient(mcp, PATIENCE);
            client.initialize();
            JsonNode result = search(client, QUESTION);
            assertThat(result.get("warning").asText()).contains("the team collection could not be searched")
                    .endsWith("local results only");
            List<String> ids = new ArrayList<>();
            for (JsonNode hit : result.get("hits")) {
                assertThat(hit.get("from").asText()).isEqualTo("local");
                ids.add(hit.get("id").asText());
            }
            assertThat(ids).isNotEmpty().isEqualTo(local);
        }
    }

    @Test
    void oneTeamConnectionServesTheSearchesAndATeamThatWasUnreachableIsFoundWhenItAnswers(@TempDir Path tmp)
            throws Exception {
        // The team reached through a relay that can refuse connections and accept them again, as
        // a node that goes down and comes back, while the cluster itself keeps running.
        TeamUrl url = TeamUrl.parse(team);
        URI node = url.nodes().get(0);
        try (TcpRelay relay = new TcpRelay(node.getHost(), node.getPort())) {
            String relayed = "http://127.0.0.1:" + relay.port() + node.getPath() + "/" + url.collection();
            Path store = Files.createDirectories(tmp.resolve("machine-a"));
            try (FunesProcess mcp = FunesProcess.start(env(tmp, "reader"), "512m",
                    "mcp", "--store", store.toString(), "--team", relayed)) {
                McpStdioClient client = new McpStdioClient(mcp, PATIENCE);
                client.initialize();

                // Unreachable at the first search: the opening fails, and is not remembered.
                JsonNode down = search(client, QUESTION);
                assertThat(down.get("warning").asText()).as(down.toString()).contains("could not be searched");
                assertThat(teamHits(down)).isEmpty();

                relay.up();
                JsonNode first = search(client, QUESTION);
                assertThat(first.has("warning")).as(first.toString()).isFalse();
                assertThat(teamHits(first)).isNotEmpty();
                int connections = relay.accepted();
                assertThat(connections).isPositive();

                // A kept client reuses its pool; one opened per call connects at least once per
                // search. (The pool may still grow by a connection when a search's requests
                // overlap, more often on a busy machine, so the count is compared with the
                // searches, not with the first's, over enough searches that the pool's growth,
                // bounded by one search's concurrent requests, stays below it.)
                int more = 12;
                for (int i = 0; i < more; i++) {
                    JsonNode next = search(client, i % 2 == 0 ? "how was the flaky test fixed" : QUESTION);
                    assertThat(next.has("warning")).as(next.toString()).isFalse();
                    assertThat(teamHits(next)).isNotEmpty();
                }
                assertThat(relay.accepted() - connections).as("connections opened to the team by %d more searches:"
                        + " the first search's client is kept", more).isLessThan(more);

                // Down after it was opened: a warning; back: found again by the same server.
                relay.down();
                JsonNode cut = search(client, QUESTION);
                assertThat(cut.get("warning").asText()).as(cut.toString()).contains("could not be searched");
                assertThat(teamHits(cut)).isEmpty();
                relay.up();
                JsonNode back = search(client, QUESTION);
                assertThat(back.has("warning")).as(back.toString()).isFalse();
                assertThat(teamHits(back)).isEqualTo(teamHits(first));
            }
        }
    }

    /** The ids of the hits from the team (published from machine-b). */
    private static List<String> teamHits(JsonNode result) {
        List<String> ids = new ArrayList<>();
        for (JsonNode hit : result.get("hits")) {
            if (hit.get("from").asText().equals("team")) {
                assertThat(hit.get("origin").asText()).isEqualTo("machine-b");
                ids.add(hit.get("id").asText());
            }
        }
        return ids;
    }

    private static JsonNode search(McpStdioClient client, String query) throws Exception {
        ObjectNode args = HitJson.MAPPER.createObjectNode().put("query", query).put("limit", 5);
        return client.call("search_memory", args);
    }

    /** The ids {@code funes search --json -n LIMIT} gives on the store alone. */
    private static List<String> localIds(Path store, String query, int limit) throws Exception {
        Result r = funes("search", "--store", store.toString(), "--json", "-n", String.valueOf(limit), query);
        assertThat(r.status()).as(r.err()).isZero();
        List<String> ids = new ArrayList<>();
        for (JsonNode hit : HitJson.MAPPER.readTree(r.out())) {
            ids.add(hit.get("id").asText());
        }
        return ids;
    }

    /** The team's credentials file of {@code role}, and a config folder of the test's own. */
    private Map<String, String> env(Path tmp, String role) {
        return Map.of("FUNES_TEAM_CREDENTIALS", credentials.resolve(role + ".properties").toString(),
                "XDG_CONFIG_HOME", tmp.resolve("xdg").toString());
    }

    record Result(int status, String out, String err) {
    }

    private static Result funes(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(status, out.toString(), err.toString());
    }
}
