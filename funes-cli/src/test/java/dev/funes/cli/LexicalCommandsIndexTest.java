package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.funes.Embedder;
import dev.funes.MemoryStore;
import dev.funes.Retrieval;
import dev.funes.SearchRequest;
import dev.funes.embed.BundledModel;
import dev.funes.embed.Embedders;
import dev.funes.store.FunesStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands that need no vector (a search by words, {@code why} of a commit) leave the store's
 * dense index closed: no JVector class loads, and a search by words finds what it finds in a store
 * that opened its index at once (UnchangedIndexTest shows the log naming JVector's classes when a
 * write opens the index). Real processes, their class-loading logs read.
 */
class LexicalCommandsIndexTest {

    private static final String QUESTION = "why did CI check the wrong branch";

    private record Run(String output, String classes) {
    }

    private static Run funes(Path tmp, String name, String... args) throws Exception {
        Path classes = tmp.resolve(name + "-classes.log");
        List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m", args));
        command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + classes);
        Process process = new ProcessBuilder(command)
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
        assertThat(process.exitValue()).as(out + err).isZero();
        return new Run(out, Files.readString(classes));
    }

    @Test
    void searchByWordsAndWhyReadNoDenseIndexAndPrintWhatTheyPrintedInProcess(@TempDir Path tmp) throws Exception {
        Path store = tmp.resolve("store");
        CliTest.Result index = CliTest.funes("index", "--store", store.toString(), "--index-path",
                WhyCommandTest.SAMPLE.toString());
        assertThat(index.status()).as(index.err()).isZero();
        String[] lexical = {"search", "--store", store.toString(), "--retrieval", "lexical", "--limit", "3", "--json",
                QUESTION};
        String[] why = {"why", "--store", store.toString(), "4e1c9a7"};

        Run words = funes(tmp, "lexical", lexical);
        Run commit = funes(tmp, "why", why);

        assertThat(words.classes()).contains("dev.funes.store.HybridSearch ").doesNotContain("io.github.jbellis.");
        assertThat(commit.classes()).contains("dev.funes.cli.WhyCommand ").doesNotContain("io.github.jbellis.");
        assertThat(commit.output()).contains("4e1c9a7");
        // The same search through a store that opened its index with it: the same hits, in order.
        List<String> ids = new ArrayList<>();
        HitJson.MAPPER.readTree(words.output()).forEach(hit -> ids.add(hit.get("id").asText()));
        assertThat(ids).hasSize(3);
        try (Embedder embedder = Embedders.bundled(BundledModel.DEFAULT);
             MemoryStore opened = FunesStore.open(store, embedder)) {
            assertThat(opened.search(SearchRequest.builder(QUESTION).retrieval(Retrieval.LEXICAL).limit(3).build())
                    .stream().map(h -> h.memory().id()).toList()).isEqualTo(ids);
        }
    }
}
