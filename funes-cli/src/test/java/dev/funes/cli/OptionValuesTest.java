package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bad option value is a usage error: exit status 2, the reason and the usage on stderr, as for
 * an unknown option (docs/CLI.md); the command does not run, so nothing is created.
 */
class OptionValuesTest {

    private static CheckCommandTest.Result usageError(String... args) {
        CheckCommandTest.Result r = CheckCommandTest.funes(args);
        assertThat(r.status()).as("funes %s\n%s", String.join(" ", args), r.err()).isEqualTo(2);
        assertThat(r.err()).contains("Usage: funes " + args[0]);
        assertThat(r.out()).isEmpty();
        return r;
    }

    @Test
    void valuesOutOfRangeAreUsageErrors(@TempDir Path dir) {
        String store = dir.resolve("store").toString();
        assertThat(usageError("export", "--store", store, "--hf-dataset", dir.resolve("ds").toString(),
                "--shard-records", "0").err()).startsWith("shardRecords must be between 1 and");
        assertThat(usageError("export", "--store", store, "--hf-dataset", dir.resolve("ds").toString(),
                "--license", "Not A License").err()).startsWith("license must be a lower-case license id");
        assertThat(usageError("demo", "--store", store, "--limit", "0").err()).startsWith("limit must be between 1 and");
        assertThat(usageError("search", "--store", store, "--limit", "0", "x").err()).startsWith("limit must be");
        assertThat(dir.resolve("store")).doesNotExist();
        assertThat(dir.resolve("ds")).doesNotExist();
    }

    @Test
    void anUnknownModelIsAUsageErrorNamingTheValidOnes(@TempDir Path dir) {
        String store = dir.resolve("store").toString();
        for (String[] args : new String[][] {
                {"index", "--store", store, "--model", "bogus", "--index-path", dir.toString()},
                {"import", dir.toString(), "--store", store, "--model", "bogus"},
                {"pull", dir.resolve("remote").toString(), "--store", store, "--model", "bogus"}}) {
            assertThat(usageError(args).err()).startsWith("Invalid value for option '--model': unknown bundled model id"
                    + " 'bogus'; valid ids: all-minilm-l6-v2-q");
        }
        assertThat(dir.resolve("store")).doesNotExist();
    }
}
