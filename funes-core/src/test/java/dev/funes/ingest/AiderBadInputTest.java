package dev.funes.ingest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** Bad Aider input: problems name file and line; nothing throws. */
class AiderBadInputTest {

    @TempDir
    Path dir;

    private Logs.Parsed parse(Path file) {
        return Logs.parse(AgentLogs.aider(), file);
    }

    @Test
    void aFileCutInTheMiddleOfAnEditStillGivesWhatWasRead() throws Exception {
        String sample = Files.readString(AiderSampleTest.sample());
        int cut = sample.indexOf("    subtotal -= self.discount") + 10;
        Path file = Records.write(dir.resolve(".aider.chat.history.md"), sample.substring(0, cut));

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().complete()).isTrue();
        assertThat(parsed.result().problems()).isEmpty();
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).startsWith("User: The cart total ignores the discount code.")
                    .contains("[edit] src/cart.py: -2 +2 lines | subtot");
            assertThat(m.provenance().lineEnd()).isEqualTo(23);
        });
    }

    @Test
    void anUnclosedFenceEndsAtAidersNextMessage() {
        Path file = Records.write(dir.resolve("h.md"), """

                # aider chat started at 2025-06-10 09:15:00

                #### show the config \s

                Here it is:

                ```yaml
                port: 8080

                > Tokens: 1k sent, 20 received. \s

                #### thanks \s

                You're welcome.
                """);

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.memories()).extracting(m -> m.text()).containsExactly(
                "User: show the config\nAssistant: Here it is:\n```yaml\nport: 8080",
                "User: thanks\nAssistant: You're welcome.");
    }

    @Test
    void aHeaderWithoutAReadableTimeIsReportedAndItsSessionRead() {
        Path file = Records.write(dir.resolve("h.md"), """
                # aider chat started at yesterday-ish

                #### hello  

                Hi.
                """);

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().problems()).extracting(IndexProblem::toString).containsExactly(
                file.toAbsolutePath().normalize() + ":1: session header has no readable time: 'yesterday-ish'");
        assertThat(parsed.memories()).singleElement().satisfies(m -> {
            assertThat(m.text()).isEqualTo("User: hello\nAssistant: Hi.");
            assertThat(m.startedAt()).isNull();
            assertThat(m.session()).matches("aider-L1-[0-9a-f]{8}");
        });
    }

    @Test
    void invalidUtf8IsReplacedAndReportedWithItsLine() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write("# aider chat started at 2025-06-10 09:15:00\n\n#### caf".getBytes(StandardCharsets.UTF_8));
        bytes.write(0xC3);
        bytes.write("  \n\nOk.\n".getBytes(StandardCharsets.UTF_8));
        Path file = Records.write(dir.resolve("h.md"), bytes.toByteArray());

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().problems()).extracting(p -> p.line() + ": " + p.message())
                .containsExactly("3: invalid UTF-8; replaced by U+FFFD");
        assertThat(parsed.memories()).singleElement()
                .satisfies(m -> assertThat(m.text()).isEqualTo("User: caf\uFFFD\nAssistant: Ok."));
    }

    @Test
    void aTextWithoutHeaderIsStillReadAsOneSession() {
        Path file = Records.write(dir.resolve("h.md"), "#### hello  \n\nHi.\n");

        assertThat(parse(file).memories()).singleElement()
                .satisfies(m -> assertThat(m.session()).matches("aider-L1-[0-9a-f]{8}"));
    }

    @Test
    void aFiveMegabyteLineIsSkippedWithAProblem() {
        Path file = Records.write(dir.resolve("h.md"), "# aider chat started at 2025-06-10 09:15:00\n\n#### go  \n\n"
                + "x".repeat(5_000_000) + "\nDone.\n");

        Logs.Parsed parsed = parse(file);

        assertThat(parsed.result().problems()).extracting(p -> p.line() + ": " + p.message())
                .containsExactly("5: line is 5.0 MB, over the 4 MB limit; skipped");
        assertThat(parsed.memories()).singleElement().satisfies(m -> assertThat(m.text()).isEqualTo("User: go\nAssistant: Done."));
    }

    @Test
    void windowsLineEndsReadTheSameAsUnixOnes() throws Exception {
        String unix = Files.readString(AiderSampleTest.sample());
        Path file = Records.write(dir.resolve(".aider.chat.history.md"), unix.replace("\n", "\r\n"));
        Logs.Lines lines = Logs.Lines.of(file);

        Logs.Parsed windows = parse(file);

        assertThat(windows.memories()).extracting(m -> m.text())
                .isEqualTo(parse(AiderSampleTest.sample()).memories().stream().map(m -> m.text()).toList());
        assertThat(windows.memories()).allSatisfy(m -> Logs.assertCitedLinesExist(m, lines));
    }

    @Test
    void missingFileIsAProblemNotAnException() {
        Path file = dir.resolve(".aider.chat.history.md");

        ParseResult result = AgentLogs.aider().parse(file, m -> { });

        assertThat(result.complete()).isFalse();
        assertThat(result.problems()).extracting(IndexProblem::toString).containsExactly(file + ": file not found");
    }

    @Test
    void mangledHistoriesNeverThrowAndAlwaysCiteValidRanges() throws Exception {
        Fuzz.mangledNeverThrow(AgentLogs.aider(), AiderSampleTest.sample(), dir, ".aider.chat.history.md", 200);
    }

    @Test
    void randomBytesNeverThrow() {
        Fuzz.randomBytesNeverThrow(AgentLogs.aider(), dir, "history.md");
    }
}
