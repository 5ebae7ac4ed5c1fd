package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.ingest.Indexer;
import dev.funes.why.Why;
import dev.funes.why.WhyHit;
import dev.funes.why.WhyRequest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes watch} links commits as it indexes: a commit line appended to a watched Aider
 * history becomes a link (what {@code funes why SHA} answers from) while the watch runs, with the
 * real store, model and watch thread, and the command's own link pass ({@link WatchCommand#linker}).
 */
class WatchLinkTest {

    private static final Duration GIVE_UP = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @Test
    void aCommitAppendedToAWatchedAiderHistoryIsLinkedWhileWatching() throws Exception {
        Path project = Files.createDirectories(tmp.resolve("tapir-shop"));
        Path history = project.resolve(".aider.chat.history.md");
        Files.writeString(history, """
                # aider chat started at 2025-10-14 10:00:00

                > Aider v0.85.2
                > Main model: gpt-4o

                #### Rename the tapir parser class to TapirParser  

                Renamed it.

                src/parser.py
                ```python
                <<<<<<< SEARCH
                class P:
                =======
                class TapirParser:
                >>>>>>> REPLACE
                ```

                """, StandardCharsets.UTF_8);
        List<String> lines = new CopyOnWriteArrayList<>();
        StringWriter linkOut = new StringWriter();
        try (OpenStore open = OpenStore.open(tmp.resolve("store"), null)) {
            Indexer indexer = Indexer.builder(open.store()).listener(new Watcher.Lines(lines::add)).build();
            Watcher watcher = new Watcher(indexer, List.of(project), lines::add, true,
                    WatchCommand.linker(open, new PrintWriter(linkOut, true)));
            assertThat(watcher.start(indexer).filesIndexed()).isEqualTo(1);
            Optional<WhyHit> hit;
            try {
                assertThat(linked(open, "5e6f7a8")).as("a commit not yet in the log").isEmpty();
                Files.writeString(history, """
                        > Applied edit to src/parser.py  
                        > Commit 5e6f7a8 refactor: rename the tapir parser class  

                        """, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
                hit = await(open, "5e6f7a8");
            } finally {
                watcher.stop();
                assertThat(watcher.awaitStopped(Duration.ofSeconds(30))).isTrue();
            }
            assertThat(hit).as("link for the appended commit, while watching; watch said " + lines).isPresent();
            assertThat(hit.get().evidence().label()).isEqualTo("aider-commit");
            assertThat(hit.get().memory().text()).contains("[commit] 5e6f7a8");
            assertThat(hit.get().memory().provenance().source()).isEqualTo(history.toRealPath());
        }
        assertThat(linkOut.toString()).contains("linked: ").contains("aider-commit=");
        assertThat(lines).noneMatch(l -> l.startsWith("funes watch: linking"));
    }

    /** The first hit linked to {@code sha}, polling until {@link #GIVE_UP}. */
    private static Optional<WhyHit> await(OpenStore open, String sha) throws InterruptedException {
        long start = System.nanoTime();
        while (System.nanoTime() - start < GIVE_UP.toNanos()) {
            Optional<WhyHit> hit = linked(open, sha);
            if (hit.isPresent()) {
                return hit;
            }
            Thread.sleep(50);
        }
        return Optional.empty();
    }

    /** The first hit linked to {@code sha} now (a text search for it gives hits without a commit). */
    private static Optional<WhyHit> linked(OpenStore open, String sha) {
        return Why.over(open.store()).why(WhyRequest.of(sha)).stream().filter(h -> sha.equals(h.commit())).findFirst();
    }
}
