package dev.funes.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The examples run, and the README shows their code as it is. */
class QuickstartTest {

    @Test
    void quickstartAnswersFromTheSampleSessionAndLeavesNoStoreBehind() throws Exception {
        Set<Path> before = temporary("funes-quickstart-");
        PrintStream saved = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            Quickstart.main(new String[] {"demo-session", "why did we move away from the streaming parser?"});
        } finally {
            System.setOut(saved);
        }
        String out = captured.toString(StandardCharsets.UTF_8);
        assertThat(out).contains("1 indexed");
        String best = out.lines().filter(line -> line.contains("sample-session.jsonl:")).findFirst().orElseThrow();
        // The exchange with the reasoning, or the decision the classifier derived from it.
        assertThat(best).containsPattern("\\b(exchange|decision)\\b");
        assertThat(out).contains("two-pass");
        assertThat(temporary("funes-quickstart-")).as("the example's temporary store is removed").isSubsetOf(before);
    }

    /** The entries of the temporary folder whose names start with {@code prefix}. */
    static Set<Path> temporary(String prefix) throws IOException {
        try (Stream<Path> entries = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return entries.filter(p -> p.getFileName().toString().startsWith(prefix)).collect(Collectors.toSet());
        }
    }

    @Test
    void readmeShowsTheQuickstartCodeVerbatim() throws IOException {
        String readme = Files.readString(Path.of("../README.md"));
        for (String snippet : List.of(snippet(Path.of("src/main/java/dev/funes/examples/Quickstart.java")))) {
            assertThat(readme).as("README.md must contain, verbatim, the code between the README markers:%n%s", snippet)
                    .contains(snippet);
        }
    }

    /** The lines between {@code // README:begin} and {@code // README:end}, dedented. */
    static String snippet(Path source) throws IOException {
        List<String> lines = Files.readAllLines(source);
        int begin = lines.indexOf(lines.stream().filter(l -> l.strip().equals("// README:begin")).findFirst().orElseThrow());
        int end = lines.indexOf(lines.stream().filter(l -> l.strip().equals("// README:end")).findFirst().orElseThrow());
        List<String> body = lines.subList(begin + 1, end);
        int indent = body.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return String.join("\n", body.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
    }
}
