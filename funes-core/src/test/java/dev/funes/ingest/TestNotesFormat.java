package dev.funes.ingest;

import dev.funes.Memory;
import dev.funes.MemoryKind;
import dev.funes.Provenance;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * A plug-in format used to test {@link java.util.ServiceLoader} discovery: files starting with
 * {@code #funes-test-notes}, one NOTE memory per following non-blank line. Registered in
 * src/test/resources/META-INF/services/dev.funes.ingest.LogFormat.
 */
public final class TestNotesFormat implements LogFormat {

    static final String MAGIC = "#funes-test-notes";

    /** Used by ServiceLoader. */
    public TestNotesFormat() {
    }

    @Override
    public String name() {
        return "test-notes";
    }

    @Override
    public boolean canRead(Path file, byte[] head) {
        return new String(head, StandardCharsets.UTF_8).startsWith(MAGIC);
    }

    @Override
    public ParseResult parse(Path file, Consumer<Memory> sink) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            List<String> lines = List.of(new String(bytes, StandardCharsets.UTF_8).split("\n", -1));
            long offset = 0;
            int records = 0;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                long end = Math.min(bytes.length, offset + line.getBytes(StandardCharsets.UTF_8).length + 1);
                if (i > 0 && !line.isBlank()) {
                    records++;
                    sink.accept(Memory.builder(MemoryKind.NOTE, "test-notes", line)
                            .provenance(new Provenance(file, i + 1, i + 1, offset, end, List.of())).build());
                }
                offset = end;
            }
            return new ParseResult(records, 0, bytes.length, lines.size(), true, List.of());
        } catch (IOException e) {
            return ParseResult.failed(new IndexProblem(file, 0, e.toString()));
        }
    }
}
