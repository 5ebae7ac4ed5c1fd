package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code funes mcp} process answers {@code initialize} from {@code main}, before its MCP
 * server is built ({@link McpEarlyAnswer}): with the bytes the SDK's server gives for the same
 * request, once, and the session that follows is the SDK's as before. With
 * {@code -Dfunes.debug=true} the process says on stderr that it answered at start and that the
 * session's own answer was the same (and so not sent again).
 */
class McpEarlyStartTest {

    /** A guard against a hang, not a timing assertion. */
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private static final String ANSWERED_AT_START = "funes mcp: initialize answered at start";
    private static final String SAME_AS_SDK = "funes mcp: the session's answer to initialize is the one sent at start";

    @TempDir
    Path tmp;

    /** Initialize, initialized and a tool call written at once, as pipelining clients do. */
    @Test
    void aPipelinedSessionIsAnsweredOnceAtStartThenByTheSession() throws Exception {
        String initialize = McpEarlyAnswerTest.ANSWERED.get(2);
        try (FunesProcess mcp = start("mcp", "--store", tmp.resolve("store").toString())) {
            mcp.send(initialize + "\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
                    + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"recent_sessions\","
                    + "\"arguments\":{}}}");
            mcp.awaitOut(line -> line.contains("\"id\":2"), PATIENCE);
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();

            List<String> out = lines(mcp.out());
            assertThat(out).as(mcp.describe("stdout")).hasSize(2);
            assertThat(out.get(0)).isEqualTo(McpEarlyAnswerTest.sdkSession(initialize).get(0));
            JsonNode call = HitJson.MAPPER.readTree(out.get(1));
            assertThat(call.path("result").path("isError").asBoolean()).as(out.get(1)).isFalse();
            assertThat(call.path("result").has("structuredContent")).as(out.get(1)).isTrue();
            assertThat(mcp.err()).contains(ANSWERED_AT_START).contains(SAME_AS_SDK).doesNotContain("BUG");
        }
    }

    /** Versions the SDK knows, one it does not, no clientInfo, an id to escape: each the SDK's answer. */
    @Test
    void everyKindOfInitializeGetsTheSdksAnswer() throws Exception {
        for (int i : new int[] {0, 3, 4, 7, 9}) {
            String initialize = McpEarlyAnswerTest.ANSWERED.get(i);
            try (FunesProcess mcp = start("mcp", "--store=" + tmp.resolve("store"))) {
                mcp.send(initialize);
                mcp.awaitOut(line -> line.contains("\"result\""), PATIENCE);
                mcp.closeStdin();
                assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
                assertThat(lines(mcp.out())).as(mcp.describe("stdout")).containsExactly(
                        McpEarlyAnswerTest.sdkSession(initialize).get(0));
                assertThat(mcp.err()).as(initialize).contains(ANSWERED_AT_START).contains(SAME_AS_SDK)
                        .doesNotContain("BUG");
            }
        }
    }

    /** {@code -Dfunes.mcp.early=false} leaves initialize to the session, which answers the same. */
    @Test
    void theEarlyAnswerCanBeTurnedOff() throws Exception {
        String initialize = McpEarlyAnswerTest.ANSWERED.get(4);
        List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m", "mcp", "--store",
                tmp.resolve("store").toString()));
        command.add(command.indexOf("-cp"), "-Dfunes.debug=true");
        command.add(command.indexOf("-cp"), "-Dfunes.mcp.early=false");
        try (FunesProcess mcp = FunesProcess.startCommand(command)) {
            mcp.send(initialize);
            mcp.awaitOut(line -> line.contains("\"result\""), PATIENCE);
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
            assertThat(lines(mcp.out())).as(mcp.describe("stdout")).containsExactly(
                    McpEarlyAnswerTest.sdkSession(initialize).get(0));
            assertThat(mcp.err()).doesNotContain(ANSWERED_AT_START).doesNotContain(SAME_AS_SDK);
        }
    }

    /** A first line in doubt is left to the session, which answers it as before. */
    @Test
    void aFirstLineInDoubtIsTheSessionsToAnswer() throws Exception {
        try (FunesProcess mcp = start("mcp", "--store", tmp.resolve("store").toString())) {
            // Capabilities that are no object: the SDK's conversion fails, and it answers with an error.
            mcp.send(McpEarlyAnswerTest.CAPABILITIES_NOT_AN_OBJECT);
            mcp.send(McpEarlyAnswerTest.ANSWERED.get(1));
            mcp.awaitOut(line -> line.contains("\"id\":2"), PATIENCE);
            mcp.closeStdin();
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isZero();
            List<String> out = lines(mcp.out());
            assertThat(out).as(mcp.describe("stdout")).hasSize(2);
            assertThat(HitJson.MAPPER.readTree(out.get(0)).path("error").path("code").asInt()).as(out.get(0))
                    .isEqualTo(-32603);
            assertThat(out.get(1)).isEqualTo(McpEarlyAnswerTest.sdkSession(McpEarlyAnswerTest.ANSWERED.get(1)).get(0));
            assertThat(mcp.err()).doesNotContain(ANSWERED_AT_START).doesNotContain(SAME_AS_SDK);
        }
    }

    /**
     * A store that cannot be opened still ends the process with status 1 and the reason, when the
     * client's initialize came first; stdout holds at most the answer to it.
     */
    @Test
    void aStoreThatCannotBeOpenedStillEndsTheProcessWithStatusOne() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("a-file"), "not a store\n");
        String initialize = McpEarlyAnswerTest.ANSWERED.get(2);
        try (FunesProcess mcp = start("mcp", "--store", notADirectory.toString())) {
            mcp.send(initialize);
            assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("exit status")).isEqualTo(1);
            assertThat(mcp.err()).as(mcp.describe("stderr")).contains("funes: ").contains(notADirectory.toString());
            for (String line : lines(mcp.out())) {
                assertThat(line).as(mcp.describe("stdout")).isEqualTo(McpEarlyAnswerTest.sdkSession(initialize).get(0));
            }
        }
    }

    /** {@code funes ARGS} on the test classpath with {@code -Dfunes.debug=true}. */
    private static FunesProcess start(String... args) throws IOException {
        List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m", args));
        command.add(command.indexOf("-cp"), "-Dfunes.debug=true");
        return FunesProcess.startCommand(command);
    }

    private static List<String> lines(String out) {
        List<String> lines = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (!line.isEmpty()) {
                lines.add(line);
            }
        }
        return lines;
    }
}
