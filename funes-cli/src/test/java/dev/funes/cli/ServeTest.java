package dev.funes.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code funes serve}: with a server running, {@code funes search}, {@code why}, {@code stats} and
 * {@code check --quick} processes print what they print without one (same bytes, same status),
 * without building the command line or opening the store themselves; the socket is owner-only;
 * the server stops when idle or signalled, taking its socket along, and steps aside when the
 * store's config changes. Real processes.
 */
class ServeTest {

    private static final Duration PATIENCE = Duration.ofMinutes(3);

    @TempDir
    static Path tmp;

    static Path store;

    @BeforeAll
    static void indexTheSampleSession() {
        store = tmp.resolve("store");
        CliTest.Result index = CliTest.funes("index", "--store", store.toString(), "--index-path", WhyCommandTest.SAMPLE.toString());
        assertThat(index.status()).as(index.err()).isZero();
    }

    /** What one {@code funes} process did, and whether it built its own command line (loaded picocli). */
    record Run(int status, String out, String err, boolean ranItself) {
    }

    /** Runs {@code funes ARGS} in {@code dir} with {@code FUNES_SERVE} as given ({@code null}: unset). */
    private static Run run(Path dir, String serve, String... args) throws IOException, InterruptedException {
        Path log = Files.createTempFile(tmp, "classes-", ".log");
        Path out = Files.createTempFile(tmp, "out-", ".txt");
        Path err = Files.createTempFile(tmp, "err-", ".txt");
        List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m", args));
        command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + log);
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove("FUNES_SERVE");
        if (serve != null) {
            builder.environment().put("FUNES_SERVE", serve);
        }
        Process process = builder.start();
        assertThat(process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).as("funes %s exits", List.of(args)).isTrue();
        boolean picocli = Files.readAllLines(log).stream().anyMatch(line -> line.contains(" picocli.CommandLine "));
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8), picocli);
    }

    private static FunesProcess startServer(String... extra) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("serve", "--store", store.toString()));
        args.addAll(List.of(extra));
        FunesProcess server = FunesProcess.start("512m", args.toArray(String[]::new));
        server.awaitErr(line -> line.startsWith("funes: serving "), PATIENCE);
        return server;
    }

    @Test
    void servedCommandsPrintTheSameBytesAsTheirOwnProcesses() throws Exception {
        String s = store.toString();
        List<List<String>> commands = List.of(
                List.of("search", "--store", s, "two-pass parser"),
                List.of("search", "--json", "--store", s, "--agent", "claude-code", "streaming parser"),
                List.of("search", "--retrieval", "lexical", "-s", s, "ledger"),
                List.of("why", "--store", s, "4e1c9a7"),
                List.of("why", "--json", "--store=" + s, "streaming parser"),
                List.of("stats", "--store", s),
                List.of("stats", "--json", "--store", s),
                List.of("check", "--quick", "--store", s),
                List.of("search", "--store", s),
                List.of("search", "--store", s, "--after", "yesterday", "parser"),
                List.of("search", "--store", "store", "--limit", "2", "parser")); // relative to the client's folder
        try (FunesProcess server = startServer("--idle", "600")) {
            Path socket = store.resolve(ServeWire.SOCKET);
            assertThat(Files.getPosixFilePermissions(socket)).as("the socket's permissions")
                    .isEqualTo(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE));
            for (List<String> command : commands) {
                String[] args = command.toArray(String[]::new);
                Run alone = run(tmp, "0", args);
                Run served = run(tmp, null, args);
                assertThat(alone.ranItself()).as("%s with FUNES_SERVE=0 runs in its process", command).isTrue();
                assertThat(served.ranItself()).as("%s is answered by the server: %s", command, served.err()).isFalse();
                assertThat(served.status()).as("%s status", command).isEqualTo(alone.status());
                assertThat(served.out()).as("%s stdout", command).isEqualTo(alone.out());
                assertThat(served.err()).as("%s stderr", command).isEqualTo(alone.err());
            }
            assertThat(run(tmp, null, "search", "--store", s, "two-pass parser").out()).contains("two-pass");

            Run index = run(tmp, null, "index", "--store", s, "--index-path", WhyCommandTest.SAMPLE.toAbsolutePath().toString());
            assertThat(index.ranItself()).as("index is never served").isTrue();
            assertThat(index.status()).as(index.err()).isZero();

            FunesProcess second = FunesProcess.run(PATIENCE, "384m", "serve", "--store", s);
            assertThat(second.status()).as(second.describe("status")).isZero();
            assertThat(second.err()).contains("a server already answers at " + socket);
            assertThat(server.pid()).as("the first server still runs").isPositive();
            assertThat(run(tmp, null, "stats", "--store", s).ranItself()).as("the first server still answers").isFalse();
        }
    }

    @Test
    void aServerStopsWhenIdleAndStepsAsideWhenTheConfigChanges() throws Exception {
        Path socket = store.resolve(ServeWire.SOCKET);
        try (FunesProcess server = startServer("--idle", "1")) {
            assertThat(server.waitFor(PATIENCE)).as(server.describe("status")).isZero();
            assertThat(socket).doesNotExist();
        }
        Run alone = run(tmp, "0", "stats", "--store", store.toString());
        assertThat(alone.ranItself()).as("no server, the command runs itself").isTrue();
        assertThat(alone.status()).as(alone.err()).isZero();

        try (FunesProcess server = startServer("--idle", "600")) {
            server.signal("TERM");
            server.waitFor(PATIENCE);
            assertThat(socket).as("removed by a server stopped by a signal").doesNotExist();
        }

        Path config = store.resolve(FunesConfig.FILE_NAME);
        try (FunesProcess server = startServer("--idle", "600")) {
            Files.writeString(config, "# changed while the server ran\n");
            Run after = run(tmp, null, "stats", "--store", store.toString());
            assertThat(after.ranItself()).as("a server whose config changed declines").isTrue();
            assertThat(after.out()).isEqualTo(alone.out());
            assertThat(server.waitFor(PATIENCE)).as(server.describe("status")).isZero();
            assertThat(socket).doesNotExist();
        } finally {
            Files.deleteIfExists(config);
        }
    }

    @Test
    void aClientWhoseVariablesNameOtherConfigFilesRunsItself() throws Exception {
        try (FunesProcess server = startServer("--idle", "600")) {
            Path xdg = Files.createDirectories(tmp.resolve("xdg"));
            Path log = Files.createTempFile(tmp, "classes-", ".log");
            List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "384m", "stats", "--store", store.toString()));
            command.add(command.indexOf("-cp"), "-Xlog:class+load=info:file=" + log);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().remove("FUNES_SERVE");
            builder.environment().put("XDG_CONFIG_HOME", xdg.toString());
            Process process = builder.start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(PATIENCE.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            assertThat(process.exitValue()).as(out).isZero();
            assertThat(Files.readString(log)).as("declined, it built its own command line").contains(" picocli.CommandLine ");
            assertThat(server.describe("state")).contains("running");
            assertThat(out).contains("memories");
        }
    }

    @Test
    void aCommandThatFindsNoServerStartsOneForTheNext() throws Exception {
        String s = store.toString();
        Path socket = store.resolve(ServeWire.SOCKET);
        try (FunesProcess killed = startServer("--idle", "600")) {
            killed.close(); // SIGKILL: no time to remove its socket, as after a crash or a restart
        }
        assertThat(socket).as("left by a server killed at once").exists();

        Run never = run(tmp, "0", "stats", "--store", s);
        assertThat(never.ranItself()).isTrue();
        // A server it had started would be a process by now: start() returns after the fork.
        assertThat(servers()).as("FUNES_SERVE=0 starts no server").isEmpty();

        Run first = run(tmp, null, "stats", "--store", s);
        assertThat(first.ranItself()).as("no server answers: the first command runs itself").isTrue();
        assertThat(first.status()).as(first.err()).isZero();
        assertThat(first.out()).isEqualTo(never.out());
        List<ProcessHandle> started = servers();
        assertThat(started).as("the server started for the next command").hasSize(1);
        ProcessHandle server = started.get(0);
        try {
            long deadline = System.nanoTime() + PATIENCE.toNanos();
            while (!Files.exists(socket) && server.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20); // waits for the socket to appear, not for a time
            }
            assertThat(socket).as("the started server listens").exists();
            Run next = run(tmp, null, "stats", "--store", s);
            assertThat(next.ranItself()).as("the next command is answered by it: %s", next.err()).isFalse();
            assertThat(next.status()).isZero();
            assertThat(next.out()).isEqualTo(first.out());
            assertThat(servers()).as("an answered command starts no other").containsExactly(server);
        } finally {
            server.destroy();
            server.onExit().get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        }
        assertThat(socket).as("removed by the server as it stopped").doesNotExist();
    }

    /** The {@code funes serve} processes of this test's store. */
    private static List<ProcessHandle> servers() {
        return FunesProcess.servers(store);
    }

    @Test
    void aClientOfAnotherBuildRunsItselfAndTheServerStepsAside() throws Exception {
        Path socket = store.resolve(ServeWire.SOCKET);
        // The client's classes as a replaced jar would be: the folder or jar they are read from, newer.
        Path classes = Path.of(ServeWire.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        java.nio.file.attribute.FileTime was = Files.getLastModifiedTime(classes);
        Run alone = run(tmp, "0", "stats", "--store", store.toString());
        try (FunesProcess server = startServer("--idle", "600")) {
            // Changed after the server started, before any client asked it.
            Files.setLastModifiedTime(classes, java.nio.file.attribute.FileTime.fromMillis(was.toMillis() + 60_000));
            Run other = run(tmp, null, "stats", "--store", store.toString());
            assertThat(other.ranItself()).as("another build's client runs the command itself").isTrue();
            assertThat(other.status()).as(other.err()).isZero();
            assertThat(other.out()).isEqualTo(alone.out());
            assertThat(server.waitFor(PATIENCE)).as("the server of the old build exits: %s", server.describe("status")).isZero();
            assertThat(socket).doesNotExist();
        } finally {
            Files.setLastModifiedTime(classes, was);
        }
    }

    @Test
    void anMcpSearchIsAnsweredByTheServerUntilTheMcpStoreIsOpen() throws Exception {
        Map<String, Object> found = Map.of("query", "two-pass parser", "limit", 3);
        Map<String, Object> refused = Map.of("query", "parser", "after", "not a date");
        io.modelcontextprotocol.spec.McpSchema.CallToolResult local;
        io.modelcontextprotocol.spec.McpSchema.CallToolResult localError;
        try (OpenStore open = OpenStore.existing(store, true)) {
            McpTools here = new McpTools(open.store(), java.time.Clock.systemUTC(), tmp.toString());
            local = here.call(McpTools.SEARCH_MEMORY, found, null);
            localError = here.call(McpTools.SEARCH_MEMORY, refused, null);
        }
        assertThat(local.isError()).isFalse();
        assertThat(text(local)).contains("two-pass");
        assertThat(localError.isError()).isTrue();
        assertThat(ServeClient.mcpSearch(store, found)).as("no server: the process searches its own store").isEmpty();

        try (FunesProcess server = startServer("--idle", "600")) {
            McpTools opening = new McpTools(() -> {
                throw new AssertionError("the store is not asked while it opens");
            }, java.time.Clock.systemUTC(), tmp.toString()).untilOpen(() -> false, a -> ServeClient.mcpSearch(store, a));
            io.modelcontextprotocol.spec.McpSchema.CallToolResult served = opening.call(McpTools.SEARCH_MEMORY, found, null);
            assertThat(served.isError()).isFalse();
            assertThat(text(served)).as("the server's answer is the tools' own").isEqualTo(text(local));
            com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
            assertThat(json.writeValueAsString(served.structuredContent())).as("the structured content")
                    .isEqualTo(json.writeValueAsString(local.structuredContent()));
            io.modelcontextprotocol.spec.McpSchema.CallToolResult servedError = opening.call(McpTools.SEARCH_MEMORY, refused, null);
            assertThat(servedError.isError()).isTrue();
            assertThat(text(servedError)).isEqualTo(text(localError));

            // A funes mcp process beside the server: answered by it while its own model is not
            // loaded (it starts none when a server answers), then by itself once the server is gone.
            com.fasterxml.jackson.databind.node.ObjectNode query = HitJson.MAPPER.createObjectNode()
                    .put("query", "two-pass parser").put("limit", 3);
            com.fasterxml.jackson.databind.JsonNode expected = HitJson.MAPPER.readTree(text(local));
            try (FunesProcess mcp = FunesProcess.start(Map.of("FUNES_SERVE", "1"), "512m", "mcp", "--store", store.toString())) {
                McpStdioClient client = new McpStdioClient(mcp, PATIENCE);
                client.initialize();
                assertThat(client.call(McpTools.SEARCH_MEMORY, query)).isEqualTo(expected);
                assertThat(client.call(McpTools.SEARCH_MEMORY, query)).isEqualTo(expected);
                // Initialize and a search in one write, as a client may send them: main's reader
                // answers both, the search by the server, before the SDK's session is made.
                List<String> command = new ArrayList<>(FunesProcess.command(Main.class, "512m", "mcp", "--store", store.toString()));
                command.add(command.indexOf("-cp"), "-Dfunes.debug=true");
                try (FunesProcess pipelined = FunesProcess.startCommand(command, Map.of("FUNES_SERVE", "1"))) {
                    pipelined.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                            + "\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}\n"
                            + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"search_memory\","
                            + "\"arguments\":" + query + "}}");
                    String line = pipelined.awaitOut(l -> l.contains("\"id\":2"), PATIENCE);
                    assertThat(line).as(pipelined.describe("the search's answer")).isNotNull();
                    com.fasterxml.jackson.databind.JsonNode result = HitJson.MAPPER.readTree(line).path("result");
                    assertThat(HitJson.MAPPER.readTree(result.path("content").get(0).path("text").asText())).isEqualTo(expected);
                    assertThat(result.path("structuredContent")).isEqualTo(expected);
                    assertThat(pipelined.awaitErr(l -> l.contains("search_memory answered by funes serve at start"), PATIENCE))
                            .as(pipelined.describe("answered from main's reader")).isNotNull();
                    pipelined.closeStdin();
                    assertThat(pipelined.waitFor(PATIENCE)).as(pipelined.describe("status")).isZero();
                }
                server.close(); // killed: its socket stays, and nobody answers there
                assertThat(client.call(McpTools.SEARCH_MEMORY, query)).as("searched by the mcp process itself").isEqualTo(expected);
                mcp.closeStdin();
                assertThat(mcp.waitFor(PATIENCE)).as(mcp.describe("status")).isZero();
            }

            try (OpenStore open = OpenStore.existing(store, true)) {
                McpTools opened = new McpTools(open.store(), java.time.Clock.systemUTC(), tmp.toString())
                        .untilOpen(() -> true, a -> {
                            throw new AssertionError("the server is not asked once the store is open");
                        });
                assertThat(text(opened.call(McpTools.SEARCH_MEMORY, found, null))).isEqualTo(text(local));
            }
        }
    }

    private static String text(io.modelcontextprotocol.spec.McpSchema.CallToolResult result) {
        return ((io.modelcontextprotocol.spec.McpSchema.TextContent) result.content().get(0)).text();
    }
}
