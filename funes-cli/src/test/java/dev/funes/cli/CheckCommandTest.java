package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code funes check}: findings on stdout, exit 0 only when healthy, {@code --repair} rebuilds derived data. */
class CheckCommandTest {

    record Result(int status, String out, String err) {
    }

    static Result funes(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(status, out.toString(), err.toString());
    }

    private static Path indexedStore(Path dir) {
        Path store = dir.resolve("store");
        Result index = funes("index", "--index-path", "../examples/demo-session", "--store", store.toString());
        assertThat(index.status()).as(index.err()).isZero();
        return store;
    }

    @Test
    void aHealthyStorePassesWithExitZeroInTextAndJson(@TempDir Path dir) throws IOException {
        Path store = indexedStore(dir);
        Result text = funes("check", "--store", store.toString());
        assertThat(text.status()).as(text.out() + text.err()).isZero();
        assertThat(text.out()).contains("ok        integrity").contains("ok        fts").contains("ok        ann")
                .contains("healthy: 11 checks");
        assertThat(text.err()).isEmpty();

        Result json = funes("check", "--store", store.toString(), "--json");
        assertThat(json.status()).isZero();
        JsonNode node = HitJson.MAPPER.readTree(json.out());
        assertThat(node.get("healthy").asBoolean()).isTrue();
        assertThat(node.get("findings").size()).isEqualTo(11);
        for (JsonNode f : node.get("findings")) {
            assertThat(f.get("status").asText()).isEqualTo("ok");
            assertThat(f.get("check").asText()).isNotBlank();
            assertThat(f.get("message").asText()).isNotBlank();
        }
    }

    @Test
    void aDamagedFullTextIndexFailsUntilRepaired(@TempDir Path dir) throws SQLException {
        Path store = indexedStore(dir);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + store.resolve("funes.db"));
             Statement s = c.createStatement()) {
            s.execute("DELETE FROM memories_fts WHERE rowid = (SELECT min(seq) FROM memories)");
        }
        Result broken = funes("check", "--store", store.toString());
        assertThat(broken.status()).isEqualTo(1);
        assertThat(broken.out()).contains("problem   fts").contains("1 problem (fts)");
        assertThat(broken.err()).hasLineCount(1).startsWith("funes: the store").contains("funes check --repair");

        Result repair = funes("check", "--store", store.toString(), "--repair");
        assertThat(repair.status()).as(repair.out() + repair.err()).isZero();
        assertThat(repair.out()).contains("repaired  fts").contains("rebuilt the full-text index")
                .contains("healthy: 11 checks, 1 repaired");
        assertThat(funes("check", "--store", store.toString()).status()).isZero();
    }

    @Test
    void damagedFullTextBlocksFailSearchWithAdviceUntilCheckRepairRebuildsThem(@TempDir Path dir) throws SQLException {
        Path store = indexedStore(dir);
        sql(store, "DELETE FROM memories_fts_data WHERE id > 10");

        Result search = funes("search", "--store", store.toString(), "two-pass parser");
        assertThat(search.status()).isEqualTo(1);
        assertThat(search.err()).hasLineCount(1).contains("full-text index").contains("funes check --repair")
                .doesNotContain("backup");
        Result broken = funes("check", "--store", store.toString());
        assertThat(broken.status()).isEqualTo(1);
        assertThat(broken.out()).contains("problem   fts").contains("1 problem (fts)");
        assertThat(broken.err()).contains("'funes check --repair' rebuilds what is derived");

        Result repair = funes("check", "--store", store.toString(), "--repair");
        assertThat(repair.status()).as(repair.out() + repair.err()).isZero();
        assertThat(repair.out()).contains("repaired  fts");
        Result again = funes("search", "--store", store.toString(), "two-pass parser");
        assertThat(again.status()).as(again.err()).isZero();
        assertThat(again.out()).contains("go with the two-pass parser");
        assertThat(again.err()).isEmpty();
    }

    @Test
    void zeroedVectorsMakeSearchWarnAndARepairEmbedsTheirTextsAgain(@TempDir Path dir) throws Exception {
        Path store = indexedStore(dir);
        long stored = count(store, "SELECT count(*) FROM vectors");
        sql(store, "UPDATE vectors SET embedding = zeroblob(384 * 4)");

        Result search = funes("search", "--store", store.toString(), "two-pass parser");
        assertThat(search.status()).as("answers still come, by words").isZero();
        assertThat(search.out()).contains("go with the two-pass parser");
        assertThat(search.err()).hasLineCount(1).startsWith("warning: the store may be damaged: ")
                .contains("vectors read are unusable").contains("funes check");

        Result json = funes("check", "--store", store.toString(), "--json");
        assertThat(json.status()).isEqualTo(1);
        JsonNode vectors = null;
        for (JsonNode f : HitJson.MAPPER.readTree(json.out()).get("findings")) {
            if (f.get("check").asText().equals("vectors")) {
                vectors = f;
            }
        }
        assertThat(vectors).isNotNull();
        assertThat(vectors.get("status").asText()).isEqualTo("problem");
        assertThat(vectors.get("message").asText()).contains("are all zeros");
        assertThat(vectors.get("repairable").asBoolean()).isTrue();

        Result repair = funes("check", "--store", store.toString(), "--repair");
        assertThat(repair.status()).as(repair.out() + repair.err()).isZero();
        assertThat(repair.out()).contains("repaired  vectors").contains("embedded " + stored + " texts again");
        Result quiet = funes("search", "--store", store.toString(), "two-pass parser");
        assertThat(quiet.err()).isEmpty();
    }

    @Test
    void quickSaysNoSignOnAHealthyStoreAndNamesZeroedVectorsWithExitOne(@TempDir Path dir) throws Exception {
        Path store = indexedStore(dir);
        Result healthy = funes("check", "--quick", "--store", store.toString());
        assertThat(healthy.status()).as(healthy.out() + healthy.err()).isZero();
        assertThat(healthy.out()).contains("no sign of damage (quick check;");
        assertThat(healthy.err()).isEmpty();

        sql(store, "UPDATE vectors SET embedding = zeroblob(384 * 4)");
        Result text = funes("check", "--quick", "--store", store.toString());
        assertThat(text.status()).isEqualTo(1);
        assertThat(text.out()).containsPattern("problem\\s+quick\\s+\\d+ of the \\d+ vectors read are unusable")
                .contains("1 sign of damage (quick check)");
        assertThat(text.err()).hasLineCount(1).contains("run 'funes check' to see what is wrong");
        JsonNode json = HitJson.MAPPER.readTree(funes("check", "--quick", "--json", "--store", store.toString()).out());
        assertThat(json.get("healthy").asBoolean()).isFalse();
        assertThat(json.get("findings").get(0).get("message").asText()).contains("vectors read are unusable");

        assertThat(funes("check", "--quick", "--repair", "--store", store.toString()).status()).as("bad usage").isEqualTo(2);
    }

    private static long count(Path store, String query) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + store.resolve("funes.db"));
             Statement s = c.createStatement(); java.sql.ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void sql(Path store, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + store.resolve("funes.db"));
             Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    @Test
    void aFileThatIsNotADatabaseFailsWithAdvice(@TempDir Path dir) throws IOException {
        Path store = Files.createDirectories(dir.resolve("store"));
        Files.writeString(store.resolve("funes.db"), "not a database\n".repeat(300));
        Result plain = funes("check", "--store", store.toString());
        assertThat(plain.status()).isEqualTo(1);
        assertThat(plain.err()).as("a repair cannot help: it is not advised").hasLineCount(1)
                .doesNotContain("--repair").contains("see the findings above");
        Result check = funes("check", "--store", store.toString(), "--repair");
        assertThat(check.status()).isEqualTo(1);
        assertThat(check.out()).contains("problem   database").contains("backup").contains("funes index");
        assertThat(check.err()).hasLineCount(1);

        Result search = funes("search", "--store", store.toString(), "anything");
        assertThat(search.status()).isEqualTo(1);
        assertThat(search.err()).hasLineCount(1).contains("not a SQLite database").contains("backup");
    }

    @Test
    void noStoreIsAOneLineError(@TempDir Path dir) {
        Result check = funes("check", "--store", dir.resolve("nothing").toString());
        assertThat(check.status()).isEqualTo(1);
        assertThat(check.err()).startsWith("funes: no Funes store at").hasLineCount(1);
        assertThat(check.out()).isEmpty();
        assertThat(dir.resolve("nothing")).doesNotExist();
    }
}
