package dev.funes.ingest;

import dev.funes.Memory;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A line-based reader ends its parse once its sink says it wants nothing more
 * ({@link PassageSink#stopped()}): the Indexer stops a file's read that way when a write of it
 * failed or an ignore directive appeared, instead of reading the rest of the log in vain.
 */
class ReaderStopTest {

    static Stream<Arguments> logs() {
        return Stream.of(Arguments.of(AgentLogs.claudeCode(), Logs.mainSample()),
                Arguments.of(AgentLogs.aider(), AiderSampleTest.sample()));
    }

    /** Takes memories until it has {@code limit}, then says it is stopped. */
    private static final class Stopping implements PassageSink {
        final int limit;
        final List<Memory> taken = new ArrayList<>();
        int offered;

        Stopping(int limit) {
            this.limit = limit;
        }

        @Override
        public boolean passages() {
            return false;
        }

        @Override
        public boolean stopped() {
            return taken.size() >= limit;
        }

        @Override
        public void accept(Memory memory) {
            offered++;
            if (!stopped()) {
                taken.add(memory);
            }
        }
    }

    @ParameterizedTest
    @MethodSource("logs")
    void aStoppedSinkEndsTheReadBeforeTheEndOfTheFile(LogFormat format, Path file) throws IOException {
        Stopping all = new Stopping(Integer.MAX_VALUE);
        ParseResult whole = format.parse(file, all);
        assertThat(whole.complete()).isTrue();
        assertThat(whole.indexedBytes()).isEqualTo(Files.size(file));
        assertThat(all.taken).hasSizeGreaterThan(2);

        Stopping one = new Stopping(1);
        ParseResult stopped = format.parse(file, one);

        assertThat(one.taken).containsExactly(all.taken.get(0));
        // Read no further than the line after which the first memory was handed over.
        assertThat(stopped.complete()).isFalse();
        assertThat(stopped.indexedBytes()).isLessThan(Files.size(file));
        assertThat(one.offered).isLessThan(all.offered);
    }
}
