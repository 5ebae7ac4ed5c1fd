package dev.funes.ingest;

import dev.funes.Memory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad input for any format: a sample with random bytes changed, cut short, or pure noise. The
 * seed is printed with every failure so a case can be replayed.
 */
final class Fuzz {

    private Fuzz() {
    }

    /** Mangles {@code sample} {@code rounds} times; parsing never throws and cites only valid, focused ranges. */
    static void mangledNeverThrow(LogFormat format, Path sample, Path dir, String fileName, int rounds) throws Exception {
        byte[] original = Files.readAllBytes(sample);
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int round = 0; round < rounds; round++) {
            byte[] bytes = original.clone();
            int edits = 1 + random.nextInt(20);
            for (int i = 0; i < edits; i++) {
                int at = random.nextInt(bytes.length);
                bytes[at] = switch (random.nextInt(5)) {
                    case 0 -> (byte) '\n';
                    case 1 -> (byte) random.nextInt(256);
                    case 2 -> (byte) '"';
                    case 3 -> (byte) ']';
                    default -> (byte) '{';
                };
            }
            int cut = random.nextInt(4) == 0 ? random.nextInt(bytes.length) : bytes.length;
            Path file = Records.write(dir.resolve("mangled-" + round).resolve(fileName), Arrays.copyOf(bytes, cut));
            List<Memory> memories = new ArrayList<>();
            ParseResult result = format.parse(file, memories::add);
            Logs.Lines lines = Logs.Lines.of(file);
            assertThat(result.complete()).as("seed %d round %d", seed, round).isTrue();
            assertThat(result.indexedBytes()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(cut);
            assertThat(result.problems().size()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(Problems.MAX + 2);
            for (Memory m : memories) {
                assertThat(m.provenance().lineEnd()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(lines.count());
                assertThat(m.provenance().byteStart()).as("seed %d round %d", seed, round)
                        .isEqualTo(lines.offsets()[m.provenance().lineStart() - 1]);
                assertThat(m.provenance().byteEnd()).as("seed %d round %d", seed, round)
                        .isEqualTo(lines.offsets()[m.provenance().lineEnd()]);
                assertThat(m.text().length()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(Chunker.MAX_CHARS);
            }
        }
    }

    /** Pure noise: parsing never throws, completes, and lists a bounded number of problems. */
    static void randomBytesNeverThrow(LogFormat format, Path dir, String fileName) {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        for (int round = 0; round < 50; round++) {
            byte[] bytes = new byte[random.nextInt(20_000)];
            random.nextBytes(bytes);
            Path file = Records.write(dir.resolve("noise-" + round).resolve(fileName), bytes);
            List<Memory> memories = new ArrayList<>();
            ParseResult result = format.parse(file, memories::add);
            assertThat(result.complete()).as("seed %d round %d", seed, round).isTrue();
            assertThat(result.problems().size()).as("seed %d round %d", seed, round).isLessThanOrEqualTo(Problems.MAX + 2);
            assertThat(format.canRead(file, bytes)).as("noise is no %s log (seed %d round %d)", format.name(), seed, round)
                    .isFalse();
        }
    }
}
