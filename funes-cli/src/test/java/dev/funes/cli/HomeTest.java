package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes} as a process whose {@code $HOME} is not the account's home: the default store and
 * the agents' default log folders are under {@code $HOME}, and an index that finds nothing names
 * where it looked.
 */
class HomeTest {

    private static final Duration PATIENCE = Duration.ofMinutes(3);

    @Test
    void theDefaultStoreAndLogFoldersAreUnderHome(@TempDir Path home) throws Exception {
        FunesProcess nothing = funes(home, "index");
        assertThat(nothing.status()).as(nothing.describe("index with no logs")).isEqualTo(1);
        assertThat(nothing.err()).contains("no agent logs in the default locations under " + home);

        Path projects = Files.createDirectories(home.resolve(".claude/projects/-home-dev-ledger-sync"));
        FunesProcess empty = funes(home, "index");
        assertThat(empty.status()).as(empty.describe("index of an empty projects folder")).isZero();
        assertThat(empty.err()).contains("no log files found in " + home.resolve(".claude/projects"));

        Files.copy(Path.of("../examples/demo-session/sample-session.jsonl"), projects.resolve("session.jsonl"));
        FunesProcess indexed = funes(home, "index");
        assertThat(indexed.status()).as(indexed.describe("index of $HOME/.claude/projects")).isZero();
        assertThat(indexed.out()).contains("1 indexed");
        assertThat(home.resolve(".funes")).as("the default store under $HOME").isDirectory();

        FunesProcess found = funes(home, "search", "--retrieval", "lexical", "unknown account");
        assertThat(found.status()).as(found.describe("search of the default store")).isZero();
        assertThat(found.out()).contains("ACC-2231");
    }

    /** {@code funes ARGS} with {@code HOME=home} and no {@code FUNES_HOME}, to its end. */
    private static FunesProcess funes(Path home, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("env", "-u", "FUNES_HOME", "HOME=" + home));
        command.addAll(FunesProcess.command(Main.class, "384m", args));
        FunesProcess funes = FunesProcess.startCommand(command);
        funes.closeStdin();
        funes.waitFor(PATIENCE);
        return funes;
    }
}
