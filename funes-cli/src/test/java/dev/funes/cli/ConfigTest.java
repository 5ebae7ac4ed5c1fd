package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.funes.FunesException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The config files ({@code ~/.config/funes/config.toml} and {@code <store>/config.toml}): what
 * they set, that flags and {@code $FUNES_HOME} override them, that {@code funes config} names
 * where each setting came from, and that a malformed file is an error naming its line.
 */
class ConfigTest {

    private static final Path SAMPLE = Path.of("../examples/demo-session/sample-session.jsonl");
    private static final Duration PATIENCE = Duration.ofMinutes(3);
    private static final Map<String, ConfigFile.Type> KEYS = Map.of("store", ConfigFile.Type.STRING,
            "index-paths", ConfigFile.Type.STRINGS, "neighbour-weight", ConfigFile.Type.NUMBER);

    @Test
    void theUsersConfigSetsStoreRootsModelAndRulesAndFlagsOverrideIt(@TempDir Path home) throws Exception {
        Path logs = Files.createDirectories(home.resolve("logs"));
        Files.copy(SAMPLE, logs.resolve("session.jsonl"));
        Path config = Files.createDirectories(home.resolve(".config/funes")).resolve("config.toml");
        Files.writeString(config, """
                # Funes, for this account
                store = "~/memory"
                index-paths = [
                  "~/logs",   # Claude Code transcripts copied here
                ]
                model = "bge-small-en-v15-q"
                redaction-rules = '~/rules.txt'
                """);

        FunesProcess shown = funes(home, "config");
        assertThat(shown.status()).as(shown.describe("config")).isZero();
        assertThat(lineOf(shown.out(), "store")).contains(home.resolve("memory").toString(), config + ":2");
        assertThat(lineOf(shown.out(), "index-paths")).contains(logs.toString(), config + ":3");
        assertThat(lineOf(shown.out(), "model")).contains("bge-small-en-v15-q", config + ":6");
        assertThat(lineOf(shown.out(), "redaction-rules"))
                .contains(home.resolve("rules.txt").toString(), config + ":7", "missing");
        assertThat(lineOf(shown.out(), "config files")).contains(config.toString(), "read");

        FunesProcess noRules = funes(home, "index");
        assertThat(noRules.status()).as(noRules.describe("index while the rules file is missing")).isEqualTo(1);
        assertThat(noRules.err()).contains(config + ":7: redaction rules file " + home.resolve("rules.txt") + " does not exist");
        assertThat(home.resolve("memory/funes.db")).as("nothing written before the rules are read").doesNotExist();

        Files.writeString(home.resolve("rules.txt"), "account-id ACC-[0-9]+\n");
        FunesProcess indexed = funes(home, "index");
        assertThat(indexed.status()).as(indexed.describe("index with the config's roots")).isZero();
        assertThat(indexed.out()).contains("1 indexed");
        FunesProcess stats = funes(home, "stats", "--json");
        assertThat(stats.status()).as(stats.describe("stats of the configured store")).isZero();
        JsonNode statsJson = HitJson.MAPPER.readTree(stats.out());
        assertThat(statsJson.path("store").asText()).isEqualTo(home.resolve("memory").toString());
        assertThat(statsJson.path("model").asText()).as("the config's model for a new store").isEqualTo("bge-small-en-v15-q");
        FunesProcess found = funes(home, "search", "--retrieval", "lexical", "unknown account");
        assertThat(found.status()).as(found.describe("search")).isZero();
        assertThat(found.out()).as("the config's rules file redacted the account ids")
                .contains("[REDACTED:account-id]").doesNotContain("ACC-2231");

        FunesProcess recorded = funes(home, "config");
        assertThat(lineOf(recorded.out(), "model")).contains("bge-small-en-v15-q", "the store records it");

        Path other = home.resolve("other");
        FunesProcess flag = funes(home, "config", "--json", "--store", other.toString());
        assertThat(flag.status()).as(flag.describe("config --store")).isZero();
        JsonNode flagJson = HitJson.MAPPER.readTree(flag.out());
        assertThat(flagJson.path("store").path("value").asText()).isEqualTo(other.toString());
        assertThat(flagJson.path("store").path("source").asText()).isEqualTo("--store");
        assertThat(flagJson.path("model").path("source").asText()).isEqualTo(config + ":6");
        assertThat(flagJson.path("files").path("store").path("state").asText()).isEqualTo("absent");

        List<String> env = new ArrayList<>(List.of("env", "-u", "XDG_CONFIG_HOME", "HOME=" + home, "FUNES_HOME=" + other));
        env.addAll(FunesProcess.command(Main.class, "384m", "config"));
        FunesProcess variable = run(env);
        assertThat(lineOf(variable.out(), "store")).contains(other.toString(), "$FUNES_HOME");

        FunesProcess newModel = funes(home, "index", "--store", other.toString(), "--model", "all-minilm-l6-v2-q");
        assertThat(newModel.status()).as(newModel.describe("index --model overriding the config")).isZero();
        FunesProcess otherStats = funes(home, "stats", "--json", "--store", other.toString());
        assertThat(HitJson.MAPPER.readTree(otherStats.out()).path("model").asText()).isEqualTo("all-minilm-l6-v2-q");
    }

    @Test
    void aStoresOwnConfigOverridesTheUsersAndResolvesPathsFromItsFolder(@TempDir Path home) throws Exception {
        Path user = Files.createDirectories(home.resolve(".config/funes")).resolve("config.toml");
        Files.writeString(user, "index-paths = [\"~/nowhere\"]\nmodel = \"bge-small-en-v15-q\"\n");
        Path store = Files.createDirectories(home.resolve("store"));
        Files.copy(SAMPLE, Files.createDirectories(store.resolve("sessions")).resolve("session.jsonl"));
        Path own = store.resolve("config.toml");
        Files.writeString(own, "index-paths = ['sessions']\n");

        FunesProcess shown = funes(home, "config", "--json", "--store", store.toString());
        assertThat(shown.status()).as(shown.describe("config")).isZero();
        JsonNode json = HitJson.MAPPER.readTree(shown.out());
        assertThat(json.path("index-paths").path("value").get(0).asText()).isEqualTo(store.resolve("sessions").toString());
        assertThat(json.path("index-paths").path("source").asText()).isEqualTo(own + ":1");
        assertThat(json.path("model").path("source").asText()).as("what the store's file leaves out comes from the user's")
                .isEqualTo(user + ":2");

        Files.writeString(own, "index-paths = ['sessions']\nstore = \"~/elsewhere\"\n");
        FunesProcess moved = funes(home, "index", "--store", store.toString());
        assertThat(moved.status()).as(moved.describe("index with 'store' in the store's config")).isEqualTo(1);
        assertThat(moved.err()).contains(own + ":2: a store's own config cannot name the store");
    }

    @Test
    void aMalformedConfigIsAnErrorNamingItsLineAndWritesNothing(@TempDir Path dir) throws IOException {
        Path store = Files.createDirectories(dir.resolve("store"));
        Files.writeString(store.resolve("config.toml"), "model = \"all-minilm-l6-v2-q\"\nmodle = \"bge-small-en-v15-q\"\n");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(new String[] {"index", "--store", store.toString(), "--index-path", SAMPLE.toString()},
                new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(status).as(err.toString()).isEqualTo(1);
        assertThat(err.toString()).contains(store.resolve("config.toml") + ":2: unknown key 'modle'; known: store, index-paths, model, redaction-rules");
        assertThat(store.resolve("funes.db")).doesNotExist();

        Files.writeString(store.resolve("config.toml"), "model = \"gpt-9\"\n");
        err = new StringWriter();
        status = Main.run(new String[] {"config", "--store", store.toString()}, new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(status).isEqualTo(1);
        assertThat(err.toString()).contains(store.resolve("config.toml") + ":1: ").contains("gpt-9");
    }

    @Test
    void valuesAreReadAsTomlReadsThem(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("config.toml");
        Files.writeString(file, """
                # a comment
                store = "C:\\\\Users\\\\ada \\u00e9"   # escapes
                "index-paths" = ['a', "b",
                  # between items
                  'c#not-a-comment']
                """);
        ConfigFile config = ConfigFile.read(file, KEYS).orElseThrow();
        assertThat(config.entry("store").orElseThrow().values()).containsExactly("C:\\Users\\ada \u00e9");
        assertThat(config.entry("store").orElseThrow().line()).isEqualTo(2);
        assertThat(config.entry("index-paths").orElseThrow().values()).containsExactly("a", "b", "c#not-a-comment");
        assertThat(ConfigFile.read(dir.resolve("absent.toml"), KEYS)).isEmpty();
        Files.writeString(file, "neighbour-weight = 2.5e-1   # a quarter\n");
        assertThat(ConfigFile.read(file, KEYS).orElseThrow().entry("neighbour-weight").orElseThrow().values())
                .containsExactly("2.5e-1");
    }

    @Test
    void aStoresConfigSetsTheSearchWeightsAndAWeightOutOfRangeNamesItsLine(@TempDir Path dir) throws IOException {
        Path store = dir.resolve("store");
        assertThat(cli("index", "--store", store.toString(), "--index-path", SAMPLE.toString())).contains("1 indexed");
        String defaults = cli("config", "--store", store.toString());
        assertThat(lineOf(defaults, "dense-weight")).contains("0.4", "default");
        assertThat(lineOf(defaults, "neighbour-weight")).contains("0", "default");
        JsonNode hybrid = HitJson.MAPPER.readTree(cli("search", "--store", store.toString(), "--json",
                "how are the tests run"));
        JsonNode words = HitJson.MAPPER.readTree(cli("search", "--store", store.toString(), "--json", "--retrieval",
                "lexical", "-n", "20", "tests run session"));
        // Each side's part is its weight times a score rescaled to 0..1.
        assertThat(largest(hybrid, "dense")).isGreaterThan(0).isLessThanOrEqualTo(0.4 + 1e-9);
        assertThat(largest(hybrid, "lexical")).isGreaterThan(0.4 + 1e-9).isLessThanOrEqualTo(0.6 + 1e-9);

        Path own = store.resolve("config.toml");
        Files.writeString(own, "# a store of conversation\ndense-weight = 0.6\nneighbour-weight = 0.25\n");
        JsonNode shown = HitJson.MAPPER.readTree(cli("config", "--json", "--store", store.toString()));
        assertThat(shown.path("dense-weight").path("value").asText()).isEqualTo("0.6");
        assertThat(shown.path("dense-weight").path("source").asText()).isEqualTo(own + ":2");
        assertThat(shown.path("neighbour-weight").path("value").asText()).isEqualTo("0.25");
        assertThat(shown.path("neighbour-weight").path("source").asText()).isEqualTo(own + ":3");
        JsonNode hybridNow = HitJson.MAPPER.readTree(cli("search", "--store", store.toString(), "--json",
                "how are the tests run"));
        assertThat(largest(hybridNow, "dense")).isGreaterThan(0.4 + 1e-9).isLessThanOrEqualTo(0.6 + 1e-9);
        assertThat(largest(hybridNow, "lexical")).isGreaterThan(0).isLessThanOrEqualTo(0.4 + 1e-9);
        // Exchanges next to ranked ones gain a share of their scores: the rerank parts grow.
        JsonNode wordsNow = HitJson.MAPPER.readTree(cli("search", "--store", store.toString(), "--json", "--retrieval",
                "lexical", "-n", "20", "tests run session"));
        Map<String, Double> before = new java.util.HashMap<>();
        words.forEach(h -> before.put(h.path("id").asText(), h.path("scoreParts").path("rerank").asDouble()));
        double gained = 0;
        for (JsonNode h : wordsNow) {
            gained = Math.max(gained, h.path("scoreParts").path("rerank").asDouble()
                    - before.getOrDefault(h.path("id").asText(), Double.NaN));
        }
        assertThat(gained).as("some exchange gained its neighbour's share").isGreaterThan(0);

        Files.writeString(own, "dense-weight = 0.6\nneighbour-weight = -0.5\n");
        StringWriter err = new StringWriter();
        int status = Main.run(new String[] {"search", "--store", store.toString(), "tests"},
                new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
        assertThat(status).isEqualTo(1);
        assertThat(err.toString()).contains(own + ":2: 'neighbour-weight' must be at least 0, was -0.5");
        Files.writeString(own, "dense-weight = 1.5\n");
        err = new StringWriter();
        status = Main.run(new String[] {"config", "--store", store.toString()},
                new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
        assertThat(status).isEqualTo(1);
        assertThat(err.toString()).contains(own + ":1: 'dense-weight' must be from 0 to 1, was 1.5");
    }

    /** The largest score part {@code part} among the hits of {@code search --json}. */
    private static double largest(JsonNode hits, String part) {
        double largest = 0;
        for (JsonNode h : hits) {
            largest = Math.max(largest, h.path("scoreParts").path(part).asDouble());
        }
        return largest;
    }

    /** {@code funes ARGS} in this process; fails unless it succeeds; returns what it printed. */
    private static String cli(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        assertThat(status).as(String.join(" ", args) + ": " + err).isZero();
        return out.toString();
    }

    @Test
    void everyMalformedValueNamesTheFileAndLine(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("config.toml");
        Map<String, String> cases = Map.of(
                "store = 3\n", ":1: 'store' takes a string in quotes, not 3",
                "\nstore = [\"a\"]\n", ":2: 'store' takes a string in quotes",
                "index-paths = \"a\"\n", ":1: 'index-paths' takes an array of strings",
                "index-paths = [1]\n", ":1: 'index-paths' takes an array of strings in quotes",
                "[funes]\nstore = \"a\"\n", ":1: tables are not used in a Funes config",
                "store = \"a\"\nstore = \"b\"\n", ":2: 'store' is set twice (first on line 1)",
                "store = \"C:\\dev\"\n", ":1: unknown escape \\d (write a Windows path in",
                "store = \"a\n", ":1:",
                "neighbour-weight = \"0.25\"\n", ":1: 'neighbour-weight' takes a number, such as 0.25, not \"0.25\"",
                "neighbour-weight = .5\n", ":1: 'neighbour-weight' takes a number");
        for (Map.Entry<String, String> c : cases.entrySet()) {
            Files.writeString(file, c.getKey());
            assertThatThrownBy(() -> ConfigFile.read(file, KEYS)).as(c.getKey())
                    .isInstanceOf(FunesException.class).hasMessageContaining(file + c.getValue());
        }
    }

    /** The line of {@code funes config}'s report that starts with {@code name}. */
    private static String lineOf(String report, String name) {
        return report.lines().filter(l -> l.startsWith(name + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no '" + name + "' line in:\n" + report));
    }

    /** {@code funes ARGS} with {@code HOME=home}, no {@code FUNES_HOME} and no {@code XDG_CONFIG_HOME}, to its end. */
    private static FunesProcess funes(Path home, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("env", "-u", "FUNES_HOME", "-u", "XDG_CONFIG_HOME", "HOME=" + home));
        command.addAll(FunesProcess.command(Main.class, "384m", args));
        return run(command);
    }

    private static FunesProcess run(List<String> command) throws IOException, InterruptedException {
        FunesProcess funes = FunesProcess.startCommand(command);
        funes.closeStdin();
        funes.waitFor(PATIENCE);
        return funes;
    }
}
