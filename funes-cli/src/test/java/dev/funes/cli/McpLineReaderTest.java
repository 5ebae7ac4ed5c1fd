package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lines of stdin as {@code funes mcp} splits them: bounded, numbered, CRLF-tolerant. */
class McpLineReaderTest {

    /** Each line as text, or "TOO LONG", with its number. */
    static List<String> lines(InputStream in, int max) throws IOException {
        McpLineReader reader = new McpLineReader(in, max);
        List<String> lines = new ArrayList<>();
        while (reader.next()) {
            String text = reader.tooLong() ? "TOO LONG"
                    : new String(reader.bytes(), 0, reader.length(), StandardCharsets.UTF_8);
            lines.add(reader.number() + ":" + text + (reader.blank() ? " (blank)" : ""));
        }
        return lines;
    }

    static InputStream bytes(String s) {
        return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void splitsOnNewlinesDropsCarriageReturnsAndKeepsAnUnendedLastLine() throws IOException {
        assertThat(lines(bytes("a\r\nbb\n\n  \ncc"), 10))
                .containsExactly("1:a", "2:bb", "3: (blank)", "4:   (blank)", "5:cc");
        assertThat(lines(bytes(""), 10)).isEmpty();
        assertThat(lines(bytes("x\n"), 10)).containsExactly("1:x");
    }

    @Test
    void aLineOverTheCapIsReportedAndSkippedAndTheNextIsRead() throws IOException {
        String max = "m".repeat(10);
        assertThat(lines(bytes(max + "\n" + max + "\r\n" + max + "m\nok\n" + "z".repeat(50_000) + "\nend"), 10))
                .containsExactly("1:" + max, "2:" + max, "3:TOO LONG", "4:ok", "5:TOO LONG", "6:end");
    }

    @Test
    void readsLinesThatSpanManyReads() throws IOException {
        String long1 = "a".repeat(100_000);
        // A stream that hands out 7 bytes per read, as a pipe may.
        InputStream trickle = new ByteArrayInputStream((long1 + "\n" + "b\n").getBytes(StandardCharsets.UTF_8)) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, 7));
            }
        };
        assertThat(lines(trickle, 200_000)).containsExactly("1:" + long1, "2:b");
    }
}
