package dev.funes.ingest;

import dev.funes.SourceState;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What tells a log unchanged since its checkpoint: the same size, modification time and detected
 * format. A log whose time alone changed is read again, and so is one rewritten to the very same
 * size and time in another format: a check that skipped format detection for a log whose size
 * and time match its checkpoint would miss it.
 */
class UnchangedLogsTest {

    @TempDir
    Path tmp;

    private final InMemoryStore store = new InMemoryStore();

    private IndexReport index(Path file) {
        return Indexer.builder(store).passages(false).build().index(List.of(file));
    }

    private SourceState checkpoint(Path file) {
        return store.checkpoints().orElseThrow().source(file).orElseThrow();
    }

    @Test
    void aLogWhoseModificationTimeAloneChangedIsReadAgain() throws IOException {
        Path file = Files.copy(Logs.mainSample(), tmp.resolve("session.jsonl")).toRealPath();
        assertThat(index(file).filesIndexed()).isEqualTo(1);
        IndexReport again = index(file);
        assertThat(again.filesUnchanged()).isEqualTo(1);
        assertThat(again.filesIndexed()).isZero();

        Files.setLastModifiedTime(file, FileTime.from(Files.getLastModifiedTime(file).toInstant().plusSeconds(1)));
        IndexReport touched = index(file);
        assertThat(touched.filesIndexed()).isEqualTo(1);
        assertThat(touched.filesUnchanged()).isZero();
        assertThat(checkpoint(file).lastModified().toEpochMilli()).isEqualTo(Files.getLastModifiedTime(file).toMillis());
    }

    @Test
    void aLogRewrittenToTheSameSizeAndTimeInAnotherFormatIsReadByThatFormat() throws IOException {
        String claude = String.join("\n", Records.request(1, "how do I rotate the signing key?"),
                Records.answer(2, "msg-1", "run the rotate task, then publish the new key")) + "\n";
        String generic = "{\"role\":\"user\",\"content\":\"how do I rotate the signing key?\"}\n"
                + "{\"role\":\"assistant\",\"content\":\"run the rotate task\"}\n";
        int pad = claude.getBytes(StandardCharsets.UTF_8).length - generic.getBytes(StandardCharsets.UTF_8).length;
        assertThat(pad).isPositive();
        generic = generic.replace("rotate task\"", "rotate task" + " ".repeat(pad) + "\"");
        Path file = Records.write(tmp.resolve("chat.jsonl"), claude).toRealPath();
        assertThat(index(file).filesIndexed()).isEqualTo(1);
        assertThat(checkpoint(file).format()).isEqualTo("claude-code");
        FileTime time = Files.getLastModifiedTime(file);

        Records.write(file, generic);
        Files.setLastModifiedTime(file, time);
        assertThat(Files.size(file)).isEqualTo(checkpoint(file).size());

        IndexReport report = index(file);
        assertThat(report.filesIndexed()).isEqualTo(1);
        assertThat(report.filesUnchanged()).isZero();
        assertThat(checkpoint(file).format()).isEqualTo("generic");
        assertThat(index(file).filesUnchanged()).isEqualTo(1);
    }
}
