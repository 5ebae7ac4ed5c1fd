package dev.funes.ingest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The formats judge a log's first lines as {@link Heads#parse} reads them, Jackson's streaming
 * parser alone; they were written against {@code ObjectMapper.readTree}, so the two must give
 * the same object (node types included) or both none, for every line of every real log's head
 * and for the shapes a broken or odd line can take.
 */
class HeadsParseTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    @Test
    void everyLineOfEveryRealLogsHeadParsesAsObjectMapperReadsIt() throws IOException {
        Path fixtures = Logs.fixtures("");
        List<Path> files;
        try (Stream<Path> all = Files.walk(fixtures)) {
            files = all.filter(Files::isRegularFile).sorted().toList();
        }
        int objects = 0;
        for (Path file : files) {
            byte[] head;
            try (InputStream in = Files.newInputStream(file)) {
                head = in.readNBytes(Indexer.HEAD_BYTES);
            }
            for (String line : new String(head, StandardCharsets.UTF_8).split("\n")) {
                String stripped = line.strip();
                if (!stripped.isEmpty()) {
                    objects += sameAsObjectMapper(stripped) ? 1 : 0;
                }
            }
        }
        assertThat(objects).as("JSON objects among the lines compared").isGreaterThan(500);
    }

    @Test
    void oddAndBrokenLinesParseAsObjectMapperReadsThem() {
        List<String> lines = List.of(
                "{}",
                "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}",
                "{\"int\":1,\"long\":12345678901,\"big\":123456789012345678901234567890,\"neg\":-7}",
                "{\"f\":1.5,\"e\":1e3,\"negzero\":-0.0,\"huge\":1e999,\"tiny\":4.9e-325}",
                "{\"x\":[1,{\"y\":null},true,false,\"s\",[],[[{}]]]}",
                "{\"a\":1,\"a\":{\"b\":2}}",
                "{\"u\":\"\\u00e9\\ud83d\\ude00\\n\\\"\",\"\":\"empty key\"}",
                "{\"a\":1} and then words",
                "{\"a\":1}{\"b\":2}",
                "{\"a\":1}]",
                "{\"a\":",
                "{\"a\":1",
                "{\"a\":[1,2}",
                "{\"a\":1,}",
                "{'a':1}",
                "{a:1}",
                "{\"a\":NaN}",
                "{\"a\":01}",
                "[{\"a\":1}]",
                "\"{\\\"a\\\":1}\"",
                "42",
                "null",
                "not json at all",
                "}");
        int objects = 0;
        for (String line : lines) {
            objects += sameAsObjectMapper(line) ? 1 : 0;
        }
        assertThat(objects).isGreaterThanOrEqualTo(8);
    }

    /** Asserts both read the same object or none; whether it was one. */
    private static boolean sameAsObjectMapper(String line) {
        JsonNode expected;
        try {
            JsonNode read = MAPPER.readTree(line);
            expected = read != null && read.isObject() ? read : null;
        } catch (IOException | RuntimeException e) {
            expected = null;
        }
        assertThat((JsonNode) Heads.parse(line)).as(line).isEqualTo(expected);
        return expected != null;
    }
}
